"""Start, answer, read and list assessments: the one place the API, the CLI and the web pages use.

An assessment is a row (owner, domain, level, status, final report) plus a LangGraph thread that
holds its progress in the durable checkpointer, so any process can continue it after a restart."""

from __future__ import annotations

import builtins
import logging
from datetime import UTC, datetime
from typing import cast

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.types import Command, StateSnapshot
from pydantic import BaseModel
from sqlalchemy.orm import Session

from tutorgraph import observability
from tutorgraph.assessment.context import AssessmentContext
from tutorgraph.assessment.graph import compile_graph
from tutorgraph.assessment.state import (
    AssessmentInput,
    AssessmentInterrupt,
    AssessmentState,
    EnrichedGap,
    KnowledgeGraphState,
    LearningPlan,
    Status,
)
from tutorgraph.errors import ConflictError, InputError, NotFoundError
from tutorgraph.knowledge import TARGET_LEVELS, TargetLevel, get_domain, visible_domain
from tutorgraph.learner_model import mastery
from tutorgraph.learner_model.decision import decide
from tutorgraph.learner_model.evaluator import Evaluator
from tutorgraph.learner_model.events import EVENT_TEXT_CHARS, store_event
from tutorgraph.learning import reviews
from tutorgraph.limits import require_answer
from tutorgraph.llm import Model
from tutorgraph.offload import run_blocking
from tutorgraph.store import assessment as stored
from tutorgraph.store.checkpoints import ASSESSMENT_DURABILITY
from tutorgraph.store.db import Database
from tutorgraph.store.models import Assessment, new_uuid, utcnow
from tutorgraph.store.thread_locks import ThreadLocks
from tutorgraph.store.users import get_user
from tutorgraph.wording import counted

log = logging.getLogger(__name__)


class AssessmentSummary(BaseModel):
    id: str
    domain: str
    target_level: TargetLevel
    status: Status
    created_at: datetime
    updated_at: datetime
    overall_readiness: int | None = None


class ReviewItem(BaseModel):
    """One question of the assessment with the learner's answer and what it showed."""

    number: int
    topic_id: str
    topic_title: str
    bloom_level: str
    question_type: str
    text: str
    answer: str | None
    confidence: float | None
    demonstrated_bloom: str | None
    misconceptions: list[str] = []


class AssessmentReport(BaseModel):
    """The outcome: readiness, gaps by priority, the plan, and the learner's knowledge graph."""

    domain: str
    target_level: TargetLevel
    overall_readiness: int
    summary: str
    gaps: list[EnrichedGap]
    plan: LearningPlan
    knowledge_graph: KnowledgeGraphState
    target_graph: dict[str, float]
    topic_titles: dict[str, str]
    topics_evaluated: list[str]
    questions_asked: int
    max_questions: int
    ended_because: str = ""
    review: list[ReviewItem] = []


class AssessmentView(AssessmentSummary):
    """An assessment as callers see it: the question waiting for an answer, or the report."""

    interrupt: AssessmentInterrupt | None = None
    topic_title: str | None = None
    report: AssessmentReport | None = None


def build_report(values: AssessmentState) -> AssessmentReport:
    enriched, plan = values["enriched_gap_analysis"], values["learning_plan"]
    if enriched is None or plan is None:
        raise RuntimeError("the assessment has not produced its report yet")
    kb = get_domain(values["domain"])
    target = kb.target_graph(values["target_level"])
    return AssessmentReport(
        domain=values["domain"],
        target_level=values["target_level"],
        overall_readiness=enriched["overall_readiness"],
        summary=enriched["summary"],
        gaps=enriched["gaps"],
        plan=plan,
        knowledge_graph=values["knowledge_graph"],
        target_graph=target,
        topic_titles={topic_id: kb.topic(topic_id).title for topic_id in target},
        topics_evaluated=values["evaluated_topics"],
        questions_asked=len(values["questions"]),
        max_questions=values["max_questions"],
        ended_because=ended_because(values),
        review=review(values),
    )


def ended_because(values: AssessmentState) -> str:
    """Why the assessment stopped where it did, in the learner's terms."""
    asked, limit = len(values["questions"]), values["max_questions"]
    agenda, evaluated = values["agenda"], values["evaluated_topics"]
    missing = [t for t in agenda if t not in evaluated]
    if asked >= limit:
        return f"It stopped at its limit of {counted(limit, 'question')}."
    if missing:
        return (
            f"It stopped after {counted(len(evaluated), 'topic')}, the most one assessment "
            f"covers; {counted(len(missing), 'topic')} of the agenda (marked not assessed) "
            "can be covered by another assessment."
        )
    return (
        f"It ended after {counted(asked, 'question')} of at most {limit} because every topic "
        f"of the {values['target_level']} agenda was assessed: a topic is left as soon as "
        "the answers settle it (a strong answer at the top level asked, consistent answers, "
        "or a weak answer), so a clear picture needs fewer questions."
    )


