"""Assessment fixtures: a real durable checkpointer, and an offline engine whose response
evaluator can be scripted through the engine registry (the seam the offline engine exposes)."""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator, Sequence
from typing import Any

import pytest
from langgraph.checkpoint.base import BaseCheckpointSaver
from pydantic import BaseModel

from tutorgraph.assessment.agents import EVALUATION_AGENT, offline_evaluation
from tutorgraph.assessment.schemas import EvaluationOutput, EvaluationRequest
from tutorgraph.engines import offline_engine
from tutorgraph.grading.types import RubricScores
from tutorgraph.llm import Message, OfflineEngine
from tutorgraph.settings import Settings
from tutorgraph.store.checkpoints import open_checkpointer


class ScriptedEvaluations:
    """Queued confidences for the response evaluator; the Bloom level follows the offline rule."""

    def __init__(self) -> None:
        self.queue: deque[float] = deque()
        self.seen: list[EvaluationRequest] = []

    def enqueue(self, *confidences: float) -> None:
        self.queue.extend(confidences)

    def __call__(
        self, schema: type[BaseModel], messages: Sequence[Message], inputs: Any
    ) -> EvaluationOutput:
        assert isinstance(inputs, EvaluationRequest)
        self.seen.append(inputs)
        confidence = self.queue.popleft()
        rubric = RubricScores(correctness=1.0, completeness=confidence, clarity=1.0)
        scored = inputs.verdict.model_copy(update={"score": rubric.score, "rubric": rubric})
        output = offline_evaluation(inputs.model_copy(update={"verdict": scored}))
        return output.model_copy(update={"evidence": [f"scripted {confidence}", "second item"]})


@pytest.fixture
def scripted() -> ScriptedEvaluations:
    return ScriptedEvaluations()


@pytest.fixture
def engine(scripted: ScriptedEvaluations) -> OfflineEngine:
    engine = offline_engine()
    engine.register_structured(EVALUATION_AGENT, scripted)
    return engine


@pytest.fixture
async def checkpointer(settings: Settings) -> AsyncIterator[BaseCheckpointSaver[str]]:
    async with open_checkpointer(settings) as saver:
        yield saver
