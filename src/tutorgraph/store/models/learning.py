"""A learner's learning record: graded-answer events, mastery, review cards, the planner's
next steps and the alerts instructors handle."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from tutorgraph.store.models.base import Base, utcnow


class EvaluationEvent(Base):
    """A stored EVALUATION_COMPLETED event: the answer history mastery refits learn from."""

    __tablename__ = "evaluation_events"
    __table_args__ = (Index("ix_evaluation_events_concept_user", "concept", "user_id", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    concept: Mapped[str] = mapped_column(String(200), default="")
    score: Mapped[float] = mapped_column(Float)
    decision: Mapped[str] = mapped_column(String(20))
    payload: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # The event row is the path planner's outbox: set once the planner has acted on it.
    planned_at: Mapped[datetime | None] = mapped_column(index=True)


class ConceptMastery(Base):
    """A learner's mastery of one concept, tracked two ways side by side."""

    __tablename__ = "concept_mastery"
    __table_args__ = (UniqueConstraint("user_id", "concept"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    concept: Mapped[str] = mapped_column(String(200))
    wma: Mapped[float] = mapped_column(Float)
    bkt: Mapped[float] = mapped_column(Float)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class ConceptBKTParams(Base):
    """Per-concept BKT parameters refitted from stored answers (`tutorgraph mastery fit`)."""

    __tablename__ = "concept_bkt_params"

    concept: Mapped[str] = mapped_column(String(200), primary_key=True)
    p_init: Mapped[float] = mapped_column(Float)
    p_learn: Mapped[float] = mapped_column(Float)
    p_guess: Mapped[float] = mapped_column(Float)
    p_slip: Mapped[float] = mapped_column(Float)
    p_forget: Mapped[float] = mapped_column(Float, default=0.0)
    observations: Mapped[int] = mapped_column(Integer, default=0)
    fitted_at: Mapped[datetime] = mapped_column(default=utcnow)


class ConceptReview(Base):
    """A learner's FSRS card for one concept: every graded answer on it is a review."""

    __tablename__ = "concept_reviews"
    __table_args__ = (UniqueConstraint("user_id", "concept"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    concept: Mapped[str] = mapped_column(String(200))
    card: Mapped[dict[str, Any]] = mapped_column(default=dict)  # fsrs.Card.to_dict()
    due: Mapped[datetime] = mapped_column(index=True)
    reviews: Mapped[int] = mapped_column(Integer, default=0)
    lapses: Mapped[int] = mapped_column(Integer, default=0)
    last_rating: Mapped[int | None] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class NextStep(Base):
    """What the path planner decided a learner does next after one graded answer."""

    __tablename__ = "next_steps"
    __table_args__ = (Index("ix_next_steps_user_taken", "user_id", "taken_at", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    # One step per event: a second planner run on the same event fails on this key.
    event_id: Mapped[int] = mapped_column(
        ForeignKey("evaluation_events.id", ondelete="CASCADE"), unique=True
    )
    decision: Mapped[str] = mapped_column(String(20))
    kind: Mapped[str] = mapped_column(String(20))
    title: Mapped[str] = mapped_column(String(300))
    reason: Mapped[str] = mapped_column(Text, default="")
    target: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    taken_at: Mapped[datetime | None] = mapped_column()


class InstructorAlert(Base):
    """Raised when a learner's answer scores below the alert threshold."""

    __tablename__ = "instructor_alerts"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    concept: Mapped[str] = mapped_column(String(200), default="")
    score: Mapped[float] = mapped_column(Float)
    question: Mapped[str] = mapped_column(Text, default="")
    message: Mapped[str] = mapped_column(Text, default="")
    answer: Mapped[str] = mapped_column(Text, default="", server_default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    read_at: Mapped[datetime | None] = mapped_column()  # handled by an instructor
    handled_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
