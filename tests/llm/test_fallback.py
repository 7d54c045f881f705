from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import aclosing
from typing import Any

import openai
import pytest
from pydantic import BaseModel

from tests.fakes.openai_server import FakeOpenAIServer, Fault
from tests.llm.models import Verdict
from tutorgraph.errors import ConfigurationError, ProviderUnavailable
from tutorgraph.llm import (
    ErrorEvent,
    FallbackModel,
    Finish,
    Message,
    OfflineEngine,
    OpenAIEngine,
    ScriptedEngine,
    StreamEvent,
    TextDelta,
    ToolSpec,
)

MESSAGES = [Message.user("Grade: 2+2=4")]
OFFLINE_VERDICT = Verdict(score=3, label="partial", feedback="offline grader")


def offline_grader(schema: type[BaseModel], messages: Sequence[Message], inputs: Any) -> Verdict:
    return OFFLINE_VERDICT


async def offline_tutor(
    messages: Sequence[Message], tools: Sequence[ToolSpec], inputs: Any
) -> AsyncIterator[StreamEvent]:
    yield TextDelta(delta="(offline) Let's look at the lesson together.")


@pytest.fixture
def offline() -> OfflineEngine:
    engine = OfflineEngine()
    engine.register_structured("grader", offline_grader)
    engine.register_chat("tutor", offline_tutor)
    return engine


async def test_structured_falls_back_to_offline_when_the_server_is_unavailable(
    engine: OpenAIEngine,
    fake_openai: FakeOpenAIServer,
    offline: OfflineEngine,
    caplog: pytest.LogCaptureFixture,
) -> None:
    fake_openai.enqueue(Fault.status(500), Fault.status(500), Fault.status(500))
    model = FallbackModel(engine, offline)

    assert await model.structured(Verdict, MESSAGES, agent="grader") == OFFLINE_VERDICT

    assert len(fake_openai.requests) == 3
    [warning] = [r for r in caplog.records if "falling back" in r.getMessage()]
    assert warning.levelno == logging.WARNING
    assert warning.__dict__["agent"] == "grader"
    assert warning.__dict__["error"] == "ProviderUnavailable"


async def test_without_an_offline_handler_the_original_error_is_raised(
    engine: OpenAIEngine, fake_openai: FakeOpenAIServer, offline: OfflineEngine
) -> None:
    fake_openai.enqueue(Fault.status(503), Fault.status(503), Fault.status(503))
    model = FallbackModel(engine, offline)

    with pytest.raises(ProviderUnavailable) as info:
        await model.structured(Verdict, MESSAGES, agent="interviewer")

    assert isinstance(info.value.__cause__, openai.InternalServerError)


async def test_rejected_key_also_falls_back(
    engine: OpenAIEngine, fake_openai: FakeOpenAIServer, offline: OfflineEngine
) -> None:
    fake_openai.enqueue(Fault.status(401))

    assert await FallbackModel(engine, offline).structured(Verdict, MESSAGES, agent="grader") == (
        OFFLINE_VERDICT
    )


async def test_configuration_errors_are_not_hidden_by_the_fallback(offline: OfflineEngine) -> None:
    primary = ScriptedEngine()
    primary.enqueue_structured(ConfigurationError("llm.model: set TUTORGRAPH_LLM_MODEL"))

    with pytest.raises(ConfigurationError):
        await FallbackModel(primary, offline).structured(Verdict, MESSAGES, agent="grader")


async def test_stream_falls_back_when_the_primary_fails_before_any_event(
    engine: OpenAIEngine, fake_openai: FakeOpenAIServer, offline: OfflineEngine
) -> None:
    fake_openai.enqueue(Fault.status(429), Fault.status(429), Fault.status(429))
    model = FallbackModel(engine, offline)

    events = [e async for e in model.stream_chat(MESSAGES, agent="tutor")]

    assert events == [
        TextDelta(delta="(offline) Let's look at the lesson together."),
        Finish(reason="stop"),
    ]


async def test_stream_without_offline_handler_reraises_the_original_error(
    engine: OpenAIEngine, fake_openai: FakeOpenAIServer, offline: OfflineEngine
) -> None:
    fake_openai.enqueue(Fault.status(500), Fault.status(500), Fault.status(500))
    model = FallbackModel(engine, offline)

    with pytest.raises(ProviderUnavailable, match="after 3 attempt"):
        [e async for e in model.stream_chat(MESSAGES, agent="interviewer")]


async def test_stream_failing_mid_answer_ends_with_an_error_event(offline: OfflineEngine) -> None:
    primary = ScriptedEngine()
    primary.enqueue_chat(["Photosynthesis is ", ProviderUnavailable("the server went away")])

    events = [e async for e in FallbackModel(primary, offline).stream_chat(MESSAGES, agent="tutor")]

    assert events == [
        TextDelta(delta="Photosynthesis is "),
        ErrorEvent(message="the server went away"),
        Finish(reason="stop"),
    ]


async def test_reader_stopping_early_releases_the_stream(
    engine: OpenAIEngine, fake_openai: FakeOpenAIServer, offline: OfflineEngine
) -> None:
    fake_openai.enqueue("One two three four five.", "Again.")
    model = FallbackModel(engine, offline)

    async with aclosing(model.stream_chat(MESSAGES, agent="tutor")) as events:  # type: ignore[type-var]
        async for event in events:
            assert event == TextDelta(delta="One ")
            break
    again = [e async for e in model.stream_chat(MESSAGES, agent="tutor")]

    assert again[0] == TextDelta(delta="Again.")
    assert len(fake_openai.requests) == 2