def review(values: AssessmentState) -> list[ReviewItem]:
    """Question by question: what was asked and what the answer showed."""
    kb = get_domain(values["domain"])
    responses = {r["question_id"]: r for r in values["responses"]}
    items = []
    for number, question in enumerate(values["questions"], start=1):
        response = responses.get(question["id"])
        items.append(
            ReviewItem(
                number=number,
                topic_id=question["topic"],
                topic_title=kb.topic(question["topic"]).title,
                bloom_level=question["bloom_level"],
                question_type=question["question_type"],
                text=question["text"],
                answer=response["answer"] if response else None,
                confidence=response["confidence"] if response else None,
                demonstrated_bloom=response["demonstrated_bloom"] if response else None,
                misconceptions=list(response.get("misconceptions", [])) if response else [],
            )
        )
    return items


def pending_interrupt(snapshot: StateSnapshot) -> AssessmentInterrupt | None:
    for item in snapshot.interrupts:
        value = item.value
        if isinstance(value, dict) and value.get("type") == "assessment":
            payload: AssessmentInterrupt = value  # type: ignore[assignment]
            return payload
    return None


class AssessmentService:
    """Runs assessment graphs for a database, a checkpointer and a model."""

    def __init__(
        self,
        *,
        database: Database,
        checkpointer: BaseCheckpointSaver[str],
        model: Model,
        evaluator: Evaluator | None = None,
    ) -> None:
        self.database = database
        self.graph = compile_graph(checkpointer)
        self.context = AssessmentContext(model=model, evaluator=evaluator or Evaluator(model))
        self.threads = ThreadLocks(database.engine)

    async def start(self, *, user_id: int | None, domain: str, target_level: str) -> AssessmentView:
        """Create the assessment and run it to its first question (on a domain the user may
        see: 404 otherwise)."""
        level = _target_level(target_level)
        row = await run_blocking(self._create, user_id, domain, level)
        log.info("assessment %s started: %s/%s for user %s", row.id, domain, level, user_id)
        start: AssessmentInput = {"domain": domain, "target_level": level}
        async with self.threads.hold(row.thread_id):
            await self.graph.ainvoke(
                start, _config(row), context=self.context, durability=ASSESSMENT_DURABILITY
            )
            return await self._sync(row)

    async def answer(
        self,
        *,
        assessment_id: str,
        user_id: int | None,
        answer: str,
        question_id: str | None = None,
        any_owner: bool = False,
    ) -> AssessmentView:
        """Answer the waiting question and run to the next one, or to the report."""
        row = await run_blocking(self._load, assessment_id, user_id, any_owner)
        if row.status == "complete":
            raise ConflictError(f"assessment {row.id} is complete; it takes no more answers")
        async with self.threads.hold(row.thread_id):
            config = _config(row)
            snapshot = await self.graph.aget_state(config)
            waiting = pending_interrupt(snapshot)
            if waiting is not None:
                require_answer(answer)  # a blank answer neither counts nor uses the question
                if question_id is not None and question_id != waiting["question"]["id"]:
                    raise ConflictError(
                        f"question {question_id} is not waiting for an answer "
                        f"(question {waiting['question']['id']} is)"
                    )
                await self.graph.ainvoke(
                    Command(resume=answer),
                    config,
                    context=self.context,
                    durability=ASSESSMENT_DURABILITY,
                )
            elif snapshot.next:
                # A step failed last time (a model error): carry on from where it stopped.
                log.info("assessment %s: continuing at %s", row.id, ", ".join(snapshot.next))
                await self.graph.ainvoke(
                    None, config, context=self.context, durability=ASSESSMENT_DURABILITY
                )
            return await self._sync(row)

    async def get(
        self, *, assessment_id: str, user_id: int | None, any_owner: bool = False
    ) -> AssessmentView:
        row = await run_blocking(self._load, assessment_id, user_id, any_owner)
        if row.status == "complete":
            return _view(row)
        snapshot = await self.graph.aget_state(_config(row))
        return _view(row, pending_interrupt(snapshot))

    async def list(self, *, user_id: int | None) -> list[AssessmentSummary]:
        """The user's assessments, newest first."""
        return await run_blocking(self._list, user_id)

    async def _sync(self, row: Assessment) -> AssessmentView:
        """Record the graph's progress on the row: completion and the report."""
        snapshot = await self.graph.aget_state(_config(row))
        waiting = pending_interrupt(snapshot)
        values = cast(AssessmentState, snapshot.values)
        report = None
        if not snapshot.next and values.get("learning_plan") is not None:
            report = build_report(values)
        row = await run_blocking(self._save, row.id, report)
        return _view(row, waiting)

    def _create(self, user_id: int | None, domain: str, level: TargetLevel) -> Assessment:
        with self.database.session() as session:
            user = get_user(session=session, user_id=user_id) if user_id is not None else None
            visible_domain(session=session, user=user, name=domain)
            assessment_id = new_uuid()
            return stored.add_assessment(
                session,
                assessment_id=assessment_id,
                user_id=user_id,
                domain=domain,
                target_level=level,
                thread_id=f"assessment-{assessment_id}",
            )

    def _load(self, assessment_id: str, user_id: int | None, any_owner: bool) -> Assessment:
        with self.database.session() as session:
            row = stored.assessment_by_id(session, assessment_id)
            if row is None or (not any_owner and row.user_id != user_id):
                raise NotFoundError(f"no assessment {assessment_id}")
            return row

    def _save(self, assessment_id: str, report: AssessmentReport | None) -> Assessment:
        with self.database.session() as session:
            row = stored.assessment_by_id(session, assessment_id)
            if row is None:
                raise NotFoundError(f"no assessment {assessment_id}")
            row.updated_at = utcnow()
            if report is not None:
                if row.status != "complete" and row.user_id is not None:
                    _into_learning_loop(session, row, report)
                row.status = "complete"
                row.report = report.model_dump(mode="json")
            return row

    def _list(self, user_id: int | None) -> builtins.list[AssessmentSummary]:
        with self.database.session() as session:
            return [_summary(row) for row in stored.assessments_of(session, user_id)]


