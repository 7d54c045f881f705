from __future__ import annotations

import json
import logging
import socket

import openai
import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Fault
from tests.llm.models import Verdict
from tutorgraph.errors import ConfigurationError, ProviderConfigError, ProviderUnavailable
from tutorgraph.llm import Message, OpenAIEngine
from tutorgraph.llm._retry import RetryPolicy
from tutorgraph.settings import LLMSettings

MESSAGES = [Message.user("Grade: 2+2=4")]
GOOD = Verdict(score=5, label="correct")


def outcomes(caplog: pytest.LogCaptureFixture) -> list[tuple[str, int]]:
    return [
        (r.__dict__["outcome"], r.__dict__["attempt"])
        for r in caplog.records
        if hasattr(r, "outcome")
    ]


async def test_rate_limit_then_server_error_then_success(
    engine: OpenAIEngine, fake_openai: FakeOpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="tutorgraph.llm")
    fake_openai.enqueue(Fault.status(429), Fault.status(500), GOOD)

    assert await engine.structured(Verdict, MESSAGES, agent="grader") == GOOD

    assert len(fake_openai.requests) == 3
    assert outcomes(caplog) == [("retry", 1), ("retry", 2), ("ok", 3)]


async def test_server_errors_that_outlive_the_retries_raise_provider_unavailable(
    engine: OpenAIEngine, fake_openai: FakeOpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="tutorgraph.llm")
    fake_openai.enqueue(Fault.status(500), Fault.status(502), Fault.status(503), GOOD)

    with pytest.raises(ProviderUnavailable, match="after 3 attempt") as info:
        await engine.structured(Verdict, MESSAGES, agent="grader")

    assert isinstance(info.value.__cause__, openai.InternalServerError)
    assert len(fake_openai.requests) == 3
    assert fake_openai.pending == 1
    assert outcomes(caplog) == [("retry", 1), ("retry", 2), ("error", 3)]


@pytest.mark.parametrize("status", [401, 403])
async def test_rejected_key_fails_at_once_naming_the_setting(
    engine: OpenAIEngine,
    fake_openai: FakeOpenAIServer,
    caplog: pytest.LogCaptureFixture,
    status: int,
) -> None:
    caplog.set_level(logging.INFO, logger="tutorgraph.llm")
    fake_openai.enqueue(Fault.status(status), GOOD)

    with pytest.raises(ProviderConfigError, match="TUTORGRAPH_LLM_API_KEY"):
        await engine.structured(Verdict, MESSAGES, agent="grader")

    assert len(fake_openai.requests) == 1
    assert outcomes(caplog) == [("error", 1)]


async def test_unknown_model_names_the_model_setting(
    engine: OpenAIEngine, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.enqueue(Fault.status(404, "The model `fake-model` does not exist"))

    with pytest.raises(ProviderConfigError, match="TUTORGRAPH_LLM_MODEL") as info:
        await engine.structured(Verdict, MESSAGES, agent="grader")

    assert "'fake-model'" in info.value.message
    assert len(fake_openai.requests) == 1


async def test_other_bad_request_fails_at_once_and_keeps_json_schema(
    engine: OpenAIEngine, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.enqueue(Fault.status(400, "max_tokens is too large"), GOOD)

    with pytest.raises(ProviderConfigError, match=r"HTTP 400.*max_tokens is too large"):
        await engine.structured(Verdict, MESSAGES, agent="grader")
    assert await engine.structured(Verdict, MESSAGES, agent="grader") == GOOD

    assert [b["response_format"]["type"] for b in fake_openai.requests] == ["json_schema"] * 2


async def test_timeout_is_retried(fake_openai: FakeOpenAIServer, llm_settings: LLMSettings) -> None:
    settings = llm_settings.model_copy(update={"timeout_seconds": 0.3})
    fake_openai.enqueue(Fault.timeout(1.0), GOOD)

    async with OpenAIEngine(settings) as engine:
        assert await engine.structured(Verdict, MESSAGES, agent="grader") == GOOD

    assert len(fake_openai.requests) == 2


async def test_timeouts_that_outlive_the_retries_raise_provider_unavailable(
    fake_openai: FakeOpenAIServer, llm_settings: LLMSettings
) -> None:
    settings = llm_settings.model_copy(update={"timeout_seconds": 0.2, "max_attempts": 2})
    fake_openai.enqueue(Fault.timeout(1.0), Fault.timeout(1.0))

    async with OpenAIEngine(settings) as engine:
        with pytest.raises(ProviderUnavailable, match="APITimeoutError"):
            await engine.structured(Verdict, MESSAGES, agent="grader")

    assert len(fake_openai.requests) == 2


async def test_malformed_json_body_becomes_provider_unavailable(
    engine: OpenAIEngine, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.enqueue(Fault.malformed_json(), GOOD)

    with pytest.raises(ProviderUnavailable, match="malformed response") as info:
        await engine.structured(Verdict, MESSAGES, agent="grader")

    assert isinstance(info.value.__cause__, json.JSONDecodeError)
    assert len(fake_openai.requests) == 1


async def test_unreachable_server_is_retried_then_unavailable() -> None:
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = LLMSettings(
        engine="openai", base_url=f"http://127.0.0.1:{port}/v1", backoff_seconds=0, max_attempts=2
    )

    async with OpenAIEngine(settings) as engine:
        with pytest.raises(ProviderUnavailable, match=r"after 2 attempt.*APIConnectionError"):
            await engine.structured(Verdict, MESSAGES, agent="grader")


def test_missing_key_for_api_openai_com_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="TUTORGRAPH_LLM_API_KEY"):
        OpenAIEngine(LLMSettings(engine="openai"))


async def test_missing_key_is_fine_for_a_local_server(
    engine: OpenAIEngine, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.enqueue(GOOD)

    await engine.structured(Verdict, MESSAGES, agent="grader")

    assert fake_openai.request_headers[0]["authorization"] == "Bearer not-needed"


def test_backoff_is_full_jitter_under_an_exponential_ceiling() -> None:
    policy = RetryPolicy(max_attempts=5, backoff_seconds=0.5, max_backoff_seconds=3.0)

    for attempt, ceiling in [(1, 0.5), (2, 1.0), (3, 2.0), (4, 3.0), (9, 3.0)]:
        delays = [policy.delay(attempt) for _ in range(200)]
        assert all(0.0 <= d <= ceiling for d in delays)
        assert max(delays) > ceiling / 2  # spread over the whole range, not a fixed step
    assert RetryPolicy(backoff_seconds=0).delay(3) == 0.0
