"""Start, answer, read and list assessments: the one place the API, the CLI and the web pages use.

An assessment is a row (owner, domain, level, status, final report) plus a LangGraph thread that
holds its progress in the durable checkpointer, so any process can continue it after a restart."""

from __future__ import annotations

import builtins
import logging
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any, cast

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.types import Command, StateSnapshot
from pydantic import BaseModel
from sqlalchemy.orm import Session

from tutorgraph import observability
from tutorgraph.assessment import gaps
from tutorgraph.assessment.context import AssessmentContext
from tutorgraph.assessment.graph import compile_graph
from tutorgraph.assessment.router import questions_left
from tutorgraph.assessment.state import (
    AssessmentInput,
    AssessmentInterrupt,
    AssessmentState,
    EnrichedGap,
    FinishRequest,
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


class MisconceptionShown(BaseModel):
    """A known misconception an answer showed: what it is, and the learner's sentence saying it
    (empty when no single sentence states it)."""

    id: str
    description: str
    quote: str = ""


class ReviewItem(BaseModel):
    """One question of the assessment with the learner's answer and the feedback on it: the
    grading score, the key points made and missed, the misconceptions shown and, for code or
    numbers, the checks' results (a `ChecksSummary` as JSON). Reports stored before issue 35
    have no feedback (score None, empty lists)."""

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
    score: float | None = None
    covered: list[str] = []
    missed: list[str] = []
    shown: list[MisconceptionShown] = []
    checks: dict[str, Any] | None = None


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
    # The level's topics the assessment has no evidence on (finished early, or the topic limit):
    # listed as not assessed, never as gaps or 0% (decision record 0050).
    not_assessed: list[str] = []
    finished_early: bool = False


class QuestionsLeftView(BaseModel):
    """What the question page says is left after the question on screen (`router.questions_left`):
    about `estimate` more questions, between `least` and `most`; topic `topic_number` of
    `topics`."""

    least: int
    estimate: int
    most: int
    topic_number: int
    topics: int


class AssessmentView(AssessmentSummary):
    """An assessment as callers see it: the question waiting for an answer, or the report."""

    interrupt: AssessmentInterrupt | None = None
    topic_title: str | None = None
    report: AssessmentReport | None = None
    left: QuestionsLeftView | None = None
    answered: int = 0


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
        not_assessed=gaps.not_assessed(kb, values["target_level"], values["knowledge_graph"]),
        finished_early=values.get("finish_requested", False),
    )


