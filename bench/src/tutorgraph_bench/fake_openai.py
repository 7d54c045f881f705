"""A fake OpenAI-compatible model server on a real socket: tests queue replies and faults, the
server records requests and streams SSE chunks with tool calls split into fragments.

Tests use it through `tests/fakes/openai_server.py`; `tutorgraph bench tutor` runs it in its own
process (`python -m tutorgraph_bench.serve_fake_openai --port N ...`) with a default reply."""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import threading
import time
import zlib
from collections import deque
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from pydantic import BaseModel

from tutorgraph.llm.types import ToolCall
from tutorgraph_bench.live_server import LiveServer

_BROKEN_JSON = '{"id": "chatcmpl-broken", "choices": ['

FaultKind = Literal["status", "timeout", "malformed_json"]

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "invalid_api_key",
    403: "permission_denied",
    404: "model_not_found",
    429: "rate_limit_exceeded",
}


@dataclass(frozen=True)
class Fault:
    """A failure the server answers with instead of a reply."""

    kind: FaultKind
    status_code: int = 500
    message: str = ""
    seconds: float = 0.0

    @classmethod
    def status(cls, status_code: int, message: str | None = None) -> Fault:
        return cls("status", status_code, message or f"fake server error {status_code}")

    @classmethod
    def timeout(cls, seconds: float = 2.0) -> Fault:
        """Hold the request longer than the client's timeout before answering."""
        return cls("timeout", seconds=seconds)

    @classmethod
    def malformed_json(cls) -> Fault:
        return cls("malformed_json", 200)


@dataclass(frozen=True)
class Reply:
    """One assistant reply: text, tool calls or both."""

    content: str | None = None
    tool_calls: Sequence[ToolCall] = ()
    finish_reason: str | None = None
    prompt_tokens: int = 12
    completion_tokens: int = 8

    @property
    def reason(self) -> str:
        if self.finish_reason is not None:
            return self.finish_reason
        return "tool_calls" if self.tool_calls else "stop"


ReplyLike = str | BaseModel | Mapping[str, Any] | Sequence[ToolCall] | Reply | Fault


def to_reply(reply: ReplyLike) -> Reply | Fault:
    """Normalise what a test enqueues: text, JSON object or model, tool calls, reply or fault."""
    if isinstance(reply, Reply | Fault):
        return reply
    if isinstance(reply, str):
        return Reply(content=reply)
    if isinstance(reply, BaseModel):
        return Reply(content=reply.model_dump_json())
    if isinstance(reply, Mapping):
        return Reply(content=json.dumps(reply))
    return Reply(tool_calls=list(reply))


@dataclass
class _State:
    replies: deque[Reply | Fault] = field(default_factory=deque)
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    first_token_delay: float = 0.0
    token_interval: float = 0.0
    reject_json_schema: bool = False
    model_ids: tuple[str, ...] = ("fake-model",)
    default_reply: Reply | None = None
    record_requests: bool = True


