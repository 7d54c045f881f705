from __future__ import annotations

import pytest

from tutorgraph.errors import ConfigurationError
from tutorgraph.llm import (
    FallbackModel,
    OfflineEngine,
    OpenAIEngine,
    aclose_model,
    build_model,
    offline_registry,
)
from tutorgraph.settings import LLMSettings

LOCAL = "http://127.0.0.1:11434/v1"


def test_offline_engine_by_default() -> None:
    assert build_model(LLMSettings()) is offline_registry
    private = OfflineEngine()
    assert build_model(LLMSettings(), offline=private) is private


async def test_openai_engine_wrapped_in_offline_fallback() -> None:
    private = OfflineEngine()
    model = build_model(LLMSettings(engine="openai", base_url=LOCAL), offline=private)

    assert isinstance(model, FallbackModel)
    assert isinstance(model.primary, OpenAIEngine)
    assert model.fallback is private
    assert (model.supports_tools, model.can_stream) == (True, True)
    await aclose_model(model)


async def test_openai_engine_alone_when_fallback_is_off() -> None:
    settings = LLMSettings(engine="openai", base_url=LOCAL, fallback_to_offline=False)
    model = build_model(settings)

    assert isinstance(model, OpenAIEngine)
    await aclose_model(model)


def test_openai_without_key_fails_at_build_time() -> None:
    with pytest.raises(ConfigurationError, match="TUTORGRAPH_LLM_API_KEY"):
        build_model(LLMSettings(engine="openai"))