def ended_because(values: AssessmentState) -> str:
    """Why the assessment stopped where it did, in the learner's terms."""
    asked, limit = len(values["questions"]), values["max_questions"]
    agenda, evaluated = values["agenda"], values["evaluated_topics"]
    missing = [t for t in agenda if t not in evaluated]
    if values.get("finish_requested", False):
        ended = f"You finished it after {counted(asked, 'answer')}"
        if not missing:
            return f"{ended}, with every topic of the agenda assessed."
        return (
            f"{ended}: this report covers the {counted(len(evaluated), 'topic')} you answered "
            f"on. The other {counted(len(missing), 'topic')} (marked not assessed) were not "
            "reached, so they are neither gaps nor strengths here; another assessment covers them."
        )
    if asked >= limit:
        return f"It stopped at its limit of {counted(limit, 'question')}."
    if missing:
        return (
            f"It stopped after {counted(len(evaluated), 'topic')}, the most one assessment "
            f"covers; {counted(len(missing), 'topic')} of the agenda (marked not assessed) "
            "can be covered by another assessment."
        )
    return (
        f"It ended after {counted(asked, 'question')} because every topic "
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
        topic = kb.topic(question["topic"])
        described = {m.id: m.description for m in topic.misconceptions}
        quotes = response.get("misconception_quotes", {}) if response else {}
        shown = [
            MisconceptionShown(id=m, description=described.get(m, m), quote=quotes.get(m, ""))
            for m in (response.get("misconceptions", []) if response else [])
        ]
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
                score=response.get("score") if response else None,
                covered=list(response.get("covered", [])) if response else [],
                missed=list(response.get("missed", [])) if response else [],
                shown=shown,
                checks=response.get("checks") if response else None,
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
            else:  # finished (in another tab) while this answer was on its way
                await self._sync(row)
                raise ConflictError(
                    f"assessment {row.id} is complete; this answer came after it ended and was "
                    "not counted"
                )
            return await self._sync(row)

    async def finish(
        self,
        *,
        assessment_id: str,
        user_id: int | None,
        answer: str = "",
        any_owner: bool = False,
    ) -> AssessmentView:
        """End the assessment now, with a report on what was answered (decision record 0050).

        A non-blank `answer` answers the question on screen first. Idempotent: finishing a
        finished assessment returns it as it is. Needs at least one answer (with `answer`
        counted): a report on nothing would say nothing. The graph is resumed with
        `{"finish": true}` under the thread's lock, so a second tab finishing or answering at
        the same moment waits, then sees the assessment as the first left it: no answer is lost
        and one report is made."""
        row = await run_blocking(self._load, assessment_id, user_id, any_owner)
        if row.status == "complete":
            return _view(row)
        answer = answer if _is_an_answer(answer) else ""
        async with self.threads.hold(row.thread_id):
            config = _config(row)
            snapshot = await self.graph.aget_state(config)
            values = cast(AssessmentState, snapshot.values)
            waiting = pending_interrupt(snapshot)
            if waiting is not None:
                if not values.get("responses") and not answer.strip():
                    raise ConflictError(
                        "answer at least one question before finishing: the report is made "
                        "from your answers"
                    )
                log.info("assessment %s: finishing now at %s", row.id, waiting["question"]["id"])
                resume: FinishRequest = {"finish": True, "answer": answer}
                await self.graph.ainvoke(
                    Command(resume=resume),
                    config,
                    context=self.context,
                    durability=ASSESSMENT_DURABILITY,
                )
            elif snapshot.next:
                # A step failed last time (a model error): carry on; if it was a question being
                # graded, the graph concludes once it is graded (the finish is in the state).
                log.info("assessment %s: continuing at %s", row.id, ", ".join(snapshot.next))
                await self.graph.ainvoke(
                    None, config, context=self.context, durability=ASSESSMENT_DURABILITY
                )
            view = await self._sync(row)
            if view.report is None and view.interrupt is not None:
                # The step that failed was an answer's (sent before this finish): it is graded
                # now and the next question waits; finish there (the text sent with this
                # finish was written for the earlier question, so it is not used).
                return await self._finish_waiting(row, "")
            return view

    async def _finish_waiting(self, row: Assessment, answer: str) -> AssessmentView:
        """Resume the waiting question with a finish (the caller holds the thread's lock)."""
        resume: FinishRequest = {"finish": True, "answer": answer}
        await self.graph.ainvoke(
            Command(resume=resume),
            _config(row),
            context=self.context,
            durability=ASSESSMENT_DURABILITY,
        )
        return await self._sync(row)

    async def get(
        self, *, assessment_id: str, user_id: int | None, any_owner: bool = False
    ) -> AssessmentView:
        row = await run_blocking(self._load, assessment_id, user_id, any_owner)
        if row.status == "complete":
            return _view(row)
        snapshot = await self.graph.aget_state(_config(row))
        return _view(row, pending_interrupt(snapshot), cast(AssessmentState, snapshot.values))

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
        return _view(row, waiting, values)

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


def _is_an_answer(text: str) -> bool:
    """Whether a text sent with a finish is an answer to grade (as `require_answer` has it)."""
    try:
        require_answer(text)
    except InputError:
        return False
    return True


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


def _view(
    row: Assessment,
    waiting: AssessmentInterrupt | None = None,
    values: AssessmentState | None = None,
) -> AssessmentView:
    summary = _summary(row)
    title = None
    left = None
    if waiting is not None:
        kb = get_domain(row.domain)
        topic = waiting["question"]["topic"]
        title = kb.topic(topic).title if topic in kb.topics else topic
        if values is not None and values.get("agenda"):
            left = QuestionsLeftView(**asdict(questions_left(values)))
    return AssessmentView(
        **summary.model_dump(),
        interrupt=waiting,
        topic_title=title,
        report=AssessmentReport.model_validate(row.report) if row.report else None,
        left=left,
        answered=len(values.get("responses", [])) if values is not None else 0,
    )
