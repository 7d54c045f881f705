# tutorgraph task runner: the README's commands and CI call these targets.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run install test lint typecheck bench browser clean

$(STAMP): pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/tutorgraph db upgrade
	$(BIN)/tutorgraph seed
	$(BIN)/tutorgraph serve --host $(HOST) --port $(PORT)

test: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/tutorgraph bench all --out BENCHMARKS.md

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
