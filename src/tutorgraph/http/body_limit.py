"""Request bodies are bounded before anything parses them (`limits.max_body_bytes`): a declared
Content-Length above the limit is refused at once with 413, and a body sent without one
(chunked) is counted as it arrives and refused as soon as it passes the limit."""

from __future__ import annotations

import logging

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tutorgraph.http.problems import problem

log = logging.getLogger(__name__)

TITLE = "Content too large"


class BodyTooLarge(HTTPException):
    """Raised from `receive` when a streamed body passes the limit; the app's HTTP error
    handler turns it into the 413 problem document."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, _detail(limit))


def _detail(limit: int) -> str:
    return f"the request body is larger than the limit of {limit} bytes (limits.max_body_bytes)"


class BodyLimitMiddleware:
    def __init__(
        self, app: ASGIApp, *, max_body_bytes: int, upload_paths: dict[str, int] | None = None
    ) -> None:
        self.app = app
        self.default_limit = max_body_bytes
        # Paths that take file uploads, with their own (larger) limits.
        self.upload_paths = upload_paths or {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.upload_paths.get(scope.get("path", ""), self.default_limit)
        declared = _content_length(scope)
        if declared is None or declared > limit:
            status = 400 if declared is None else 413
            title = "Invalid input" if declared is None else TITLE
            detail = "Content-Length: not a length" if declared is None else _detail(limit)
            await problem(status, title, detail)(scope, receive, send)
            return
        received = 0
        started = False

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(limit)
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except BodyTooLarge:  # read where no handler saw it (e.g. after streaming began)
            if started:
                log.warning("request body over the limit after the response started")
                return
            await problem(413, TITLE, _detail(limit))(scope, receive, send)


def _content_length(scope: Scope) -> int | None:
    """The declared length; 0 when none is declared; None when it is not a number."""
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                length = int(value)
            except ValueError:
                return None
            return length if length >= 0 else None
    return 0
