"""The service when a model call fails mid-assessment: nothing is lost, the next call carries on."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from langgraph.checkpoint.base import BaseCheckpointSaver
from pydantic import BaseModel

from tests.assessment.conftest import ScriptedEvaluations
from tutorgraph.assessment.agents import QUESTION_AGENT
from tutorgraph.assessment.bank import draw_question
from tutorgraph.assessment.schemas import QuestionRequest
from tutorgraph.assessment.service import AssessmentService
from tutorgraph.errors import NotFoundError, ProviderUnavailable
from tutorgraph.knowledge import get_domain
from tutorgraph.llm import Message, OfflineEngine
from tutorgraph.settings import Settings
from tutorgraph.store import migrate
from tutorgraph.store.db import Database


@pytest.fixture
def database(settings: Settings) -> Iterator[Database]:
    migrate.upgrade(settings)
    db = Database(settings)
    yield db
    db.dispose()


class FlakyQuestions:
    """The bank, except that the calls listed in `fail_on` raise a provider error."""

    def __init__(self, *fail_on: int) -> None:
        self.calls = 0
        self.fail_on = set(fail_on)

    def __call__(self, schema: type[BaseModel], messages: Sequence[Message], inputs: Any) -> Any:
        self.calls += 1
        if self.calls in self.fail_on:
            raise ProviderUnavailable("model server down")
        assert isinstance(inputs, QuestionRequest)
        return draw_question(get_domain(inputs.domain), inputs)


async def test_a_failed_step_is_continued_by_the_next_call(
    database: Database,
    checkpointer: BaseCheckpointSaver[str],
    engine: OfflineEngine,
    scripted: ScriptedEvaluations,
) -> None:
    flaky = FlakyQuestions(2)
    engine.register_structured(QUESTION_AGENT, flaky)
    service = AssessmentService(database=database, checkpointer=checkpointer, model=engine)
    view = await service.start(user_id=None, domain="python", target_level="mid")
    assert view.interrupt is not None
    scripted.enqueue(0.1)
    with pytest.raises(ProviderUnavailable):
        await service.answer(assessment_id=view.id, user_id=None, answer="no idea")

    stalled = await service.get(assessment_id=view.id, user_id=None)
    assert stalled.status == "in_progress" and stalled.interrupt is None
    resumed = await service.answer(assessment_id=view.id, user_id=None, answer="ignored")
    assert resumed.interrupt is not None
    assert resumed.interrupt["question"]["topic"] == "builtin-data-structures"  # pivoted
    assert resumed.interrupt["total_questions"] == 2
    state = await service.graph.aget_state({"configurable": {"thread_id": f"assessment-{view.id}"}})
    assert [r["answer"] for r in state.values["responses"]] == ["no idea"]  # evaluated once
    assert flaky.calls == 3


async def test_owners_and_operators(
    database: Database, checkpointer: BaseCheckpointSaver[str], engine: OfflineEngine
) -> None:
    service = AssessmentService(database=database, checkpointer=checkpointer, model=engine)
    view = await service.start(user_id=None, domain="machine-learning", target_level="staff")
    assert view.interrupt is not None and view.interrupt["question"]["bloomLevel"] == "evaluate"
    with pytest.raises(NotFoundError):
        await service.get(assessment_id=view.id, user_id=7)
    assert (await service.get(assessment_id=view.id, user_id=7, any_owner=True)).id == view.id
    assert [a.id for a in await service.list(user_id=None)] == [view.id]
    assert await service.list(user_id=7) == []
