"""Builds the model every agent talks to: the configured engine, with every agent's offline
implementation registered as the built-in engine and the fallback."""

from __future__ import annotations

from tutorgraph.llm import Model, OfflineEngine, build_model
from tutorgraph.settings import GradingSettings, Settings


def offline_engine(grading: GradingSettings | None = None) -> OfflineEngine:
    """An offline engine with every agent's offline implementation registered."""
    from tutorgraph.assessment.agents import register_offline_assessment
    from tutorgraph.constructor.agents import register_offline_constructor
    from tutorgraph.grading.feedback import register_offline_feedback
    from tutorgraph.grading.judge import register_offline_judge
    from tutorgraph.interview.agents import register_offline_interview
    from tutorgraph.tutor.offline_tutor import register_offline_tutor

    engine = OfflineEngine()
    register_offline_judge(engine, weights=(grading or GradingSettings()).rubric_weights)
    register_offline_feedback(engine)
    register_offline_assessment(engine)
    register_offline_tutor(engine)
    register_offline_constructor(engine)
    register_offline_interview(engine)
    return engine


def build_engine(settings: Settings) -> Model:
    return build_model(settings.llm, offline=offline_engine(settings.grading))
