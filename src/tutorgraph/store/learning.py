"""A learner's learning record as stored: graded-answer events (the planner's outbox and the
history mastery refits learn from), the alerts a critical failure raises, the next steps the
planner decided, and the FSRS review card of each concept."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Row, func, select, update
from sqlalchemy.orm import Session

from tutorgraph.store import atomic
from tutorgraph.store.models import ConceptReview, EvaluationEvent, InstructorAlert, NextStep

# ---- graded-answer events -----------------------------------------------------------------------


def add_event(
    session: Session,
    *,
    user_id: int,
    concept: str,
    score: float,
    decision: str,
    payload: dict[str, Any],
) -> EvaluationEvent:
    """Store one graded answer in the caller's transaction, flushed so its id is known."""
    event = EvaluationEvent(
        user_id=user_id, concept=concept, score=score, decision=decision, payload=payload
    )
    session.add(event)
    session.flush()
    return event


def unplanned_event_ids(session: Session, *, user_id: int | None, limit: int) -> list[int]:
    """The ids of the events the planner has not acted on (one learner's, or everyone's),
    oldest first, at most `limit`."""
    query = select(EvaluationEvent.id).where(EvaluationEvent.planned_at.is_(None))
    if user_id is not None:
        query = query.where(EvaluationEvent.user_id == user_id)
    return list(session.scalars(query.order_by(EvaluationEvent.id).limit(limit)))


def event_by_id(session: Session, event_id: int, *, lock: bool = False) -> EvaluationEvent | None:
    """The event; with `lock`, locked until the transaction ends and read afresh."""
    if lock:
        return atomic.locked(session, select(EvaluationEvent).where(EvaluationEvent.id == event_id))
    return session.get(EvaluationEvent, event_id)


def answer_scores(session: Session) -> Sequence[Row[str, int | None, float]]:
    """(concept, learner, score) of every graded answer on a concept by a learner, in the order
    they were given."""
    return session.execute(
        select(EvaluationEvent.concept, EvaluationEvent.user_id, EvaluationEvent.score)
        .where(EvaluationEvent.concept != "", EvaluationEvent.user_id.is_not(None))
        .order_by(EvaluationEvent.id)
    ).all()


def newest_event_at(session: Session) -> datetime | None:
    return session.scalar(select(func.max(EvaluationEvent.created_at)))


def events_of(session: Session, user_id: int) -> Sequence[EvaluationEvent]:
    """Every graded answer of the learner, oldest first."""
    return session.scalars(
        select(EvaluationEvent)
        .where(EvaluationEvent.user_id == user_id)
        .order_by(EvaluationEvent.id)
    ).all()


# ---- alerts -------------------------------------------------------------------------------------


def add_alert(
    session: Session,
    *,
    user_id: int,
    concept: str,
    score: float,
    question: str,
    answer: str,
    message: str,
) -> InstructorAlert:
    alert = InstructorAlert(
        user_id=user_id,
        concept=concept,
        score=score,
        question=question,
        answer=answer,
        message=message,
    )
    session.add(alert)
    session.flush()
    return alert


# ---- next steps ---------------------------------------------------------------------------------


def retire_untaken_steps(session: Session, *, user_id: int, at: datetime) -> None:
    """Mark the learner's steps not taken yet as taken at `at` (a newer step replaces them)."""
    session.execute(
        update(NextStep)
        .where(NextStep.user_id == user_id, NextStep.taken_at.is_(None))
        .values(taken_at=at)
    )


def add_step(
    session: Session,
    *,
    user_id: int,
    event_id: int,
    decision: str,
    kind: str,
    title: str,
    reason: str,
    target: dict[str, Any],
) -> None:
    session.add(
        NextStep(
            user_id=user_id,
            event_id=event_id,
            decision=decision,
            kind=kind,
            title=title,
            reason=reason,
            target=target,
        )
    )


def latest_untaken_step(session: Session, user_id: int) -> NextStep | None:
    return session.scalar(
        select(NextStep)
        .where(NextStep.user_id == user_id, NextStep.taken_at.is_(None))
        .order_by(NextStep.id.desc())
        .limit(1)
    )


def step_by_id(session: Session, step_id: int, *, lock: bool = False) -> NextStep | None:
    """The step; with `lock`, locked until the transaction ends and read afresh."""
    if lock:
        return atomic.locked(session, select(NextStep).where(NextStep.id == step_id))
    return session.get(NextStep, step_id)


def step_for_event(session: Session, *, user_id: int, event_id: int) -> NextStep | None:
    return session.scalar(
        select(NextStep).where(NextStep.event_id == event_id, NextStep.user_id == user_id)
    )


# ---- review cards -------------------------------------------------------------------------------


def review_card_locked(
    session: Session, *, user_id: int, concept: str, due: datetime
) -> ConceptReview:
    """The learner's review card for the concept, created empty (due at `due`) if there is
    none, locked until the transaction ends."""
    return atomic.locked_or_created(
        session,
        ConceptReview,
        key={"user_id": user_id, "concept": concept},
        values={"card": {}, "due": due, "reviews": 0, "lapses": 0},
    )


def add_review_card(
    session: Session, *, user_id: int, concept: str, card: Mapping[str, object], due: datetime
) -> ConceptReview | None:
    """A new card for the concept; None (nothing written) when the learner has one already."""
    values: dict[str, Any] = {"card": card, "due": due, "reviews": 0, "lapses": 0}
    key = {"user_id": user_id, "concept": concept}
    if not atomic.insert_missing(session, ConceptReview, key=key, values=values):
        return None
    return session.scalar(select(ConceptReview).filter_by(**key))


def review_cards(session: Session, user_id: int) -> Sequence[ConceptReview]:
    """The learner's cards, soonest due first."""
    return session.scalars(
        select(ConceptReview)
        .where(ConceptReview.user_id == user_id)
        .order_by(ConceptReview.due, ConceptReview.concept)
    ).all()
