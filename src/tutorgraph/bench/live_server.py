"""Serve an ASGI app with uvicorn on a real loopback socket in a background thread."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import uvicorn


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
        deadline = time.monotonic() + 15
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
