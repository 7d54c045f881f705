"""The offline engine: a registry of per-agent implementations that need no model server."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, TypeAlias

from pydantic import BaseModel, ValidationError

from tutorgraph.errors import OfflineUnsupported, StructuredOutputError
from tutorgraph.llm._aclosing import closing_stream
from tutorgraph.llm.types import Finish, Message, SchemaT, StreamEvent, ToolCallEvent, ToolSpec
from tutorgraph.offload import run_cpu_bound

StructuredHandler: TypeAlias = Callable[
    [type[BaseModel], Sequence[Message], Any], BaseModel | Awaitable[BaseModel]
]
ChatHandler: TypeAlias = Callable[
    [Sequence[Message], Sequence[ToolSpec], Any], AsyncIterator[StreamEvent]
]


class OfflineEngine:
    """Dispatches each call by agent name to a registered handler; unknown agents are refused."""

    name = "offline"
    supports_tools = True
    can_stream = True

    def __init__(self) -> None:
        self._structured: dict[str, StructuredHandler] = {}
        self._chat: dict[str, ChatHandler] = {}

    def register_structured(self, agent: str, handler: StructuredHandler) -> StructuredHandler:
        """Answer `structured(..., agent=agent)` with `handler(schema, messages, inputs)`."""
        self._structured[agent] = handler
        return handler

    def register_chat(self, agent: str, handler: ChatHandler) -> ChatHandler:
        """Answer `stream_chat(..., agent=agent)` with the events `handler` yields."""
        self._chat[agent] = handler
        return handler

    def supports(self, agent: str) -> bool:
        return agent in self._structured or agent in self._chat

    async def structured(
        self,
        schema: type[SchemaT],
        messages: Sequence[Message],
        *,
        agent: str,
        inputs: Any = None,
    ) -> SchemaT:
        handler = self._structured.get(agent)
        if handler is None:
            raise OfflineUnsupported(
                f"the offline engine has no structured implementation for agent {agent!r}"
            )
        if inspect.iscoroutinefunction(handler):
            result = await handler(schema, messages, inputs)
        else:  # deterministic CPU work (grading, planning): off the event loop
            result = await run_cpu_bound(handler, schema, messages, inputs)
            if inspect.isawaitable(result):
                result = await result
        return _as_schema(schema, result, agent=agent)

    def stream_chat(
        self,
        messages: Sequence[Message],
        *,
        agent: str,
        tools: Sequence[ToolSpec] = (),
        inputs: Any = None,
    ) -> AsyncIterator[StreamEvent]:
        handler = self._chat.get(agent)
        if handler is None:
            raise OfflineUnsupported(
                f"the offline engine has no chat implementation for agent {agent!r}"
            )
        return ensure_finish(handler(messages, tools, inputs))

    async def aclose(self) -> None:
        """Nothing to release; present so every engine closes the same way."""


async def ensure_finish(events: AsyncIterator[StreamEvent]) -> AsyncIterator[StreamEvent]:
    """Pass events through, ending with exactly one `Finish` even if the handler forgot it."""
    called_tools = False
    async with closing_stream(events):
        async for event in events:
            if isinstance(event, Finish):
                yield event
                return
            called_tools = called_tools or isinstance(event, ToolCallEvent)
            yield event
    yield Finish(reason="tool_calls" if called_tools else "stop")


def _as_schema(schema: type[SchemaT], result: object, *, agent: str) -> SchemaT:
    if isinstance(result, schema):
        return result
    try:
        data = result.model_dump() if isinstance(result, BaseModel) else result
        return schema.model_validate(data)
    except ValidationError as exc:
        raise StructuredOutputError(
            f"the offline implementation of agent {agent!r} returned {type(result).__name__}, "
            f"not a valid {schema.__name__}"
        ) from exc


offline_registry = OfflineEngine()
"""The default registry that agents register their offline implementations in."""
