"""Who teaches a course: its owner (or an admin) assigns instructors."""

from __future__ import annotations

from sqlalchemy.orm import Session

from tutorgraph.errors import InputError, NotFoundError, PermissionDeniedError
from tutorgraph.store.cohort import enroll
from tutorgraph.store.courses import TEACHING_ROLES
from tutorgraph.store.models import LearningPath, User
from tutorgraph.store.users import get_user_by_email


def assign_instructor(
    session: Session, *, course: LearningPath, actor: User | None, email: str
) -> User:
    """The course's owner (or an admin; `actor` None: the operator at the terminal) makes a
    user with the instructor role its instructor."""
    if actor is not None and actor.role != "admin" and course.created_by != actor.id:
        raise PermissionDeniedError("only the course's owner or an admin assigns instructors")
    user = get_user_by_email(session=session, email=email)
    if user is None:
        raise NotFoundError(f"no user with the email {email!r}")
    if user.role not in TEACHING_ROLES:
        raise InputError(
            f"email: {email} has the {user.role} role; an admin gives them the instructor role "
            "first (tutorgraph users set-role)"
        )
    enroll(session, course=course, user_id=user.id, role="instructor")
    return user


def join_as_learner(session: Session, *, course: LearningPath, user: User | None) -> None:
    """Studying a course (opening a lesson, accepting a share link) puts the learner in its
    cohort, which its instructors and owner see; the course's own author is never one of its
    learners."""
    if user is not None and course.created_by != user.id:
        enroll(session, course=course, user_id=user.id)
