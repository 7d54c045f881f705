from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from tutorgraph.llm import OpenAIEngine
from tutorgraph.settings import LLMSettings


@pytest.fixture
def llm_settings(fake_openai: FakeOpenAIServer) -> LLMSettings:
    """Settings aimed at the fake server, with no backoff so retries are instant."""
    return LLMSettings(
        engine="openai",
        base_url=fake_openai.base_url,
        model="fake-model",
        backoff_seconds=0,
        timeout_seconds=2,
    )


@pytest.fixture
async def engine(llm_settings: LLMSettings) -> AsyncIterator[OpenAIEngine]:
    async with OpenAIEngine(llm_settings) as engine:
        yield engine
