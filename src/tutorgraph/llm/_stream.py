"""Turns streamed chat-completion chunks into typed events, joining tool-call fragments by index."""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field

from openai.types.chat import ChatCompletionChunk

from tutorgraph.llm.types import (
    Finish,
    FinishReason,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCallEvent,
    Usage,
)

log = logging.getLogger("tutorgraph.llm")

_REASONS: dict[str, FinishReason] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "content_filter": "stop",
}


@dataclass
class _PartialCall:
    id: str | None = None
    name: str | None = None
    arguments: list[str] = field(default_factory=list)


@dataclass
class ChunkAssembler:
    """Feed it every chunk, then call `finish()` once the stream ends."""

    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None
    calls_emitted: int = 0
    _calls: dict[int, _PartialCall] = field(default_factory=dict)

    def feed(self, chunk: ChatCompletionChunk) -> list[StreamEvent]:
        if chunk.usage is not None:
            self.usage = Usage(
                prompt_tokens=chunk.usage.prompt_tokens,
                completion_tokens=chunk.usage.completion_tokens,
            )
        events: list[StreamEvent] = []
        for choice in chunk.choices:
            if choice.index != 0:
                continue
            delta = choice.delta
            if delta.content:
                events.append(TextDelta(delta=delta.content))
            for fragment in delta.tool_calls or ():
                function = fragment.function
                self._add(
                    fragment.index,
                    fragment.id,
                    function.name if function else None,
                    function.arguments if function else None,
                )
            if delta.function_call is not None:  # the legacy single-function shape
                self._add(0, None, delta.function_call.name, delta.function_call.arguments)
            if choice.finish_reason is not None:
                self.finish_reason = choice.finish_reason
                events.extend(self._complete_calls())
        return events

    def finish(self) -> list[StreamEvent]:
        """Any calls a server never closed with a finish_reason, then the one `Finish`."""
        events = self._complete_calls()
        reason = _REASONS.get(self.finish_reason or "stop", "stop")
        if reason == "stop" and self.calls_emitted:
            reason = "tool_calls"  # some local servers say "stop" after streaming tool calls
        return [*events, Finish(reason=reason, usage=self.usage)]

    def _add(self, index: int, call_id: str | None, name: str | None, args: str | None) -> None:
        partial = self._calls.setdefault(index, _PartialCall())
        if call_id and not partial.id:
            partial.id = call_id
        if name and not partial.name:
            partial.name = name
        if args:
            partial.arguments.append(args)

    def _complete_calls(self) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        for index in sorted(self._calls):
            partial = self._calls[index]
            if not partial.name:
                log.warning("dropping a streamed tool call without a name (index %d)", index)
                continue
            call = ToolCall(
                id=partial.id or f"call_{uuid.uuid4().hex[:24]}",
                name=partial.name,
                arguments="".join(partial.arguments) or "{}",
            )
            events.append(ToolCallEvent(call=call))
        self.calls_emitted += len(events)
        self._calls.clear()
        return events
