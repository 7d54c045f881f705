"""Courses, lessons, sharing and progress, with the one visibility rule every reader of a course
or of its knowledge-base domain asks (`may_see`): a public course is visible to everyone; a
private one to its owner, to the users who joined it by its share link, to its instructors and to
admins. To anyone else it does not exist (404, never 403).

Who may make a course public: its owner when they are an instructor or an admin, and any admin
(the moderation path for a learner's course). A learner's course stays private and travels by
its share link; made public, it is listed as its author's course (Community Courses), after the
platform's own."""

from __future__ import annotations

import secrets
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import ColumnElement, Row, Select, or_, select, true
from sqlalchemy.orm import Session

from tutorgraph.errors import InputError, NotFoundError, PermissionDeniedError
from tutorgraph.store import atomic, xapi_outbox
from tutorgraph.store.models import (
    AuthoredDomain,
    CourseEnrollment,
    CourseShare,
    LearningPath,
    Lesson,
    Module,
    User,
    UserLessonProgress,
    utcnow,
)

# my: you own it; shared: you joined it by its link, or you teach it; platform: the operator's
# (seeded, no owner); community: another user's, made public (admins: any user's).
Section = Literal["my", "shared", "platform", "community"]
SECTIONS: tuple[Section, ...] = ("my", "shared", "platform", "community")
TEACHING_ROLES = frozenset({"instructor", "admin"})  # teach courses; may make theirs public


@dataclass(frozen=True)
class VisibleCourse:
    course: LearningPath
    section: Section
    author: str | None  # the owner's name; None for a platform course


def may_see(user: User | None) -> ColumnElement[bool]:
    """The visibility rule, as a condition on LearningPath: public, or the user owns it, joined
    it by its share link, teaches it (an instructor enrolled as one), or is an admin."""
    if user is not None and user.role == "admin":
        return true()
    conditions: list[ColumnElement[bool]] = [LearningPath.visibility == "public"]
    if user is not None:
        conditions += [LearningPath.created_by == user.id, LearningPath.id.in_(_joined(user))]
        if user.role in TEACHING_ROLES:
            conditions.append(LearningPath.id.in_(_taught(user)))
    return or_(*conditions)


def _joined(user: User) -> Select[int]:
    return select(CourseShare.learning_path_id).where(CourseShare.user_id == user.id)


def _taught(user: User) -> Select[int]:
    return select(CourseEnrollment.learning_path_id).where(
        CourseEnrollment.user_id == user.id, CourseEnrollment.role == "instructor"
    )


def visible_courses(*, session: Session, user: User | None) -> list[VisibleCourse]:
    """Every course the user may see, by section (my, shared, platform, community), each in
    its order."""
    shared = _shared_ids(session, user)
    rows = session.execute(
        select(LearningPath, User.name)
        .outerjoin(User, User.id == LearningPath.created_by)
        .where(may_see(user))
        .order_by(LearningPath.order_index, LearningPath.title, LearningPath.id)
    ).all()
    found = [
        VisibleCourse(course, _section(course, user, shared), author) for course, author in rows
    ]
    return sorted(found, key=lambda v: SECTIONS.index(v.section))


def section_of(*, session: Session, user: User | None, course: LearningPath) -> Section:
    return _section(course, user, _shared_ids(session, user))


def author_of(*, session: Session, course: LearningPath) -> str | None:
    """The owner's name, shown with the course; None for a platform course."""
    owner = session.get(User, course.created_by) if course.created_by is not None else None
    return owner.name if owner is not None else None


def _section(course: LearningPath, user: User | None, shared: set[int]) -> Section:
    if user is not None and course.created_by == user.id:
        return "my"
    if course.id in shared:
        return "shared"
    if course.created_by is None:
        return "platform"
    return "community"


def _shared_ids(session: Session, user: User | None) -> set[int]:
    """The courses the user joined by a share link or teaches (Shared with Me)."""
    if user is None:
        return set()
    ids = set(session.scalars(_joined(user)))
    if user.role in TEACHING_ROLES:
        ids |= set(session.scalars(_taught(user)))
    return ids


def can_see(*, session: Session, user: User | None, course: LearningPath) -> bool:
    return (
        session.scalar(select(LearningPath.id).where(LearningPath.id == course.id, may_see(user)))
        is not None
    )


def visible_domain_names(*, session: Session, user: User | None) -> set[str]:
    """The knowledge-base domains of the published courses the user may see."""
    return set(session.scalars(_visible_domains(user)))


