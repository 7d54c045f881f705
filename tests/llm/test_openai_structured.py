from __future__ import annotations

import logging

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from tests.llm.models import Verdict
from tutorgraph.errors import StructuredOutputError
from tutorgraph.llm import Message, OpenAIEngine

MESSAGES = [Message.system("You grade answers."), Message.user("Grade: 2+2=4")]
GOOD = Verdict(score=5, label="correct", feedback="Right.")


async def test_structured_asks_for_json_schema_and_validates(
    engine: OpenAIEngine, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.enqueue(GOOD)

    assert await engine.structured(Verdict, MESSAGES, agent="grader") == GOOD

    [body] = fake_openai.requests
    assert body["model"] == "fake-model"
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "Verdict", "schema": Verdict.model_json_schema(), "strict": False},
    }
    assert body["messages"] == [
        {"role": "system", "content": "You grade answers."},
        {"role": "user", "content": "Grade: 2+2=4"},
    ]
    assert body["temperature"] == 0.3
    assert body["max_tokens"] == 2048


async def test_code_fences_around_the_json_are_stripped(
    engine: OpenAIEngine, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.enqueue(f"```json\n{GOOD.model_dump_json(indent=2)}\n```")

    assert await engine.structured(Verdict, MESSAGES, agent="grader") == GOOD
    assert len(fake_openai.requests) == 1


async def test_rejected_json_schema_falls_back_to_json_object_and_is_remembered(
    engine: OpenAIEngine, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.reject_json_schema = True
    fake_openai.enqueue(GOOD, GOOD)

    assert await engine.structured(Verdict, MESSAGES, agent="grader") == GOOD
    assert await engine.structured(Verdict, MESSAGES, agent="grader") == GOOD

    formats = [body["response_format"]["type"] for body in fake_openai.requests]
    assert formats == ["json_schema", "json_object", "json_object"]
    system = fake_openai.requests[1]["messages"][0]
    assert system["role"] == "system"
    assert system["content"].startswith("You grade answers.")
    assert '"label"' in system["content"]  # the schema travels in the prompt instead


async def test_invalid_reply_gets_one_repair_attempt(
    engine: OpenAIEngine, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.enqueue({"score": 9, "label": "correct"}, GOOD)

    assert await engine.structured(Verdict, MESSAGES, agent="grader") == GOOD

    first, repair = fake_openai.requests
    assert repair["messages"][:2] == first["messages"]
    assert repair["messages"][2] == {
        "role": "assistant",
        "content": '{"score": 9, "label": "correct"}',
    }
    assert repair["messages"][3]["role"] == "user"
    assert "score: Input should be less than or equal to 5" in repair["messages"][3]["content"]
    assert repair["response_format"] == first["response_format"]


async def test_reply_still_invalid_after_repair_raises_structured_output_error(
    engine: OpenAIEngine, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.enqueue("I think the answer is correct!", '{"score": "high"}')

    with pytest.raises(StructuredOutputError, match="Verdict after one repair attempt") as info:
        await engine.structured(Verdict, MESSAGES, agent="grader")

    assert "label: Field required" in info.value.message
    assert len(fake_openai.requests) == 2


async def test_each_call_logs_agent_schema_duration_attempt_and_outcome(
    fake_openai: FakeOpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    from tutorgraph.settings import LLMSettings

    settings = LLMSettings(
        engine="openai", base_url=fake_openai.base_url, api_key="sk-very-secret", backoff_seconds=0
    )
    fake_openai.enqueue(GOOD)
    caplog.set_level(logging.INFO, logger="tutorgraph.llm")

    async with OpenAIEngine(settings) as engine:
        await engine.structured(Verdict, [Message.user("my private essay")], agent="grader")

    [record] = [r for r in caplog.records if hasattr(r, "outcome")]
    assert record.name == "tutorgraph.llm"
    assert record.__dict__["agent"] == "grader"
    assert record.__dict__["schema"] == "Verdict"
    assert record.__dict__["model"] == "gpt-4o-mini"
    assert record.__dict__["attempt"] == 1
    assert record.__dict__["outcome"] == "ok"
    assert isinstance(record.__dict__["duration_ms"], int)
    assert record.__dict__["duration_ms"] >= 0
    assert (record.__dict__["prompt_tokens"], record.__dict__["completion_tokens"]) == (12, 8)
    assert fake_openai.request_headers[0]["authorization"] == "Bearer sk-very-secret"
    everything = caplog.text + " ".join(str(r.__dict__) for r in caplog.records)
    assert "sk-very-secret" not in everything
    assert "private essay" not in everything
