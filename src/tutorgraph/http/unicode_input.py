"""Text that is not valid Unicode is refused at the edge, in one place, before any route reads it.

JSON can spell a lone UTF-16 surrogate (`"\\ud800"`), and Python's JSON decoder turns that (and
the raw bytes of one) into a `str` that cannot be encoded: the first database write, log line or
response that touches it fails. A NUL character is refused with it: PostgreSQL cannot store one
in a text column. So a request whose text holds either never reaches a route:

- a JSON body (`application/json`, `+json`): 422 problem document naming the field;
- a form body (`application/x-www-form-urlencoded`): 422 as well, also when a field's
  percent-encoded bytes are not UTF-8 (which would otherwise be read as U+FFFD);
- a WebSocket text message: answered with `{"type": "error", "status": 422, ...}` and dropped;
  the socket stays open for the next message.

Multipart bodies (uploads) are left to the upload code: their text fields are decoded as
UTF-8, or Latin-1 when they are not, which is valid text either way. Paths, query strings and
headers are decoded by the server with replacement characters, so they are valid already.

The check costs almost nothing for ordinary requests: a body is parsed a second time only when
its bytes show an escape of a surrogate or of NUL (or raw surrogate bytes)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import parse_qsl

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

TITLE = "Invalid input"
# `\uD800`-`\uDFFF` and `\u0000` escapes. (The raw bytes of a surrogate, which Python's JSON
# decoder would read with `surrogatepass`, are not UTF-8: refused before this is looked for.)
_SUSPECT_JSON = re.compile(rb"\\u(?:[dD][89a-fA-F]|0000)")
_SUSPECT_TEXT = re.compile(r"\\u(?:[dD][89a-fA-F]|0000)")
_NOT_TEXT = re.compile("[\x00\ud800-\udfff]")


class InvalidText(HTTPException):
    """Raised from `receive` when a body's text is not valid; the app's HTTP error handler
    turns it into the 422 problem document (or the error page, for a form)."""

    def __init__(self, detail: str) -> None:
        super().__init__(422, detail)


def invalid_text(value: Any, where: str = "") -> str | None:
    """Why a decoded JSON value (or a string) holds text that may not be stored, naming the
    field (`answer`, `items.2.text`); None when every string in it is fine."""
    for path, text in _strings(value, where):
        found = _NOT_TEXT.search(text)
        if found is None:
            continue
        what = "a NUL character" if found.group() == "\x00" else "a lone UTF-16 surrogate"
        field = f"{path}: " if path else ""
        return f"{field}the text holds {what} (U+{ord(found.group()):04X}), which is not valid text"
    return None


def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            child = f"{path}.{key}" if path else str(key)
            yield from _strings(key, child)
            yield from _strings(item, child)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, f"{path}.{index}" if path else str(index))


def _json_problem(body: bytes) -> str | None:
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"the body is not valid UTF-8 (byte {exc.start})"
    if not _SUSPECT_JSON.search(body):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None  # not JSON: the route's own parsing says so
    return invalid_text(value)


def _form_problem(body: bytes) -> str | None:
    try:
        fields = parse_qsl(
            body.decode("latin-1"), keep_blank_values=True, encoding="utf-8", errors="strict"
        )
    except UnicodeDecodeError:
        return "a form field is not valid UTF-8 text"
    except ValueError:
        return None  # malformed: the form parser reads it as it can
    return invalid_text(dict(fields))


def _body_check(scope: Scope) -> Callable[[bytes], str | None] | None:
    """The check for this request's body, by its Content-Type; None for other bodies."""
    content_type = b""
    for name, value in scope["headers"]:
        if name == b"content-type":
            content_type = value.split(b";", 1)[0].strip().lower()
            break
    if content_type == b"application/x-www-form-urlencoded":
        return _form_problem
    if content_type == b"application/json" or (
        content_type.startswith(b"application/") and content_type.endswith(b"+json")
    ):
        return _json_problem
    return None


class UnicodeInputMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            check = _body_check(scope)
            if check is not None:
                await self.app(scope, _checked_body(receive, check), send)
                return
        elif scope["type"] == "websocket":
            await self.app(scope, _checked_messages(receive, send), send)
            return
        await self.app(scope, receive, send)


def _checked_body(receive: Receive, check: Callable[[bytes], str | None]) -> Receive:
    """`receive` that hands the body over as it comes, and checks it whole before its last
    chunk (the body limit, outside this middleware, has bounded it already)."""
    chunks: list[bytes] = []

    async def checked_receive() -> Message:
        message = await receive()
        if message["type"] == "http.request":
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                problem = check(b"".join(chunks))
                chunks.clear()
                if problem is not None:
                    raise InvalidText(problem)
        return message

    return checked_receive


def _checked_messages(receive: Receive, send: Send) -> Receive:
    """`receive` that answers a text message holding invalid text with an error message
    instead of passing it on."""

    async def checked_receive() -> Message:
        while True:
            message = await receive()
            text = message.get("text") if message["type"] == "websocket.receive" else None
            problem = None if text is None else _message_problem(text)
            if problem is None:
                return message
            error = {"type": "error", "status": 422, "title": TITLE}
            # `detail` and `message`: the names the interview's and the tutor's clients read
            error |= {"detail": problem, "message": problem}
            await send({"type": "websocket.send", "text": json.dumps(error)})

    return checked_receive


def _message_problem(text: str) -> str | None:
    if _NOT_TEXT.search(text):  # a client that is not a browser can send any str in-process
        return invalid_text(text)
    if not _SUSPECT_TEXT.search(text):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return invalid_text(value)
