"""The path planner: acts on every EVALUATION_COMPLETED event, durably.

The stored event row is the outbox. The planner subscribes to the in-process bus, so a grade is
planned as soon as its transaction commits; and because it plans *every* event whose
`planned_at` is still empty, whatever the bus missed (the server was killed between the grade
and the planner, or the planner failed) is planned the next time anyone asks: at start-up, and
before `GET /api/v1/me/next` or a page answers. Each event is planned in one transaction with
its effects (the review, a question queued again, the next step): either all of it happened or
none did, and `next_steps.event_id` is unique, so two processes never plan one event twice."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from tutorgraph import practice
from tutorgraph.knowledge import (
    KnowledgeBase,
    concept_title,
    shipped_domains,
    visible_knowledge,
)
from tutorgraph.learner_model import mastery
from tutorgraph.learning import next_step, reviews, xapi
from tutorgraph.learning.next_step import REMEDIAL, Graded, LessonRef, RoundQuestion, Situation
from tutorgraph.lti import service as lti_service
from tutorgraph.store import atomic, courses
from tutorgraph.store import learning as record
from tutorgraph.store import practice as practice_store
from tutorgraph.store.db import Database
from tutorgraph.store.models import (
    EvaluationEvent,
    NextStep,
    QuizAnswer,
    QuizQuestion,
    User,
    utcnow,
)
from tutorgraph.store.users import get_user

log = logging.getLogger(__name__)

BATCH = 200  # events planned per call; the rest on the next call
# Answers given inside a flow that decides its own next question (a tutor chat's quiz card, an
# assessment) are reviews and evidence, but set no next step.
STEPLESS_SOURCES = frozenset({"tutor_quiz", "assessment"})
Clock = Callable[[], datetime]


class PathPlanner:
    """The bus subscriber: plans the graded learner's pending events in its own session."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def on_evaluation(self, event: str, payload: dict[str, Any]) -> None:
        user_id = payload.get("user_id")
        if not isinstance(user_id, int):
            return
        with self.database.session() as session:
            plan_pending(session, user_id=user_id)

    def catch_up(self) -> int:
        """Plan every learner's pending events (at start-up)."""
        with self.database.session() as session:
            return plan_pending(session)


def plan_pending(session: Session, *, user_id: int | None = None) -> int:
    """Plan the pending events (one learner's, or everyone's), oldest first; each commits on its
    own. Returns how many this call planned."""
    pending = record.unplanned_event_ids(session, user_id=user_id, limit=BATCH)
    session.commit()
    planned = 0
    for event_id in pending:
        try:
            if plan_event(session, event_id):
                planned += 1
            session.commit()
        except IntegrityError:  # another process planned it first
            session.rollback()
        except Exception:
            session.rollback()
            log.exception("planning evaluation event %s failed; it stays pending", event_id)
    return planned


def plan_event(session: Session, event_id: int) -> bool:
    """Plan one event inside the caller's transaction: review its concept, decide the next step,
    queue a question again where the step says so, and mark the event planned."""
    event = record.event_by_id(session, event_id)
    if event is None or event.planned_at is not None:
        return False
    # One learner's events are planned one at a time, in any process: their reviews, steps and
    # queued questions build on each other. Another planner may have taken this one meanwhile.
    if event.user_id is not None:
        atomic.serialize(session, "plan", event.user_id)
    event = record.event_by_id(session, event_id, lock=True)
    if event is None or event.planned_at is not None:
        return False
    now = utcnow()
    user = get_user(session=session, user_id=event.user_id) if event.user_id is not None else None
    if user is None:
        event.planned_at = now
        return False
    kb = _domain_of(session, user, event)
    graded = Graded.from_payload(event.payload)
    xapi.queue_evaluation(session, event)
    if event.concept:  # the grade an LMS that launched the learner keeps
        lti_service.queue_grades(session, user_id=user.id, concept=event.concept)
    review_due = None
    if kb is not None and graded.concept in kb.topics:
        card = reviews.record_review(
            session=session,
            user_id=user.id,
            concept=graded.concept,
            score=event.score,
            at=event.created_at,
        )
        review_due = card.due
    if graded.source in STEPLESS_SOURCES or review_due is None:
        # a flow with its own next question, or an answer on no knowledge-base concept: it
        # must not replace the learner's planned step with a pathless one
        event.planned_at = now
        return True
    step = next_step.plan(graded, kb, _situation(session, user, graded, kb, review_due))
    target = dict(step.target)
    if step.requeue is not None:
        asked = practice.queue_again(
            session=session,
            user_id=user.id,
            round_id=step.requeue.round_id,
            question_id=step.requeue.question_id,
            hint=step.requeue.hint,
        )
        if asked is not None:  # the step is the question asked again: its own id
            target["question_id"] = asked
    # A newer step replaces the learner's older ones that were never taken.
    record.retire_untaken_steps(session, user_id=user.id, at=now)
    record.add_step(
        session,
        user_id=user.id,
        event_id=event.id,
        decision=step.decision,
        kind=step.kind,
        title=step.title[:300],
        reason=step.reason,
        target={**target, "domain": kb.name} if kb is not None else target,
    )
    event.planned_at = now
    session.flush()
    return True