class FakeOpenAIServer:
    """Serves `/v1/chat/completions` and `/v1/models` from a uvicorn thread on 127.0.0.1."""

    def __init__(self) -> None:
        self._state = _State()
        self._closing = threading.Event()
        self._live: LiveServer | None = None
        self._ids = itertools.count(1)

    # --- test API -------------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def requests(self) -> list[dict[str, Any]]:
        """The JSON bodies of every chat completion request received, oldest first."""
        return self._state.requests

    @property
    def request_headers(self) -> list[dict[str, str]]:
        return self._state.headers

    @property
    def reject_json_schema(self) -> bool:
        return self._state.reject_json_schema

    @reject_json_schema.setter
    def reject_json_schema(self, value: bool) -> None:
        self._state.reject_json_schema = value

    @property
    def pending(self) -> int:
        """How many enqueued replies have not been served yet."""
        return len(self._state.replies)

    def enqueue(self, *replies: ReplyLike) -> None:
        for reply in replies:
            self._state.replies.append(to_reply(reply))

    def configure(
        self,
        *,
        first_token_delay: float | None = None,
        token_interval: float | None = None,
        default_reply: ReplyLike | None = None,
        record_requests: bool | None = None,
    ) -> None:
        """Streaming pace: seconds before the first chunk, and between later content chunks; the
        reply served when the queue is empty (none: answer 400); whether requests are kept."""
        if first_token_delay is not None:
            self._state.first_token_delay = first_token_delay
        if token_interval is not None:
            self._state.token_interval = token_interval
        if default_reply is not None:
            reply = to_reply(default_reply)
            if isinstance(reply, Fault):
                raise ValueError("the default reply must be a reply, not a fault")
            self._state.default_reply = reply
        if record_requests is not None:
            self._state.record_requests = record_requests

    def reset(self) -> None:
        self._state = _State()

    # --- lifecycle ------------------------------------------------------------------------------

    def start(self) -> FakeOpenAIServer:
        self._live = LiveServer(
            self.app(), name="fake OpenAI server", ws="none", lifespan="off"
        ).start()
        return self

    @property
    def port(self) -> int:
        assert self._live is not None, "the fake OpenAI server is not running"
        return self._live.port

    def stop(self) -> None:
        self._closing.set()
        if self._live is not None:
            self._live.stop()

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # --- HTTP -----------------------------------------------------------------------------------

    def app(self) -> FastAPI:
        """The ASGI app (served by `start()`, or by uvicorn directly)."""
        app = FastAPI()

        @app.get("/v1/models")
        async def models() -> dict[str, Any]:
            data = [
                {"id": m, "object": "model", "created": 0, "owned_by": "fake"}
                for m in self._state.model_ids
            ]
            return {"object": "list", "data": data}

        @app.post("/v1/embeddings")
        async def embeddings(request: Request) -> dict[str, Any]:
            """Deterministic bag-of-words vectors: texts sharing words point the same way."""
            body = await request.json()
            if self._state.record_requests:
                self._state.requests.append(body)
            texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
            data = [
                {"object": "embedding", "index": i, "embedding": _bag_of_words(text)}
                for i, text in enumerate(texts)
            ]
            return {"object": "list", "data": data, "model": body.get("model", ""), "usage": {}}

        @app.post("/v1/chat/completions")
        async def chat(request: Request) -> Response:
            body = await request.json()
            state = self._state
            if state.record_requests:
                state.requests.append(body)
                state.headers.append(dict(request.headers))
            response_format = body.get("response_format") or {}
            if state.reject_json_schema and response_format.get("type") == "json_schema":
                return _error(400, "response_format type 'json_schema' is not supported")
            reply: Reply | Fault
            if state.replies:
                reply = state.replies.popleft()
            elif state.default_reply is not None:
                reply = state.default_reply
            else:
                return _error(400, "fake_openai: no reply enqueued for this request")
            if isinstance(reply, Fault):
                return await self._fault(reply, stream=bool(body.get("stream")))
            if body.get("stream"):
                include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
                return StreamingResponse(
                    self._stream(reply, body, include_usage=include_usage),
                    media_type="text/event-stream",
                )
            return JSONResponse(self._completion(reply, body))

        return app

    async def _fault(self, fault: Fault, *, stream: bool) -> Response:
        if fault.kind == "status":
            return _error(fault.status_code, fault.message)
        if fault.kind == "timeout":
            await self._sleep(fault.seconds)
            return _error(504, "fake server: the client should have timed out")
        if stream:
            return StreamingResponse(
                iter([f"data: {_BROKEN_JSON}\n\n"]), media_type="text/event-stream"
            )
        return PlainTextResponse(_BROKEN_JSON, media_type="application/json")

    async def _sleep(self, seconds: float) -> None:
        """Sleep in small steps so a stopping server never waits on a held request."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not self._closing.is_set():
            await asyncio.sleep(min(0.02, max(0.0, deadline - time.monotonic())))

    def _completion(self, reply: Reply, body: Mapping[str, Any]) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.tool_calls:
            message["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for call in reply.tool_calls
            ]
        return {
            **self._envelope(body, "chat.completion"),
            "choices": [{"index": 0, "message": message, "finish_reason": reply.reason}],
            "usage": _usage(reply),
        }

    def _envelope(self, body: Mapping[str, Any], kind: str) -> dict[str, Any]:
        return {
            "id": f"chatcmpl-fake-{next(self._ids)}",
            "object": kind,
            "created": int(time.time()),
            "model": body.get("model", "fake-model"),
        }

    async def _stream(
        self, reply: Reply, body: Mapping[str, Any], *, include_usage: bool
    ) -> AsyncIterator[str]:
        envelope = self._envelope(body, "chat.completion.chunk")

        def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> str:
            choice = {"index": 0, "delta": delta, "finish_reason": finish_reason}
            return _sse({**envelope, "choices": [choice]})

        deltas: list[dict[str, Any]] = [
            {"content": piece} for piece in _tokens(reply.content or "")
        ]
        deltas += [
            {"tool_calls": [fragment]} for fragment in _tool_call_fragments(reply.tool_calls)
        ]
        await self._sleep(self._state.first_token_delay)
        yield chunk({"role": "assistant", "content": ""})
        for position, delta in enumerate(deltas):
            if position:
                await self._sleep(self._state.token_interval)
            yield chunk(delta)
        yield chunk({}, reply.reason)
        if include_usage:
            yield _sse({**envelope, "choices": [], "usage": _usage(reply)})
        yield "data: [DONE]\n\n"


def _tokens(text: str) -> list[str]:
    """Split text into word-sized pieces whose concatenation is the text."""
    return re.findall(r"\s*\S+\s*|\s+", text)


def _tool_call_fragments(calls: Sequence[ToolCall]) -> list[dict[str, Any]]:
    """Each call's id and name first, then its arguments in three pieces; calls interleave."""
    per_call: list[list[dict[str, Any]]] = []
    for index, call in enumerate(calls):
        head = {
            "index": index,
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        size = max(1, -(-len(call.arguments) // 3))
        pieces = [call.arguments[i : i + size] for i in range(0, len(call.arguments), size)]
        per_call.append(
            [head] + [{"index": index, "function": {"arguments": piece}} for piece in pieces]
        )
    rounds = itertools.zip_longest(*per_call)
    return [fragment for group in rounds for fragment in group if fragment is not None]


def _usage(reply: Reply) -> dict[str, int]:
    return {
        "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": reply.completion_tokens,
        "total_tokens": reply.prompt_tokens + reply.completion_tokens,
    }


def _sse(payload: Mapping[str, Any]) -> str:
    return f"data: {json.dumps(payload)}\n\n"


def _error(status_code: int, message: str) -> JSONResponse:
    error = {
        "message": message,
        "type": _ERROR_TYPES.get(status_code, "server_error"),
        "param": None,
        "code": None,
    }
    return JSONResponse({"error": error}, status_code=status_code)


EMBEDDING_DIMENSIONS = 64


def _bag_of_words(text: str) -> list[float]:
    vector = [0.0] * EMBEDDING_DIMENSIONS
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        vector[zlib.crc32(word.encode()) % EMBEDDING_DIMENSIONS] += 1.0
    return vector
