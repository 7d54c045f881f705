"""Skill assessments as stored (their progress is in the LangGraph thread each row names). A
terminal assessment has no owner (`user_id` None)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from tutorgraph.store.models import Assessment


def add_assessment(
    session: Session,
    *,
    assessment_id: str,
    user_id: int | None,
    domain: str,
    target_level: str,
    thread_id: str,
) -> Assessment:
    row = Assessment(
        id=assessment_id,
        user_id=user_id,
        domain=domain,
        target_level=target_level,
        status="in_progress",
        thread_id=thread_id,
    )
    session.add(row)
    session.flush()
    return row


def assessment_by_id(session: Session, assessment_id: str) -> Assessment | None:
    return session.get(Assessment, assessment_id)


def assessments_of(session: Session, user_id: int | None) -> Sequence[Assessment]:
    """The owner's assessments, newest first."""
    return session.scalars(
        select(Assessment)
        .where(Assessment.user_id.is_(None) if user_id is None else Assessment.user_id == user_id)
        .order_by(Assessment.created_at.desc())
    ).all()
