"""The tutor's SSE protocol: frames `data: {json}\\n\\n` whose JSON has a `type` of text,
tool_call, tool_result or error, and one closing `done` frame. A tool_result carries the `id` of
the tool_call it answers (one tool may be called several times in a round)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any, assert_never

from fastapi.responses import StreamingResponse

from tutorgraph.llm import ErrorEvent, TextDelta, ToolCallEvent, ToolResultEvent
from tutorgraph.tutor.agent_loop import AgentEvent

SESSION_HEADER = "X-Session-Id"


def frame(payload: dict[str, Any]) -> str:
    return f"data: {json.dumps(payload, ensure_ascii=False, default=str)}\n\n"


def payload(event: AgentEvent) -> dict[str, Any]:
    if isinstance(event, TextDelta):
        return {"type": "text", "delta": event.delta}
    if isinstance(event, ToolCallEvent):
        call = event.call
        return {
            "type": "tool_call",
            "id": call.id,
            "name": call.name,
            "arguments": _arguments(event),
        }
    if isinstance(event, ToolResultEvent):
        return {
            "type": "tool_result",
            "id": event.call_id,
            "name": event.name,
            "result": event.result,
        }
    if isinstance(event, ErrorEvent):
        return {"type": "error", "message": event.message}
    assert_never(event)


def _arguments(event: ToolCallEvent) -> dict[str, Any]:
    try:
        value = json.loads(event.call.arguments or "{}")
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


async def sse_frames(events: AsyncIterator[AgentEvent]) -> AsyncIterator[str]:
    async for event in events:
        yield frame(payload(event))
    yield frame({"type": "done"})


def sse_response(events: AsyncIterator[AgentEvent], *, session_id: str) -> StreamingResponse:
    return StreamingResponse(
        sse_frames(events),
        media_type="text/event-stream",
        headers={
            SESSION_HEADER: session_id,
            "Cache-Control": "no-cache",
            "X-Accel-Buffering": "no",
        },
    )
