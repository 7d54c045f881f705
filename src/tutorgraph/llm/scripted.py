"""The scripted engine for tests: replies are queued by the test and every request is recorded."""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from pydantic import BaseModel

from tutorgraph.llm.offline import ensure_finish
from tutorgraph.llm.types import Message, SchemaT, StreamEvent, TextDelta, ToolSpec

StructuredReply: TypeAlias = BaseModel | Mapping[str, Any] | BaseException
ChatItem: TypeAlias = StreamEvent | str | BaseException
ChatReply: TypeAlias = str | Sequence[ChatItem] | BaseException


class ScriptedQueueEmpty(AssertionError):
    """A call reached the scripted engine with nothing enqueued for it."""


@dataclass(frozen=True)
class ScriptedRequest:
    """One call the engine received."""

    agent: str
    schema: str | None
    messages: list[Message]
    tools: list[ToolSpec]
    inputs: Any = None


class ScriptedEngine:
    """Answers `structured` and `stream_chat` from queues that the test fills in order."""

    name = "scripted"
    supports_tools = True
    can_stream = True

    def __init__(self) -> None:
        self._structured: deque[StructuredReply] = deque()
        self._chat: deque[ChatReply] = deque()
        self.requests: list[ScriptedRequest] = []

    def enqueue_structured(self, *replies: StructuredReply) -> None:
        """Queue instances (or dicts) to return, or exceptions to raise, one per call."""
        self._structured.extend(replies)

    def enqueue_chat(self, *replies: ChatReply) -> None:
        """Queue one stream per call: text, a list of events / text / exceptions, or an exception.
        An exception inside a list is raised at that point of the stream."""
        self._chat.extend(replies)

    @property
    def pending(self) -> int:
        return len(self._structured) + len(self._chat)

    async def structured(
        self,
        schema: type[SchemaT],
        messages: Sequence[Message],
        *,
        agent: str,
        inputs: Any = None,
    ) -> SchemaT:
        self.requests.append(ScriptedRequest(agent, schema.__name__, list(messages), [], inputs))
        if not self._structured:
            raise ScriptedQueueEmpty(
                f"ScriptedEngine: no structured reply enqueued for agent {agent!r} "
                f"(schema {schema.__name__}); call enqueue_structured() first"
            )
        reply = self._structured.popleft()
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, schema):
            return reply
        data = reply.model_dump() if isinstance(reply, BaseModel) else reply
        return schema.model_validate(data)

    def stream_chat(
        self,
        messages: Sequence[Message],
        *,
        agent: str,
        tools: Sequence[ToolSpec] = (),
        inputs: Any = None,
    ) -> AsyncIterator[StreamEvent]:
        self.requests.append(ScriptedRequest(agent, None, list(messages), list(tools), inputs))
        if not self._chat:
            raise ScriptedQueueEmpty(
                f"ScriptedEngine: no chat reply enqueued for agent {agent!r}; "
                "call enqueue_chat() first"
            )
        reply = self._chat.popleft()
        if isinstance(reply, BaseException):
            raise reply
        items: Sequence[ChatItem] = [reply] if isinstance(reply, str) else reply
        return ensure_finish(_play(items))

    async def aclose(self) -> None:
        """Nothing to release."""


async def _play(items: Sequence[ChatItem]) -> AsyncIterator[StreamEvent]:
    for item in items:
        if isinstance(item, BaseException):
            raise item
        yield TextDelta(delta=item) if isinstance(item, str) else item
