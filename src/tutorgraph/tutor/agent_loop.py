"""The agent loop: up to MAX_STEPS model rounds per turn. Each round ends in `stop` (done),
`length` (a truncation notice is appended) or `tool_calls` (each tool runs, its result goes back
as a `tool` message, and the model is called again)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any, Protocol, TypeAlias

from tutorgraph.errors import ProviderError
from tutorgraph.llm import (
    ErrorEvent,
    Finish,
    FinishReason,
    Message,
    Model,
    TextDelta,
    ToolCall,
    ToolCallEvent,
    ToolResultEvent,
    ToolSpec,
)
from tutorgraph.tutor.prompts import STEP_LIMIT_NOTICE, TRUNCATION_NOTICE
from tutorgraph.tutor.tool_handlers import result_json

MAX_STEPS = 5

AgentEvent: TypeAlias = TextDelta | ToolCallEvent | ToolResultEvent | ErrorEvent


class ToolRunner(Protocol):
    async def execute(self, call: ToolCall) -> dict[str, Any]: ...


async def run_agent(
    *,
    model: Model,
    messages: Sequence[Message],
    tools: Sequence[ToolSpec],
    executor: ToolRunner,
    agent: str,
    inputs: Any = None,
    max_steps: int = MAX_STEPS,
) -> AsyncIterator[AgentEvent]:
    """Yield the turn's text deltas, tool calls, tool results and (on failure) one error."""
    conversation = list(messages)
    for step in range(max_steps):
        text: list[str] = []
        calls: list[ToolCall] = []
        reason: FinishReason = "stop"
        try:
            stream = model.stream_chat(conversation, agent=agent, tools=tools, inputs=inputs)
            try:
                async for event in stream:
                    if isinstance(event, TextDelta):
                        text.append(event.delta)
                        yield event
                    elif isinstance(event, ToolCallEvent):
                        calls.append(event.call)
                        yield event
                    elif isinstance(event, Finish):
                        reason = event.reason
                    elif isinstance(event, ErrorEvent):
                        yield event
                        return
            finally:
                await _close(stream)
        except ProviderError as exc:
            yield ErrorEvent(message=exc.message)
            return
        if reason == "length":
            yield TextDelta(delta=TRUNCATION_NOTICE)
            return
        if not calls:
            return
        if step == max_steps - 1:
            yield TextDelta(delta=STEP_LIMIT_NOTICE.format(steps=max_steps))
            return
        conversation.append(Message.assistant("".join(text) or None, calls))
        for call in calls:
            result = await executor.execute(call)
            yield ToolResultEvent(name=call.name, result=result, call_id=call.id)
            conversation.append(
                Message.tool(tool_call_id=call.id, name=call.name, content=result_json(result))
            )


async def _close(stream: object) -> None:
    """Release the model's HTTP response at once, even when the turn stops early."""
    aclose = getattr(stream, "aclose", None)
    if aclose is not None:
        await aclose()