def domain_visible(*, session: Session, user: User | None, name: str) -> bool:
    """Whether a published course's domain is one the user may see (False for no such one)."""
    found = session.scalar(_visible_domains(user).where(AuthoredDomain.name == name))
    return found is not None


def _visible_domains(user: User | None) -> Select[str]:
    return (
        select(AuthoredDomain.name)
        .join(LearningPath, LearningPath.id == AuthoredDomain.learning_path_id)
        .where(may_see(user))
    )


def get_course(*, session: Session, slug: str, user: User | None) -> LearningPath:
    course = session.scalar(select(LearningPath).where(LearningPath.slug == slug, may_see(user)))
    if course is None:
        raise NotFoundError(f"no course {slug!r}")
    return course


def course_with_slug(*, session: Session, slug: str) -> LearningPath | None:
    """The course with this slug, whoever may see it (a publisher checks it is theirs)."""
    return session.scalar(select(LearningPath).where(LearningPath.slug == slug))


def owns_a_course(*, session: Session, user_id: int) -> bool:
    """Whether the user published a course (its owner sees who studies it, on Teach)."""
    owned = select(LearningPath.id).where(LearningPath.created_by == user_id).limit(1)
    return session.scalar(owned) is not None


def slug_taken(*, session: Session, slug: str) -> bool:
    return session.scalar(select(LearningPath.id).where(LearningPath.slug == slug)) is not None


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


def lesson_by_id(*, session: Session, lesson_id: int) -> Lesson | None:
    """The lesson, whoever may see it (callers that answer a user check `can_see`)."""
    return session.get(Lesson, lesson_id)


def lessons_with_slug(*, session: Session, slug: str) -> Sequence[Lesson]:
    """Every lesson with this slug, in any course (callers keep those the user may see)."""
    return session.scalars(select(Lesson).where(Lesson.slug == slug)).all()


def course_outline(*, session: Session, course_id: int) -> Sequence[Row[int, str, str, list[Any]]]:
    """(id, slug, title, concepts) of each of the course's lessons, in course order."""
    return session.execute(
        select(Lesson.id, Lesson.slug, Lesson.title, Lesson.concepts)
        .join(Module, Lesson.module_id == Module.id)
        .where(Module.learning_path_id == course_id)
        .order_by(Module.order_index, Lesson.order_index)
    ).all()


def lesson_titles_by_course(
    *, session: Session, course_ids: Collection[int]
) -> Sequence[Row[int, str]]:
    """(course id, lesson title) of each lesson of these courses, in course order."""
    return session.execute(
        select(Module.learning_path_id, Lesson.title)
        .join(Module, Lesson.module_id == Module.id)
        .where(Module.learning_path_id.in_(course_ids))
        .order_by(Module.order_index, Lesson.order_index)
    ).all()


def lesson_titles(*, session: Session, lesson_ids: Collection[int]) -> list[str]:
    """The titles of these lessons, by lesson id."""
    return list(
        session.scalars(select(Lesson.title).where(Lesson.id.in_(lesson_ids)).order_by(Lesson.id))
    )


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
    """Make a course public or private: its owner or an admin; public only by an owner who is
    an instructor or an admin (a learner asks an admin, who may publish any course)."""
    _owned(course, user)
    if visibility not in ("public", "private"):
        raise InputError("visibility: must be public or private")
    if visibility == "public" and not may_publish(course=course, user=user):
        raise PermissionDeniedError(
            "only instructors and admins make a course public; share yours by its link, or "
            "ask an admin to publish it"
        )
    course.visibility = visibility
    session.flush()


def may_publish(*, course: LearningPath, user: User) -> bool:
    """Whether the user may make the course public: an admin, or its owner with a teaching
    role."""
    return user.role == "admin" or (course.created_by == user.id and user.role in TEACHING_ROLES)


def join_by_token(*, session: Session, token: str, user: User) -> LearningPath:
    """Accept a share link: the course becomes visible to the user under Shared with Me."""
    course = session.scalar(select(LearningPath).where(LearningPath.share_token == token))
    if course is None or not token:
        raise NotFoundError("this share link is not valid (it may have been replaced)")
    if course.created_by != user.id:  # idempotent, also from two tabs at once
        key = {"learning_path_id": course.id, "user_id": user.id}
        atomic.insert_missing(session, CourseShare, key=key, values={})
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
    # locked from read to write: a lesson completed from two tabs at once is completed once
    progress = atomic.locked_or_created(
        session,
        UserLessonProgress,
        key={"user_id": user.id, "lesson_id": lesson.id},
        values={"completed": False},
    )
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
