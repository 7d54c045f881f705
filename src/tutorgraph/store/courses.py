"""Courses, lessons, sharing and progress, with the visibility rules of the spec: a private
course is visible to its owner and to users it was shared with; to anyone else it does not exist."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from tutorgraph.errors import InputError, NotFoundError, PermissionDeniedError
from tutorgraph.store import xapi_outbox
from tutorgraph.store.models import (
    CourseShare,
    LearningPath,
    Lesson,
    Module,
    User,
    UserLessonProgress,
    utcnow,
)

Section = Literal["my", "shared", "platform"]


@dataclass(frozen=True)
class VisibleCourse:
    course: LearningPath
    section: Section


def _shared_ids(session: Session, user: User | None) -> set[int]:
    if user is None:
        return set()
    return set(
        session.scalars(select(CourseShare.learning_path_id).where(CourseShare.user_id == user.id))
    )


def visible_courses(*, session: Session, user: User | None) -> list[VisibleCourse]:
    """Every course the user may see, tagged My Courses / Shared with Me / Platform Courses."""
    shared = _shared_ids(session, user)
    conditions = [LearningPath.visibility == "public"]
    if user is not None:
        conditions.append(LearningPath.created_by == user.id)
        if shared:
            conditions.append(LearningPath.id.in_(shared))
    courses = session.scalars(
        select(LearningPath)
        .where(or_(*conditions))
        .order_by(LearningPath.order_index, LearningPath.title)
    ).all()
    result = []
    for course in courses:
        if user is not None and course.created_by == user.id:
            section: Section = "my"
        elif course.id in shared:
            section = "shared"
        else:
            section = "platform"
        result.append(VisibleCourse(course, section))
    return result


def can_see(*, session: Session, user: User | None, course: LearningPath) -> bool:
    if course.visibility == "public":
        return True
    if user is None:
        return False
    return course.created_by == user.id or course.id in _shared_ids(session, user)


def get_course(*, session: Session, slug: str, user: User | None) -> LearningPath:
    course = session.scalar(select(LearningPath).where(LearningPath.slug == slug))
    if course is None or not can_see(session=session, user=user, course=course):
        raise NotFoundError(f"no course {slug!r}")
    return course


def get_lesson(*, session: Session, lesson_id: int, user: User | None) -> Lesson:
    lesson = session.get(Lesson, lesson_id)
    if lesson is None or not can_see(
        session=session, user=user, course=lesson.module.learning_path
    ):
        raise NotFoundError(f"no lesson {lesson_id}")
    return lesson


def get_lesson_by_slug(*, session: Session, course: LearningPath, slug: str) -> Lesson:
    lesson = session.scalar(
        select(Lesson)
        .join(Module, Lesson.module_id == Module.id)
        .where(Module.learning_path_id == course.id, Lesson.slug == slug)
    )
    if lesson is None:
        raise NotFoundError(f"no lesson {slug!r} in course {course.slug!r}")
    return lesson


def course_lessons(course: LearningPath) -> list[Lesson]:
    return [lesson for module in course.modules for lesson in module.lessons]


def course_concepts(course: LearningPath) -> tuple[str, ...]:
    """The knowledge-base concepts a course's lessons teach, in lesson order."""
    concepts: list[str] = []
    for lesson in course_lessons(course):
        for concept in lesson.concepts or []:
            if str(concept) not in concepts:
                concepts.append(str(concept))
    return tuple(concepts)


def _owned(course: LearningPath, user: User) -> None:
    if course.created_by != user.id and user.role != "admin":
        raise PermissionDeniedError("only the course's owner can change its sharing")


def create_share_token(*, session: Session, course: LearningPath, user: User) -> str:
    """A new share link token for a course. The previous link stops working for anyone who has
    not joined yet; members keep their access until removed."""
    _owned(course, user)
    course.share_token = secrets.token_urlsafe(24)
    session.flush()
    return course.share_token


def revoke_share_token(*, session: Session, course: LearningPath, user: User) -> None:
    """Turn the share link off: nobody new can join with it (members keep their access)."""
    _owned(course, user)
    course.share_token = None
    session.flush()


