"""A wrapper that answers from a second engine (usually offline) when the first one fails."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any

from tutorgraph.errors import OfflineUnsupported, ProviderError
from tutorgraph.llm._aclosing import closing_stream
from tutorgraph.llm.types import ErrorEvent, Finish, Message, Model, SchemaT, StreamEvent, ToolSpec

log = logging.getLogger("tutorgraph.llm")


class FallbackModel:
    """Calls `primary`; on a provider error calls `fallback` with the same arguments. When the
    fallback has no implementation for the agent, the primary's error is raised instead."""

    def __init__(self, primary: Model, fallback: Model) -> None:
        self.primary = primary
        self.fallback = fallback
        self.name = f"{primary.name}+{fallback.name}"
        self.supports_tools = primary.supports_tools
        self.can_stream = primary.can_stream

    async def structured(
        self,
        schema: type[SchemaT],
        messages: Sequence[Message],
        *,
        agent: str,
        inputs: Any = None,
    ) -> SchemaT:
        try:
            return await self.primary.structured(schema, messages, agent=agent, inputs=inputs)
        except ProviderError as exc:
            primary_error = exc
        self._warn(agent, primary_error)
        try:
            return await self.fallback.structured(schema, messages, agent=agent, inputs=inputs)
        except OfflineUnsupported:
            raise primary_error from primary_error.__cause__

    async def stream_chat(
        self,
        messages: Sequence[Message],
        *,
        agent: str,
        tools: Sequence[ToolSpec] = (),
        inputs: Any = None,
    ) -> AsyncIterator[StreamEvent]:
        started = False
        try:
            primary = self.primary.stream_chat(messages, agent=agent, tools=tools, inputs=inputs)
            async with closing_stream(primary) as events:
                async for event in events:
                    started = True
                    yield event
            return
        except ProviderError as exc:
            if started:
                # Half an answer is on screen already: say it broke rather than start over.
                log.warning(
                    "model %s failed mid-stream for agent=%s (%s)",
                    self.primary.name,
                    agent,
                    type(exc).__name__,
                    extra={"agent": agent, "error": type(exc).__name__},
                )
                yield ErrorEvent(message=exc.message)
                yield Finish(reason="stop")
                return
            primary_error = exc
        self._warn(agent, primary_error)
        try:
            events = self.fallback.stream_chat(messages, agent=agent, tools=tools, inputs=inputs)
            first = await anext(events)
        except OfflineUnsupported:
            raise primary_error from primary_error.__cause__
        except StopAsyncIteration:
            return
        async with closing_stream(events):
            yield first
            async for event in events:
                yield event

    def _warn(self, agent: str, error: ProviderError) -> None:
        log.warning(
            "model %s failed for agent=%s (%s); falling back to %s",
            self.primary.name,
            agent,
            type(error).__name__,
            self.fallback.name,
            extra={"agent": agent, "error": type(error).__name__},
        )

    async def aclose(self) -> None:
        await aclose_model(self.primary)
        await aclose_model(self.fallback)


async def aclose_model(model: object) -> None:
    """Release a model's resources (HTTP clients) if it holds any."""
    aclose = getattr(model, "aclose", None)
    if aclose is not None:
        await aclose()
