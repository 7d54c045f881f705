from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

import pytest
from pydantic import BaseModel

from tests.llm.models import Verdict
from tutorgraph.errors import OfflineUnsupported, StructuredOutputError
from tutorgraph.llm import (
    Finish,
    Message,
    Model,
    OfflineEngine,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCallEvent,
    ToolSpec,
    offline_registry,
)

MESSAGES = [Message.user("Grade: 2+2=4")]


async def test_dispatches_structured_calls_by_agent_to_sync_and_async_handlers() -> None:
    engine = OfflineEngine()
    seen: list[Any] = []

    def grader(schema: type[BaseModel], messages: Sequence[Message], inputs: Any) -> Verdict:
        seen.append((schema, list(messages), inputs))
        return Verdict(score=4, label="correct")

    async def coach(schema: type[BaseModel], messages: Sequence[Message], inputs: Any) -> Verdict:
        return Verdict(score=1, label="wrong", feedback=str(inputs["answer"]))

    engine.register_structured("grader", grader)
    engine.register_structured("coach", coach)

    graded = await engine.structured(Verdict, MESSAGES, agent="grader", inputs={"answer": "4"})
    coached = await engine.structured(Verdict, MESSAGES, agent="coach", inputs={"answer": "5"})

    assert graded == Verdict(score=4, label="correct")
    assert coached.feedback == "5"
    assert seen == [(Verdict, MESSAGES, {"answer": "4"})]


async def test_handler_returning_a_dict_is_validated_against_the_schema() -> None:
    engine = OfflineEngine()
    engine.register_structured("grader", lambda schema, messages, inputs: {"score": 2})  # type: ignore[arg-type, return-value]

    with pytest.raises(StructuredOutputError, match=r"'grader'.*Verdict"):
        await engine.structured(Verdict, MESSAGES, agent="grader")


async def test_unknown_agent_is_refused_by_name() -> None:
    engine = OfflineEngine()

    with pytest.raises(OfflineUnsupported, match="'interviewer'"):
        await engine.structured(Verdict, MESSAGES, agent="interviewer")
    with pytest.raises(OfflineUnsupported, match="chat implementation for agent 'tutor'"):
        engine.stream_chat(MESSAGES, agent="tutor")


async def test_chat_handler_events_end_with_exactly_one_finish() -> None:
    engine = OfflineEngine()

    async def tutor(
        messages: Sequence[Message], tools: Sequence[ToolSpec], inputs: Any
    ) -> AsyncIterator[StreamEvent]:
        yield TextDelta(delta="Let me search. ")
        yield ToolCallEvent(call=ToolCall(id="c1", name=tools[0].name))

    engine.register_chat("tutor", tutor)
    tools = [ToolSpec(name="search_lesson", description="Search.")]

    events = [e async for e in engine.stream_chat(MESSAGES, agent="tutor", tools=tools)]

    assert events == [
        TextDelta(delta="Let me search. "),
        ToolCallEvent(call=ToolCall(id="c1", name="search_lesson")),
        Finish(reason="tool_calls"),
    ]


def test_private_registries_do_not_leak_into_the_default_one() -> None:
    private = OfflineEngine()
    private.register_structured("test-only-agent", lambda s, m, i: Verdict(score=0, label="wrong"))

    assert private.supports("test-only-agent")
    assert not offline_registry.supports("test-only-agent")
    assert offline_registry.name == "offline"
    assert isinstance(private, Model)