def _domain_of(session: Session, user: User, event: EvaluationEvent) -> KnowledgeBase | None:
    """The event's domain among those the learner may see (none: the answer sets no path)."""
    knowledge = visible_knowledge(session=session, user=user)
    name = (event.payload.get("source") or {}).get("domain")
    if isinstance(name, str) and name in knowledge.domains:
        return knowledge.domains[name]
    found = knowledge.topic(event.concept) if event.concept else None
    return found[0] if found else None


def _situation(
    session: Session,
    user: User,
    graded: Graded,
    kb: KnowledgeBase | None,
    review_due: datetime | None,
) -> Situation:
    known = mastery.mastery_by_concept(session=session, user_id=user.id)
    lessons = {
        concept: LessonRef(links[0].title, links[0].url)
        for concept, links in courses.lessons_by_concept(session=session, user=user).items()
        if links
    }
    situation = Situation(mastery=known, lessons=lessons, review_due=review_due)
    if graded.source == "practice" and graded.round_id:
        quiz = practice_store.round_by_id(session, graded.round_id)
        if quiz is not None and quiz.user_id == user.id:
            progress = practice.load_round(session=session, user_id=user.id, round_id=quiz.id)
            situation = _in_round(progress, graded, situation)
    return situation


def _in_round(progress: practice.Progress, graded: Graded, situation: Situation) -> Situation:
    """Where the answer left its practice round: the question answered, the one waiting, and
    an earlier answer of the round that asked for more than its next question."""

    def numbered(question: QuizQuestion) -> RoundQuestion:
        return RoundQuestion(
            question_id=question.id,
            number=progress.numbers[question.source_id],
            count=progress.question_count,
            attempt=int(question.payload.get("attempt", 1)),
            bloom_level=str(question.payload.get("bloom_level") or "") or None,
        )

    answered = next((q for q in progress.questions if q.id == graded.question_id), None)
    current = progress.current
    latest = {q.source_id: q for q in progress.questions}  # each question's latest try
    owed = [
        (progress.answers[q.id], q)
        for q in latest.values()
        if q.id in progress.answers
        and (answered is None or q.source_id != answered.source_id)
        and str(progress.answers[q.id].result.get("decision")) in REMEDIAL
    ]
    weakest = min(owed, key=lambda pair: pair[0].score or 0.0, default=None)
    return replace(
        situation,
        answered=numbered(answered) if answered is not None else None,
        round_waiting=numbered(current) if current is not None else None,
        can_ask_again=answered is not None and practice.may_ask_again(progress, answered),
        round_owes=_owed(weakest[0], weakest[1], graded) if weakest is not None else None,
    )


def _owed(answer: QuizAnswer, question: QuizQuestion, graded: Graded) -> Graded:
    result = answer.result
    return Graded(
        concept=graded.concept,
        decision=str(result.get("decision") or "RETRY"),
        score=answer.score or 0.0,
        question=question.text,
        answer=answer.answer,
        misconceptions=tuple(str(m.get("id")) for m in result.get("misconceptions") or ()),
        missing_key_points=tuple(str(p) for p in result.get("missing_key_points") or ()),
        source="practice",
        domain=graded.domain,
        attempt=int(question.payload.get("attempt", 1)),
        bloom_level=str(question.payload.get("bloom_level") or "") or None,
    )


# ---- what the learner does next ---------------------------------------------------------


class NextActivity(BaseModel):
    """`GET /api/v1/me/next`: the planner's latest untaken step, or, with none pending, due
    reviews, the practice round in progress, or the next concept."""

    kind: str = Field(description="retry | tutor | remediate | practice | lesson | review")
    target: dict[str, Any] = Field(
        description="`url` to open, or `start_topic` (+ `domain`, `above`): a practice round "
        "that taking the step starts (`POST /api/v1/me/next/take`)."
    )
    title: str
    reason: str
    decision: str | None = Field(default=None, description="The path decision behind it.")
    step_id: int | None = Field(
        default=None, description="The planned step; null for a default step."
    )


