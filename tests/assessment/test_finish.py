"""Finishing an assessment now (issue 35): through the graph (route to conclude), the service
(at least one answer, idempotent, a second tab), with a report on what was asked only."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.types import Command

from tests.assessment.conftest import ScriptedEvaluations
from tutorgraph.assessment.context import AssessmentContext
from tutorgraph.assessment.graph import compile_graph
from tutorgraph.assessment.router import RouteInputs, decide_route, questions_left
from tutorgraph.assessment.service import AssessmentService
from tutorgraph.engines import offline_engine
from tutorgraph.errors import ConflictError
from tutorgraph.knowledge import BloomLevel, get_domain
from tutorgraph.llm import OfflineEngine
from tutorgraph.settings import Settings
from tutorgraph.store import migrate
from tutorgraph.store.db import Database

CONFIG: RunnableConfig = {"configurable": {"thread_id": "finish-test"}}


@pytest.fixture
def database(settings: Settings) -> Iterator[Database]:
    migrate.upgrade(settings)
    db = Database(settings)
    yield db
    db.dispose()


def test_a_finish_request_routes_to_conclude_whatever_the_answer_showed() -> None:
    strong = RouteInputs(
        topics_evaluated=0,
        total_questions=1,
        max_questions=40,
        confidence=0.9,
        bloom_level=BloomLevel.APPLY,
        questions_on_topic=1,
        evidence=1,
        node_confidence=0.9,
        topics_remaining=9,
    )
    assert decide_route(strong) == "deeper"
    assert decide_route(RouteInputs(**{**strong.__dict__, "finish_requested": True})) == "conclude"


async def test_finishing_without_an_answer_concludes_on_what_was_answered(
    checkpointer: BaseCheckpointSaver[str], engine: OfflineEngine, scripted: ScriptedEvaluations
) -> None:
    context = AssessmentContext.for_model(engine)
    graph = compile_graph(checkpointer)
    await graph.ainvoke({"domain": "python", "target_level": "mid"}, CONFIG, context=context)
    scripted.enqueue(0.5)  # a medium answer: the router would probe the same topic
    await graph.ainvoke(Command(resume="objects have identity"), CONFIG, context=context)
    snapshot = await graph.aget_state(CONFIG)
    assert snapshot.next == ("await_probe_response",)
    probe_id = snapshot.values["current_question"]["id"]

    # A restart between the question and the finish: a fresh graph on the same checkpoints.
    graph = compile_graph(checkpointer)
    await graph.ainvoke(Command(resume={"finish": True}), CONFIG, context=context)
    snapshot = await graph.aget_state(CONFIG)
    values: dict[str, Any] = snapshot.values
    assert snapshot.next == ()  # concluded: gaps, enrichment and plan ran
    assert values["learning_plan"] is not None
    assert len(scripted.seen) == 1  # the probe on screen was not graded...
    assert probe_id not in [q["id"] for q in values["questions"]]  # ...nor counted as asked
    assert values["topic_questions"] == {"python-data-model": 1}
    assert values["evaluated_topics"] == ["python-data-model"]
    assert [g["topic_id"] for g in values["gap_analysis"]] == ["python-data-model"]
    assert values["enriched_gap_analysis"]["overall_readiness"] == round(
        100 * 0.5 / get_domain("python").target_graph("mid")["python-data-model"]
    )


async def test_finishing_with_an_answer_grades_it_then_concludes(
    checkpointer: BaseCheckpointSaver[str], engine: OfflineEngine, scripted: ScriptedEvaluations
) -> None:
    context = AssessmentContext.for_model(engine)
    graph = compile_graph(checkpointer)
    await graph.ainvoke({"domain": "python", "target_level": "mid"}, CONFIG, context=context)
    scripted.enqueue(0.95)  # strong: the router would go deeper
    await graph.ainvoke(
        Command(resume={"finish": True, "answer": "my last answer"}), CONFIG, context=context
    )
    snapshot = await graph.aget_state(CONFIG)
    assert snapshot.next == ()
    assert [r["answer"] for r in snapshot.values["responses"]] == ["my last answer"]
    assert len(snapshot.values["questions"]) == 1


async def test_the_service_finishes_once_and_only_after_an_answer(
    database: Database,
    checkpointer: BaseCheckpointSaver[str],
    engine: OfflineEngine,
    scripted: ScriptedEvaluations,
) -> None:
    service = AssessmentService(database=database, checkpointer=checkpointer, model=engine)
    view = await service.start(user_id=None, domain="machine-learning", target_level="junior")
    with pytest.raises(ConflictError, match="at least one question"):
        await service.finish(assessment_id=view.id, user_id=None)
    with pytest.raises(ConflictError):  # a blank text is no answer
        await service.finish(assessment_id=view.id, user_id=None, answer="  ")
    still = await service.get(assessment_id=view.id, user_id=None)
    assert still.interrupt == view.interrupt and still.status == "in_progress"

    scripted.enqueue(0.2)
    answered = await service.answer(assessment_id=view.id, user_id=None, answer="a guess")
    assert answered.answered == 1 and answered.left is not None
    finished = await service.finish(assessment_id=view.id, user_id=None)
    report = finished.report
    assert finished.status == "complete" and report is not None
    assert report.finished_early and report.questions_asked == 1
    kb = get_domain("machine-learning")
    agenda = kb.agenda("junior")
    assert [g["topic_id"] for g in report.gaps] == ["ml-fundamentals"]
    assert report.not_assessed == agenda[1:]  # listed, never as gaps or 0%
    assert "not assessed" in report.ended_because and "1 answer" in report.ended_because
    assert [item.answer for item in report.review] == ["a guess"]

    again = await service.finish(assessment_id=view.id, user_id=None)  # idempotent
    assert again.report == report
    with pytest.raises(ConflictError):
        await service.answer(assessment_id=view.id, user_id=None, answer="too late")


async def test_two_tabs_finishing_and_answering_at_once_lose_nothing(
    database: Database,
    checkpointer: BaseCheckpointSaver[str],
    engine: OfflineEngine,
    scripted: ScriptedEvaluations,
) -> None:
    service = AssessmentService(database=database, checkpointer=checkpointer, model=engine)
    view = await service.start(user_id=None, domain="machine-learning", target_level="junior")
    scripted.enqueue(0.2, 0.3)
    await service.answer(assessment_id=view.id, user_id=None, answer="first answer")

    answering = service.answer(assessment_id=view.id, user_id=None, answer="second answer")
    results = await asyncio.gather(
        answering,
        service.finish(assessment_id=view.id, user_id=None),
        service.finish(assessment_id=view.id, user_id=None),
        return_exceptions=True,
    )
    answer_result, *finishes = results
    reports = [f.report for f in finishes if not isinstance(f, BaseException)]
    assert len(reports) == 2 and reports[0] == reports[1]  # one report, shown to both tabs
    report = reports[0]
    assert report is not None
    answers = [item.answer for item in report.review]
    if isinstance(answer_result, BaseException):  # the finish came first: the tab is told
        assert isinstance(answer_result, ConflictError)
        assert answers == ["first answer"]
    else:  # the answer came first: it is in the report
        assert answers == ["first answer", "second answer"]
    stored = await service.get(assessment_id=view.id, user_id=None)
    assert stored.report == report


async def test_questions_left_is_an_honest_range(
    checkpointer: BaseCheckpointSaver[str], scripted: ScriptedEvaluations
) -> None:
    context = AssessmentContext.for_model(offline_engine())
    graph = compile_graph(checkpointer)
    await graph.ainvoke(
        {"domain": "machine-learning", "target_level": "junior"}, CONFIG, context=context
    )
    seen = []
    while (await graph.aget_state(CONFIG)).next:
        snapshot = await graph.aget_state(CONFIG)
        left = questions_left(snapshot.values)
        assert left.least <= left.estimate <= left.most
        seen.append((len(snapshot.values["questions"]), left))
        await graph.ainvoke(Command(resume="I don't know."), CONFIG, context=context)
    asked = len((await graph.aget_state(CONFIG)).values["questions"])
    for number, left in seen:  # what really followed each question lies in its range
        assert left.least <= asked - number <= left.most
    assert seen[-1][1].least == 0
