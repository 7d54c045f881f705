from __future__ import annotations

import pytest

from tests.llm.models import Verdict
from tutorgraph.errors import ProviderUnavailable
from tutorgraph.llm import (
    Finish,
    Message,
    Model,
    ScriptedEngine,
    ScriptedQueueEmpty,
    TextDelta,
    ToolCall,
    ToolCallEvent,
    ToolSpec,
)

MESSAGES = [Message.user("Explain osmosis")]
TOOLS = [ToolSpec(name="search_lesson", description="Search.")]


async def test_structured_replies_come_back_in_order_and_requests_are_recorded() -> None:
    engine = ScriptedEngine()
    engine.enqueue_structured(Verdict(score=5, label="correct"), {"score": 1, "label": "wrong"})

    first = await engine.structured(Verdict, MESSAGES, agent="grader", inputs={"q": 1})
    second = await engine.structured(Verdict, MESSAGES, agent="grader")

    assert (first.score, second.score) == (5, 1)
    assert [(r.agent, r.schema, r.messages, r.inputs) for r in engine.requests] == [
        ("grader", "Verdict", MESSAGES, {"q": 1}),
        ("grader", "Verdict", MESSAGES, None),
    ]
    assert engine.pending == 0


async def test_enqueued_exception_is_raised() -> None:
    engine = ScriptedEngine()
    engine.enqueue_structured(ProviderUnavailable("down"))

    with pytest.raises(ProviderUnavailable, match="down"):
        await engine.structured(Verdict, MESSAGES, agent="grader")


async def test_chat_text_and_events_are_streamed_with_a_finish() -> None:
    engine = ScriptedEngine()
    call = ToolCall(id="c1", name="search_lesson", arguments='{"query": "osmosis"}')
    engine.enqueue_chat(
        "Osmosis is diffusion of water.", ["Let me check. ", ToolCallEvent(call=call)]
    )

    first = [e async for e in engine.stream_chat(MESSAGES, agent="tutor")]
    second = [e async for e in engine.stream_chat(MESSAGES, agent="tutor", tools=TOOLS)]

    assert first == [TextDelta(delta="Osmosis is diffusion of water."), Finish(reason="stop")]
    assert second == [
        TextDelta(delta="Let me check. "),
        ToolCallEvent(call=call),
        Finish(reason="tool_calls"),
    ]
    assert [(r.agent, r.schema, r.tools) for r in engine.requests] == [
        ("tutor", None, []),
        ("tutor", None, TOOLS),
    ]


async def test_empty_queue_fails_with_a_clear_assertion() -> None:
    engine = ScriptedEngine()

    with pytest.raises(AssertionError, match="no structured reply enqueued for agent 'grader'"):
        await engine.structured(Verdict, MESSAGES, agent="grader")
    with pytest.raises(ScriptedQueueEmpty, match="enqueue_chat"):
        engine.stream_chat(MESSAGES, agent="tutor")
    assert len(engine.requests) == 2


def test_scripted_engine_is_a_model() -> None:
    assert isinstance(ScriptedEngine(), Model)
