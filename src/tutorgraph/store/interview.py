"""Mock interviews as stored: a learner's resumes and the interviews built from them (their
progress is in the LangGraph thread each row names). A terminal user has no account: their rows
have no owner (`user_id` None)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, select
from sqlalchemy.orm import Session

from tutorgraph.store.models import Interview, Resume


def add_resume(
    session: Session,
    *,
    resume_id: str,
    user_id: int | None,
    filename: str,
    text: str,
    structured: Any,
) -> Resume:
    row = Resume(id=resume_id, user_id=user_id, filename=filename, text=text, structured=structured)
    session.add(row)
    session.flush()
    return row


def resume_by_id(session: Session, resume_id: str) -> Resume | None:
    return session.get(Resume, resume_id)


def resumes_of(session: Session, user_id: int | None) -> Sequence[Resume]:
    """The owner's resumes, newest first."""
    return session.scalars(
        select(Resume).where(_owned(Resume, user_id)).order_by(Resume.created_at.desc())
    ).all()


def delete_resume(session: Session, resume: Resume) -> list[str]:
    """Delete the resume and every interview built from it; returns those interviews' thread
    ids, whose checkpoints the caller deletes."""
    threads = list(
        session.scalars(select(Interview.thread_id).where(Interview.resume_id == resume.id))
    )
    for interview in session.scalars(select(Interview).where(Interview.resume_id == resume.id)):
        session.delete(interview)
    session.delete(resume)
    return threads


def add_interview(
    session: Session,
    *,
    interview_id: str,
    user_id: int | None,
    resume_id: str,
    role: str,
    level: str,
    thread_id: str,
) -> Interview:
    row = Interview(
        id=interview_id,
        user_id=user_id,
        resume_id=resume_id,
        role=role,
        level=level,
        status="in_progress",
        thread_id=thread_id,
    )
    session.add(row)
    session.flush()
    return row


def interview_by_id(session: Session, interview_id: str) -> Interview | None:
    return session.get(Interview, interview_id)


def interviews_of(session: Session, user_id: int | None) -> Sequence[Interview]:
    """The owner's interviews, newest first."""
    return session.scalars(
        select(Interview).where(_owned(Interview, user_id)).order_by(Interview.created_at.desc())
    ).all()


def _owned(model: type[Resume] | type[Interview], user_id: int | None) -> ColumnElement[bool]:
    column = model.user_id
    return column.is_(None) if user_id is None else column == user_id
