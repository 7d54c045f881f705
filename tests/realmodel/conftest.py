"""The real-model tier: the openai engine against llama.cpp's OpenAI-compatible server with a real
(tiny) model, SmolLM2-135M-Instruct (`make install-llama`). Skipped with a reason when the server
is not installed; TUTORGRAPH_REQUIRE_REAL_MODEL=1 (CI) turns that skip into a failure."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tutorgraph.settings import LLMSettings
from tutorgraph_bench.llama_server import LlamaServer, llama_python, llama_server

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def real_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    python = llama_python(ROOT)
    if python is None:
        if os.environ.get("TUTORGRAPH_REQUIRE_REAL_MODEL"):
            pytest.fail("TUTORGRAPH_REQUIRE_REAL_MODEL is set but .llama-venv is missing")
        pytest.skip("no llama.cpp server here: `make install-llama` sets up the real-model tier")
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with llama_server(python, log=log) as server:
        yield server


@pytest.fixture
def real_llm(real_server: LlamaServer) -> LLMSettings:
    return LLMSettings(
        engine="openai",
        base_url=real_server.base_url,
        model=real_server.model,
        temperature=0.0,
        max_tokens=96,
        timeout_seconds=120,
        max_attempts=1,
    )