def _into_learning_loop(session: Session, row: Assessment, report: AssessmentReport) -> None:
    """A finished assessment feeds the learning loop once: every answer moves the learner's
    mastery of its topic (the knowledge graph on the progress page, as practice and interview
    answers do) and is an evaluation event (a review of its topic and evidence for the
    misconception ledger), and the plan's phases are scheduled into the learner's review
    queue."""
    assert row.user_id is not None
    for item in report.review:
        if item.answer is None or item.confidence is None:
            continue
        change = mastery.record_score(
            session=session, user_id=row.user_id, concept=item.topic_id, score=item.confidence
        )
        store_event(
            session,
            user_id=row.user_id,
            concept=item.topic_id,
            score=item.confidence,
            decision=decide(score=item.confidence, error_type=None, difficulty=3, mastery=0.0),
            payload={
                "source": {
                    "kind": "assessment",
                    "domain": report.domain,
                    "assessment_id": row.id,
                    "bloom_level": item.demonstrated_bloom,
                },
                "concept": item.topic_id,
                "score": item.confidence,
                "question": item.text[:EVENT_TEXT_CHARS],
                "answer": item.answer[:EVENT_TEXT_CHARS],
                "misconceptions": item.misconceptions,
                "mastery": change.payload(),
            },
        )
    reviews.schedule_plan(
        session=session,
        user_id=row.user_id,
        phases=[(phase["topics"], phase["estimated_hours"]) for phase in report.plan["phases"]],
        start=utcnow(),
    )


def _target_level(value: str) -> TargetLevel:
    for level in TARGET_LEVELS:
        if value == level:
            return level
    raise InputError(f"target_level: must be one of {', '.join(TARGET_LEVELS)} (got {value!r})")


def _config(row: Assessment) -> RunnableConfig:
    return observability.run_config(
        "assessment",
        row.thread_id,
        tags=[row.domain, row.target_level],
        metadata={"assessment_id": row.id},
    )


def _summary(row: Assessment) -> AssessmentSummary:
    readiness = row.report.get("overall_readiness") if row.report else None
    return AssessmentSummary(
        id=row.id,
        domain=row.domain,
        target_level=_target_level(row.target_level),
        status="complete" if row.status == "complete" else "in_progress",
        created_at=_aware(row.created_at),
        updated_at=_aware(row.updated_at),
        overall_readiness=readiness if isinstance(readiness, int) else None,
    )


def _aware(moment: datetime) -> datetime:
    """SQLite hands timestamps back without their zone; they were stored in UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _view(row: Assessment, waiting: AssessmentInterrupt | None = None) -> AssessmentView:
    summary = _summary(row)
    title = None
    if waiting is not None:
        kb = get_domain(row.domain)
        topic = waiting["question"]["topic"]
        title = kb.topic(topic).title if topic in kb.topics else topic
    return AssessmentView(
        **summary.model_dump(),
        interrupt=waiting,
        topic_title=title,
        report=AssessmentReport.model_validate(row.report) if row.report else None,
    )
