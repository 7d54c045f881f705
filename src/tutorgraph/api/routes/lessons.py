"""Lessons and the learner's progress on them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field

from tutorgraph import instructor
from tutorgraph.http.deps import CurrentUser, OptionalUser, SessionDep
from tutorgraph.http.unit_of_work import UnitOfWorkRoute
from tutorgraph.ids import DbId
from tutorgraph.store import courses

router = APIRouter(route_class=UnitOfWorkRoute, prefix="/lessons", tags=["lessons"])
# what a quiz question shows before it is answered: its explanation would give the answer away
_PUBLIC_QUIZ = ("id", "question", "options", "concept")


class LessonOut(BaseModel):
    id: int
    slug: str
    title: str
    course: str
    module: str
    summary: str
    content: str
    concepts: list[str]
    sources: list[str]
    quiz: list[dict[str, Any]] = Field(description="id, question, options, concept: no answer")
    has_reference_kb: bool
    completed: bool
    previous_id: int | None
    next_id: int | None


class ProgressIn(BaseModel):
    completed: bool = True


class ProgressOut(BaseModel):
    lesson_id: int
    completed: bool
    completed_at: datetime | None


@router.get("/{lesson_id}")
def get_lesson(lesson_id: DbId, session: SessionDep, user: OptionalUser) -> LessonOut:
    lesson = courses.get_lesson(session=session, lesson_id=lesson_id, user=user)
    course = lesson.module.learning_path
    instructor.join_as_learner(session, course=course, user=user)
    ordered = courses.course_lessons(course)
    position = [item.id for item in ordered].index(lesson.id)
    done = courses.completed_lesson_ids(session=session, user=user)
    return LessonOut(
        id=lesson.id,
        slug=lesson.slug,
        title=lesson.title,
        course=course.slug,
        module=lesson.module.title,
        summary=lesson.summary,
        content=lesson.content,
        concepts=list(lesson.concepts),
        sources=list(lesson.sources_used),
        quiz=[{k: v for k, v in q.items() if k in _PUBLIC_QUIZ} for q in lesson.quiz],
        has_reference_kb=bool(lesson.reference_kb),
        completed=lesson.id in done,
        previous_id=ordered[position - 1].id if position > 0 else None,
        next_id=ordered[position + 1].id if position + 1 < len(ordered) else None,
    )


@router.put("/{lesson_id}/progress")
def set_progress(
    lesson_id: DbId, body: ProgressIn, session: SessionDep, user: CurrentUser
) -> ProgressOut:
    """Mark a lesson complete (or not complete again)."""
    lesson = courses.get_lesson(session=session, lesson_id=lesson_id, user=user)
    progress = courses.set_progress(
        session=session, user=user, lesson=lesson, completed=body.completed
    )
    return ProgressOut(
        lesson_id=lesson.id, completed=progress.completed, completed_at=progress.completed_at
    )
