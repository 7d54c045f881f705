"""Our messages and tool specs in the OpenAI chat-completions wire shape."""

from __future__ import annotations

from collections.abc import Sequence

from openai.types.chat import (
    ChatCompletionAssistantMessageParam,
    ChatCompletionFunctionToolParam,
    ChatCompletionMessageFunctionToolCallParam,
    ChatCompletionMessageParam,
    ChatCompletionSystemMessageParam,
    ChatCompletionToolMessageParam,
    ChatCompletionUserMessageParam,
)

from tutorgraph.llm.types import Message, ToolSpec


def to_wire_messages(messages: Sequence[Message]) -> list[ChatCompletionMessageParam]:
    return [to_wire_message(message) for message in messages]


def to_wire_message(message: Message) -> ChatCompletionMessageParam:
    content = message.content or ""
    if message.role == "system":
        return ChatCompletionSystemMessageParam(role="system", content=content)
    if message.role == "user":
        return ChatCompletionUserMessageParam(role="user", content=content)
    if message.role == "tool":
        return ChatCompletionToolMessageParam(
            role="tool", content=content, tool_call_id=message.tool_call_id or ""
        )
    # "" rather than null beside tool calls: some servers (llama.cpp's) refuse a null content.
    assistant = ChatCompletionAssistantMessageParam(role="assistant", content=message.content or "")
    if message.tool_calls:
        assistant["tool_calls"] = [
            ChatCompletionMessageFunctionToolCallParam(
                id=call.id,
                type="function",
                function={"name": call.name, "arguments": call.arguments},
            )
            for call in message.tool_calls
        ]
    return assistant


def to_wire_tools(tools: Sequence[ToolSpec]) -> list[ChatCompletionFunctionToolParam]:
    return [
        ChatCompletionFunctionToolParam(
            type="function",
            function={
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
            },
        )
        for tool in tools
    ]
