"""The model interface every engine implements: messages in, a validated pydantic instance or a
stream of typed events out. Callers ask about capabilities, never about the provider."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, Field

SchemaT = TypeVar("SchemaT", bound=BaseModel)

Role = Literal["system", "user", "assistant", "tool"]
FinishReason = Literal["stop", "length", "tool_calls"]


class ToolCall(BaseModel):
    """A complete tool call requested by the model (arguments as a JSON object string)."""

    id: str
    name: str
    arguments: str = "{}"


class Message(BaseModel):
    """One chat message in the OpenAI wire shape."""

    role: Role
    content: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_call_id: str | None = None
    name: str | None = None

    @classmethod
    def system(cls, content: str) -> Message:
        return cls(role="system", content=content)

    @classmethod
    def user(cls, content: str) -> Message:
        return cls(role="user", content=content)

    @classmethod
    def assistant(cls, content: str | None, tool_calls: Sequence[ToolCall] = ()) -> Message:
        return cls(role="assistant", content=content, tool_calls=list(tool_calls))

    @classmethod
    def tool(cls, *, tool_call_id: str, name: str, content: str) -> Message:
        return cls(role="tool", content=content, tool_call_id=tool_call_id, name=name)


class ToolSpec(BaseModel):
    """A tool the model may call: name, description and JSON-schema parameters."""

    name: str
    description: str
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class TextDelta(BaseModel):
    """A piece of streamed assistant text."""

    type: Literal["text"] = "text"
    delta: str


class ToolCallEvent(BaseModel):
    """The model asked for a tool; emitted once its streamed fragments are complete."""

    type: Literal["tool_call"] = "tool_call"
    call: ToolCall


class ToolResultEvent(BaseModel):
    """A tool's result, emitted by the agent loop (engines never emit it)."""

    type: Literal["tool_result"] = "tool_result"
    name: str
    result: Any
    call_id: str = ""  # the `ToolCall.id` it answers


class Finish(BaseModel):
    """The end of one model round."""

    type: Literal["finish"] = "finish"
    reason: FinishReason
    usage: Usage = Field(default_factory=Usage)


class ErrorEvent(BaseModel):
    type: Literal["error"] = "error"
    message: str


StreamEvent = TextDelta | ToolCallEvent | ToolResultEvent | Finish | ErrorEvent


@runtime_checkable
class Model(Protocol):
    """A model engine. `structured` returns a validated instance of `schema`; `stream_chat` yields
    `TextDelta` / `ToolCallEvent` events and ends with exactly one `Finish`.

    `inputs` is the typed request the prompt was rendered from: remote engines ignore it, the
    offline engine's agent implementations work from it instead of from prose."""

    name: str
    supports_tools: bool
    can_stream: bool

    async def structured(
        self,
        schema: type[SchemaT],
        messages: Sequence[Message],
        *,
        agent: str,
        inputs: Any = None,
    ) -> SchemaT: ...

    def stream_chat(
        self,
        messages: Sequence[Message],
        *,
        agent: str,
        tools: Sequence[ToolSpec] = (),
        inputs: Any = None,
    ) -> AsyncIterator[StreamEvent]: ...
