"""Servers on real loopback sockets: an ASGI app in a background thread (`LiveServer`), or a
command in a child process (`server_process`)."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import httpx
import uvicorn

# How long an in-process server may take to start: the app reads every knowledge-base domain
# and warms the grader up first, which takes seconds on a loaded CI machine; a readiness wait,
# not a timing assertion.
START_SECONDS = 60


class LiveServer:
    """`with LiveServer(app) as server: server.url` — started on a free port, stopped on exit."""

    def __init__(self, app: Any, *, name: str = "test server", **config: Any) -> None:
        self.app = app
        self.name = name
        self.config = config
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> LiveServer:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        self._socket = sock
        config = uvicorn.Config(
            self.app,
            loop="asyncio",
            http="h11",
            log_config=None,
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=2,
            **self.config,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + START_SECONDS
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"{self.name} did not start")
            time.sleep(0.005)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        if self._socket is not None:
            self._socket.close()

    def __enter__(self) -> LiveServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def server_process(
    args: list[str],
    env: dict[str, str],
    ready_url: str,
    *,
    cwd: Path | None = None,
    output: IO[bytes] | None = None,
    python: str | None = None,
    timeout: float = 60,
) -> Iterator[int]:
    """`python ARGS` in a child process (this interpreter unless `python` names another),
    yielded (as its pid) once `ready_url` answers 200; terminated (killed after 15 s) on exit."""
    process = subprocess.Popen(
        [python or sys.executable, *args],
        env=env,
        cwd=cwd,
        stdout=output,
        stderr=output and subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + timeout
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"{' '.join(args[:3])} exited with {process.returncode}")
            try:
                if httpx.get(ready_url, timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"{ready_url} did not come up")
            time.sleep(0.1)
        yield process.pid
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
