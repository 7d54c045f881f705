from __future__ import annotations

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Fault, Reply
from tutorgraph.errors import ProviderUnavailable
from tutorgraph.llm import (
    Finish,
    Message,
    OpenAIEngine,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCallEvent,
    ToolSpec,
    Usage,
)
from tutorgraph.settings import LLMSettings

MESSAGES = [Message.system("You are a tutor."), Message.user("What is photosynthesis?")]
ANSWER = "Photosynthesis turns light, water and CO2 into sugar and oxygen."
SEARCH = ToolSpec(
    name="search_lesson",
    description="Search the lesson text.",
    parameters={"type": "object", "properties": {"query": {"type": "string"}}},
)
QUIZ = ToolSpec(name="make_quiz", description="Make a quiz question.")


async def collect(engine: OpenAIEngine, **kwargs: object) -> list[StreamEvent]:
    return [event async for event in engine.stream_chat(MESSAGES, agent="tutor", **kwargs)]  # type: ignore[arg-type]


async def test_streamed_text_is_reassembled_and_ends_with_finish(
    engine: OpenAIEngine, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.enqueue(ANSWER)

    events = await collect(engine)

    deltas = [e for e in events if isinstance(e, TextDelta)]
    assert len(deltas) > 5
    assert "".join(d.delta for d in deltas) == ANSWER
    assert events[-1] == Finish(reason="stop", usage=Usage(prompt_tokens=12, completion_tokens=8))
    [body] = fake_openai.requests
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert "tools" not in body


async def test_parallel_tool_calls_are_reassembled_by_index(
    engine: OpenAIEngine, fake_openai: FakeOpenAIServer
) -> None:
    calls = [
        ToolCall(id="call_a", name="search_lesson", arguments='{"query": "chlorophyll role"}'),
        ToolCall(id="call_b", name="make_quiz", arguments='{"topic": "light reactions", "n": 2}'),
    ]
    fake_openai.enqueue(calls)

    events = await collect(engine, tools=[SEARCH, QUIZ])

    assert events == [
        ToolCallEvent(call=calls[0]),
        ToolCallEvent(call=calls[1]),
        Finish(reason="tool_calls", usage=Usage(prompt_tokens=12, completion_tokens=8)),
    ]
    [body] = fake_openai.requests
    assert body["tools"] == [
        {"type": "function", "function": SEARCH.model_dump()},
        {"type": "function", "function": QUIZ.model_dump()},
    ]


async def test_text_then_tool_call_and_legacy_finish_reason(
    engine: OpenAIEngine, fake_openai: FakeOpenAIServer
) -> None:
    call = ToolCall(id="call_1", name="search_lesson", arguments='{"query": "x"}')
    fake_openai.enqueue(
        Reply(content="Let me look.", tool_calls=[call], finish_reason="function_call")
    )

    events = await collect(engine, tools=[SEARCH])

    assert [type(e).__name__ for e in events] == [
        "TextDelta",
        "TextDelta",
        "TextDelta",
        "ToolCallEvent",
        "Finish",
    ]
    assert events[-2] == ToolCallEvent(call=call)
    assert isinstance(events[-1], Finish)
    assert events[-1].reason == "tool_calls"


async def test_length_finish_reason_is_reported(
    engine: OpenAIEngine, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.enqueue(Reply(content="A long answer that was cut", finish_reason="length"))

    events = await collect(engine)

    assert isinstance(events[-1], Finish)
    assert events[-1].reason == "length"


async def test_failure_before_the_first_token_is_retried(
    engine: OpenAIEngine, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.enqueue(Fault.status(500), Fault.status(429), ANSWER)

    events = await collect(engine)

    assert "".join(e.delta for e in events if isinstance(e, TextDelta)) == ANSWER
    assert len(fake_openai.requests) == 3


async def test_failure_after_the_first_token_is_not_retried(
    fake_openai: FakeOpenAIServer, llm_settings: LLMSettings
) -> None:
    settings = llm_settings.model_copy(update={"timeout_seconds": 0.3})
    fake_openai.configure(token_interval=1.0)
    fake_openai.enqueue(ANSWER, ANSWER)
    received: list[StreamEvent] = []

    async with OpenAIEngine(settings) as engine:
        with pytest.raises(ProviderUnavailable, match="1 attempt"):
            async for event in engine.stream_chat(MESSAGES, agent="tutor"):
                received.append(event)

    assert received == [TextDelta(delta="Photosynthesis ")]
    assert len(fake_openai.requests) == 1


async def test_slow_first_token_within_the_timeout_still_streams(
    engine: OpenAIEngine, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.configure(first_token_delay=0.1, token_interval=0.01)
    fake_openai.enqueue("Slow but steady.")

    events = await collect(engine)

    assert "".join(e.delta for e in events if isinstance(e, TextDelta)) == "Slow but steady."


async def test_malformed_chunk_becomes_provider_unavailable(
    engine: OpenAIEngine, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.enqueue(Fault.malformed_json())

    with pytest.raises(ProviderUnavailable, match="malformed response"):
        await collect(engine)
    assert len(fake_openai.requests) == 1


async def test_assistant_tool_calls_and_tool_results_go_out_in_wire_shape(
    engine: OpenAIEngine, fake_openai: FakeOpenAIServer
) -> None:
    call = ToolCall(id="call_a", name="search_lesson", arguments='{"query": "x"}')
    history = [
        *MESSAGES,
        Message.assistant(None, [call]),
        Message.tool(tool_call_id="call_a", name="search_lesson", content="Chlorophyll absorbs."),
    ]
    fake_openai.enqueue("Chlorophyll absorbs light.")

    [event async for event in engine.stream_chat(history, agent="tutor", tools=[SEARCH])]

    sent = fake_openai.requests[0]["messages"]
    assert sent[2] == {
        "role": "assistant",
        "content": "",  # not null: llama.cpp's server refuses a null content
        "tool_calls": [
            {
                "id": "call_a",
                "type": "function",
                "function": {"name": "search_lesson", "arguments": '{"query": "x"}'},
            }
        ],
    }
    assert sent[3] == {"role": "tool", "content": "Chlorophyll absorbs.", "tool_call_id": "call_a"}
