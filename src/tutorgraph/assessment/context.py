"""What the assessment nodes depend on, handed to them through LangGraph's runtime context."""

from __future__ import annotations

from dataclasses import dataclass

from tutorgraph.learner_model.evaluator import Evaluator
from tutorgraph.llm import Model


@dataclass(frozen=True)
class AssessmentContext:
    """The model every agent asks, and the grading engine that scores answers."""

    model: Model
    evaluator: Evaluator

    @classmethod
    def for_model(cls, model: Model) -> AssessmentContext:
        return cls(model=model, evaluator=Evaluator(model))