def next_activity(session: Session, *, user: User, now: datetime) -> NextActivity:
    """Plan what is pending, then: the newest untaken step; else due reviews; else the practice
    round in progress; else the first concept not yet mastered."""
    plan_pending(session, user_id=user.id)
    step = record.latest_untaken_step(session, user.id)
    if step is not None and _still_open(session, user, step):
        return _activity(step)
    for quiz in practice.my_rounds(session=session, user_id=user.id):
        if quiz.status == "active":  # never away from a question the learner is in the middle of
            progress = practice.load_round(session=session, user_id=user.id, round_id=quiz.id)
            waiting = progress.current
            if waiting is None:
                continue
            return NextActivity(
                kind="practice",
                target={
                    "url": f"/quiz/{quiz.id}#question",
                    "round_id": quiz.id,
                    "question_id": waiting.id,
                },
                title=f"Continue practising {concept_title(quiz.topic)}: "
                f"{progress.label(waiting)[:1].lower()}{progress.label(waiting)[1:]}",
                reason="Your practice round is waiting where you left it.",
            )
    due = reviews.due_concepts(session=session, user_id=user.id, now=now)
    if due:
        titles = [concept_title(concept) for concept in due]
        return NextActivity(
            kind="review",
            target={"url": "/review"},
            title=f"Review {titles[0]}" + (f" and {len(due) - 1} more" if len(due) > 1 else ""),
            reason="Spaced review: these are due today, before you forget them.",
        )
    known = mastery.mastery_by_concept(session=session, user_id=user.id)
    for kb in shipped_domains().values():
        following = next_step.next_concept(kb, "", known)
        if following is not None:
            return NextActivity(
                kind="practice",
                target={"start_topic": following.id, "domain": kb.name},
                title=f"Start {following.title}",
                reason="The first concept you have not mastered, in prerequisite order.",
            )
    return NextActivity(
        kind="review",
        target={"url": "/review"},
        title="Nothing is due",
        reason="You have mastered every concept; reviews come back when they are due.",
    )


def take(session: Session, *, user: User, step_id: int | None, now: datetime) -> str:
    """Take a step (the one shown, when it is still the learner's and untaken; else the current
    one): mark it taken, start the practice round it names, and return where to go."""
    step = record.step_by_id(session, step_id, lock=True) if step_id is not None else None
    if step is not None and step.user_id != user.id:
        step = None
    if step is not None and step.taken_at is not None and "url" in step.target:
        return str(step.target["url"])  # taken a moment ago (a double click): where that went
    if step is not None and step.taken_at is None and _still_open(session, user, step):
        activity = _activity(step)
    else:
        activity = next_activity(session, user=user, now=now)
        step = record.step_by_id(session, activity.step_id) if activity.step_id else None
    if step is not None:
        step.taken_at = now
    target = activity.target
    if "url" in target:
        return str(target["url"])
    quiz = practice.start_round(
        session=session,
        user_id=user.id,
        domain=str(target["domain"]),
        topic=str(target["start_topic"]),
        above=target.get("above"),
    )
    if step is not None:
        step.target = {**step.target, "url": f"/quiz/{quiz.id}"}
    return f"/quiz/{quiz.id}"


def _still_open(session: Session, user: User, step: NextStep) -> bool:
    """A step that sends the learner to a question of a round holds while that question still
    waits for an answer; once it is answered (the learner went on without Continue) the step
    is spent and no longer shown."""
    round_id, question_id = step.target.get("round_id"), step.target.get("question_id")
    if not isinstance(round_id, str) or not isinstance(question_id, int):
        return True
    quiz = practice_store.round_by_id(session, round_id)
    if quiz is None or quiz.user_id != user.id:
        return False
    progress = practice.load_round(session=session, user_id=user.id, round_id=round_id)
    return any(q.id == question_id for q in progress.questions) and (
        question_id not in progress.answers
    )


def step_for_event(session: Session, *, user_id: int, event_id: int) -> NextActivity | None:
    step = record.step_for_event(session, user_id=user_id, event_id=event_id)
    return _activity(step) if step is not None else None


def _activity(step: NextStep) -> NextActivity:
    return NextActivity(
        kind=step.kind,
        target=dict(step.target),
        title=step.title,
        reason=step.reason,
        decision=step.decision,
        step_id=step.id,
    )
