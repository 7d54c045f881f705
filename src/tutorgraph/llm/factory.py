"""Builds the model the settings ask for."""

from __future__ import annotations

from typing import assert_never

from tutorgraph.llm.fallback import FallbackModel
from tutorgraph.llm.offline import OfflineEngine, offline_registry
from tutorgraph.llm.openai_engine import OpenAIEngine
from tutorgraph.llm.types import Model
from tutorgraph.settings import LLMSettings


def build_model(settings: LLMSettings, *, offline: OfflineEngine | None = None) -> Model:
    """The offline engine, or the OpenAI-compatible one (falling back to offline if configured)."""
    offline_engine = offline if offline is not None else offline_registry
    if settings.engine == "offline":
        return offline_engine
    if settings.engine == "openai":
        engine = OpenAIEngine(settings)
        if settings.fallback_to_offline:
            return FallbackModel(engine, offline_engine)
        return engine
    assert_never(settings.engine)