@dataclass(frozen=True)
class Member:
    user_id: int
    name: str
    joined_at: datetime


def course_members(*, session: Session, course: LearningPath, user: User) -> list[Member]:
    """Who joined the course through a share link, earliest first (owners only)."""
    _owned(course, user)
    rows = session.execute(
        select(CourseShare.user_id, User.name, CourseShare.created_at)
        .join(User, User.id == CourseShare.user_id)
        .where(CourseShare.learning_path_id == course.id)
        .order_by(CourseShare.created_at, CourseShare.id)
    ).all()
    return [Member(user_id, name, joined_at) for user_id, name, joined_at in rows]


def remove_member(*, session: Session, course: LearningPath, user: User, member_id: int) -> None:
    """Take a member's access away (owners only); 404 when they are not a member."""
    _owned(course, user)
    share = session.scalar(
        select(CourseShare).where(
            CourseShare.learning_path_id == course.id, CourseShare.user_id == member_id
        )
    )
    if share is None:
        raise NotFoundError(f"user {member_id} is not a member of course {course.slug!r}")
    session.delete(share)
    session.flush()


def set_visibility(*, session: Session, course: LearningPath, user: User, visibility: str) -> None:
    _owned(course, user)
    if visibility not in ("public", "private"):
        raise InputError("visibility: must be public or private")
    course.visibility = visibility
    session.flush()


def join_by_token(*, session: Session, token: str, user: User) -> LearningPath:
    """Accept a share link: the course becomes visible to the user under Shared with Me."""
    course = session.scalar(select(LearningPath).where(LearningPath.share_token == token))
    if course is None or not token:
        raise NotFoundError("this share link is not valid (it may have been replaced)")
    if course.created_by != user.id and course.id not in _shared_ids(session, user):
        session.add(CourseShare(learning_path_id=course.id, user_id=user.id))
        session.flush()
    return course


def completed_lesson_ids(*, session: Session, user: User | None) -> set[int]:
    if user is None:
        return set()
    return set(
        session.scalars(
            select(UserLessonProgress.lesson_id).where(
                UserLessonProgress.user_id == user.id, UserLessonProgress.completed.is_(True)
            )
        )
    )


def set_progress(
    *, session: Session, user: User, lesson: Lesson, completed: bool
) -> UserLessonProgress:
    progress = session.scalar(
        select(UserLessonProgress).where(
            UserLessonProgress.user_id == user.id, UserLessonProgress.lesson_id == lesson.id
        )
    )
    if progress is None:
        progress = UserLessonProgress(user_id=user.id, lesson_id=lesson.id)
        session.add(progress)
    newly = completed and not progress.completed
    progress.completed = completed
    progress.completed_at = utcnow() if completed else None
    if newly and progress.completed_at is not None:  # an xAPI `completed` statement
        course = lesson.module.learning_path
        xapi_outbox.enqueue(
            session,
            user_id=user.id,
            verb="completed",
            key=f"lesson:{user.id}:{lesson.id}:{progress.completed_at.isoformat()}",
            data={
                "course": course.slug,
                "lesson": lesson.slug,
                "title": lesson.title,
                "at": progress.completed_at.isoformat(),
            },
        )
    session.flush()
    return progress


@dataclass(frozen=True)
class LessonLink:
    """A lesson the user may open, as a link: /learn/{course_slug}/{lesson_slug}."""

    course_slug: str
    lesson_slug: str
    title: str

    @property
    def url(self) -> str:
        return f"/learn/{self.course_slug}/{self.lesson_slug}"


def lessons_by_concept(*, session: Session, user: User | None) -> dict[str, list[LessonLink]]:
    """The lessons the user may see that teach each knowledge-base concept (topic id)."""
    found: dict[str, list[LessonLink]] = {}
    for visible in visible_courses(session=session, user=user):
        for lesson in course_lessons(visible.course):
            for concept in lesson.concepts or []:
                found.setdefault(str(concept), []).append(
                    LessonLink(visible.course.slug, lesson.slug, lesson.title)
                )
    return found
