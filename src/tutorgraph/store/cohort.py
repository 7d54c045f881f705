"""A course's cohort as stored: who studies and who teaches it (enrolment), and the part of its
learners' record an instructor reads, always narrowed to the course's learners and concepts."""

from __future__ import annotations

from collections.abc import Collection

from sqlalchemy import Row, select
from sqlalchemy.orm import Session

from tutorgraph.store import atomic
from tutorgraph.store.courses import TEACHING_ROLES
from tutorgraph.store.models import (
    ConceptMastery,
    CourseEnrollment,
    EvaluationEvent,
    InstructorAlert,
    LearningPath,
    User,
)


def enroll(
    session: Session, *, course: LearningPath, user_id: int, role: str = "learner"
) -> CourseEnrollment:
    """Enrol a user (idempotent, also when two requests enrol them at once). An instructor's
    enrollment is never turned into a learner's."""
    key = {"learning_path_id": course.id, "user_id": user_id}
    atomic.insert_missing(session, CourseEnrollment, key=key, values={"role": role})
    row = session.scalar(
        select(CourseEnrollment).filter_by(**key).execution_options(populate_existing=True)
    )
    assert row is not None
    if role == "instructor" and row.role != "instructor":
        row.role = "instructor"
        session.flush()
    return row


def taught_courses(session: Session, *, user: User) -> list[LearningPath]:
    """The courses the user teaches (an instructor enrolment; an admin teaches every course)."""
    if user.role not in TEACHING_ROLES:
        return []
    query = select(LearningPath).order_by(LearningPath.order_index, LearningPath.title)
    if user.role != "admin":
        query = query.join(
            CourseEnrollment, CourseEnrollment.learning_path_id == LearningPath.id
        ).where(CourseEnrollment.user_id == user.id, CourseEnrollment.role == "instructor")
    return list(session.scalars(query))


def learner_ids(session: Session, *, course: LearningPath) -> frozenset[int]:
    """The users enrolled in the course as learners."""
    return frozenset(
        session.scalars(
            select(CourseEnrollment.user_id).where(
                CourseEnrollment.learning_path_id == course.id,
                CourseEnrollment.role == "learner",
            )
        )
    )


def learner_names(session: Session, user_ids: Collection[int]) -> dict[int, str]:
    return {
        user_id: name
        for user_id, name in session.execute(
            select(User.id, User.name).where(User.id.in_(user_ids))
        )
    }


def alerts_with_learners(
    session: Session, *, learners: Collection[int], concepts: Collection[str], open_only: bool
) -> list[Row[InstructorAlert, str]]:
    """The alerts on these learners and concepts with each learner's name, newest first; with
    `open_only`, those no instructor has handled yet."""
    query = (
        select(InstructorAlert, User.name)
        .join(User, User.id == InstructorAlert.user_id)
        .where(InstructorAlert.user_id.in_(learners), InstructorAlert.concept.in_(concepts))
        .order_by(InstructorAlert.id.desc())
    )
    if open_only:
        query = query.where(InstructorAlert.read_at.is_(None))
    return list(session.execute(query))


def alert_by_id(session: Session, alert_id: int) -> InstructorAlert | None:
    return session.get(InstructorAlert, alert_id)


def mastery_rows(
    session: Session, *, learners: Collection[int], concepts: Collection[str]
) -> list[ConceptMastery]:
    """The mastery estimates of these learners on these concepts."""
    return list(
        session.scalars(
            select(ConceptMastery).where(
                ConceptMastery.user_id.in_(learners), ConceptMastery.concept.in_(concepts)
            )
        )
    )


def events_with_learners(
    session: Session, *, learners: Collection[int], concepts: Collection[str]
) -> list[Row[EvaluationEvent, str]]:
    """The graded answers of these learners on these concepts with each learner's name, newest
    first."""
    return list(
        session.execute(
            select(EvaluationEvent, User.name)
            .join(User, User.id == EvaluationEvent.user_id)
            .where(EvaluationEvent.user_id.in_(learners), EvaluationEvent.concept.in_(concepts))
            .order_by(EvaluationEvent.id.desc())
        )
    )
