"""The instructor's view of a course's cohort: mastery per concept, common misconceptions with
example answers, open alerts, and a CSV export.

Scope is the privacy rule, decided in one place (`Scope`): an instructor sees a learner's data
only for a course they teach (an `instructor` enrollment; admins teach every course), only for
learners enrolled in it, and only on the concepts its lessons teach. A learner enrolled in two
courses is seen by each course's instructors on that course's concepts alone."""

from __future__ import annotations

import csv
import io
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy import ColumnElement, select
from sqlalchemy.orm import Session

from tutorgraph.errors import InputError, NotFoundError, PermissionDeniedError
from tutorgraph.grading.alerts import ALERT_TEXT_CHARS
from tutorgraph.knowledge import VisibleKnowledge, visible_knowledge
from tutorgraph.store import atomic
from tutorgraph.store.courses import TEACHING_ROLES, course_concepts
from tutorgraph.store.models import (
    ConceptMastery,
    CourseEnrollment,
    EvaluationEvent,
    InstructorAlert,
    LearningPath,
    User,
    utcnow,
)
from tutorgraph.store.users import get_user_by_email

BUCKETS = 5  # mastery distribution: 0-20%, 20-40%, ... 80-100%
TOP_MISCONCEPTIONS = 10
EXAMPLES = 3
EXAMPLE_CHARS = 300


# ---- enrollment ---------------------------------------------------------------------------


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


# ---- scope ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scope:
    """What one instructor may see of one course."""

    course: LearningPath
    learner_ids: frozenset[int]
    concepts: tuple[str, ...]  # in lesson order
    knowledge: VisibleKnowledge  # the domains the instructor may see: titles, misconceptions

    @property
    def empty(self) -> bool:
        return not self.learner_ids or not self.concepts

    def includes(self, user_id: int, concept: str) -> bool:
        return user_id in self.learner_ids and concept in self.concepts

    def covers(self, user_id: Any, concept: Any) -> list[ColumnElement[bool]]:
        """The filter on a learner-and-concept table: this course's learners, its concepts."""
        return [user_id.in_(self.learner_ids), concept.in_(self.concepts)]


def taught_courses(session: Session, *, user: User) -> list[LearningPath]:
    if user.role not in TEACHING_ROLES:
        return []
    query = select(LearningPath).order_by(LearningPath.order_index, LearningPath.title)
    if user.role != "admin":
        query = query.join(
            CourseEnrollment, CourseEnrollment.learning_path_id == LearningPath.id
        ).where(CourseEnrollment.user_id == user.id, CourseEnrollment.role == "instructor")
    return list(session.scalars(query))


def scope_of(session: Session, *, user: User, slug: str) -> Scope:
    """The course's scope for this instructor; a course they do not teach does not exist."""
    course = next((c for c in taught_courses(session, user=user) if c.slug == slug), None)
    if course is None:
        raise NotFoundError(f"you teach no course {slug!r}")
    return _scope(session, course, visible_knowledge(session=session, user=user))


def _scope(session: Session, course: LearningPath, knowledge: VisibleKnowledge) -> Scope:
    learners = frozenset(
        session.scalars(
            select(CourseEnrollment.user_id).where(
                CourseEnrollment.learning_path_id == course.id,
                CourseEnrollment.role == "learner",
            )
        )
    )
    return Scope(course, learners, course_concepts(course), knowledge)


def scopes(session: Session, *, user: User) -> list[Scope]:
    knowledge = visible_knowledge(session=session, user=user)
    return [_scope(session, course, knowledge) for course in taught_courses(session, user=user)]


# ---- alerts ---------------------------------------------------------------------------------


class AlertView(BaseModel):
    """An alert as an instructor sees it (`GET /api/v1/alerts`)."""

    id: int
    course: str = Field(description="The course whose instructor sees it.")
    learner: str
    concept: str
    concept_title: str
    score: float
    question: str
    answer: str
    created_at: datetime
    handled_at: datetime | None


def _view(alert: InstructorAlert, learner: str, scope: Scope) -> AlertView:
    return AlertView(
        id=alert.id,
        course=scope.course.slug,
        learner=learner,
        concept=alert.concept,
        concept_title=scope.knowledge.concept_title(alert.concept),
        score=alert.score,
        question=alert.question,
        answer=alert.answer,
        created_at=alert.created_at,
        handled_at=alert.read_at,
    )


def alerts(session: Session, *, scope: Scope, open_only: bool = True) -> list[AlertView]:
    if scope.empty:
        return []
    query = (
        select(InstructorAlert, User.name)
        .join(User, User.id == InstructorAlert.user_id)
        .where(
            *scope.covers(InstructorAlert.user_id, InstructorAlert.concept),
        )
        .order_by(InstructorAlert.id.desc())
    )
    if open_only:
        query = query.where(InstructorAlert.read_at.is_(None))
    return [_view(alert, name, scope) for alert, name in session.execute(query)]


def visible_alerts(session: Session, *, user: User, open_only: bool) -> list[AlertView]:
    """Every alert this instructor may see, across the courses they teach (each once)."""
    seen: set[int] = set()
    found = []
    for scope in scopes(session, user=user):
        for alert in alerts(session, scope=scope, open_only=open_only):
            if alert.id not in seen:
                seen.add(alert.id)
                found.append(alert)
    return sorted(found, key=lambda a: -a.id)


def handle_alert(session: Session, *, user: User, alert_id: int) -> AlertView:
    """Mark an alert handled; one outside the instructor's courses does not exist for them."""
    alert = session.get(InstructorAlert, alert_id)
    scope = next(
        (
            s
            for s in scopes(session, user=user)
            if alert is not None and s.includes(alert.user_id, alert.concept)
        ),
        None,
    )
    if alert is None or scope is None:
        raise NotFoundError(f"no alert {alert_id}")
    if alert.read_at is None:
        alert.read_at, alert.handled_by = utcnow(), user.id
        session.flush()
    learner = session.get(User, alert.user_id)
    return _view(alert, learner.name if learner else "", scope)


# ---- the dashboard --------------------------------------------------------------------------


class ConceptCohort(BaseModel):
    concept: str
    title: str
    learners: int = Field(default=0, description="Learners with a mastery estimate on it.")
    mean: float | None = None
    buckets: list[int] = Field(
        default_factory=lambda: [0] * BUCKETS,
        description="Learners per mastery band: 0-20%, ..., 80-100%.",
    )


class Example(BaseModel):
    learner: str
    answer: str  # their words


class MisconceptionCohort(BaseModel):
    id: str
    concept: str
    description: str
    answers: int
    learners: int
    examples: list[Example]


class Dashboard(BaseModel):
    """A course's cohort (`GET /api/v1/teach/courses/{slug}`)."""

    course: str
    title: str
    learners: int
    concepts: list[ConceptCohort]
    misconceptions: list[MisconceptionCohort]
    alerts: list[AlertView]
    generated_at: datetime


def dashboard(session: Session, *, scope: Scope) -> Dashboard:
    return Dashboard(
        course=scope.course.slug,
        title=scope.course.title,
        learners=len(scope.learner_ids),
        concepts=_mastery_distribution(session, scope),
        misconceptions=_common_misconceptions(session, scope),
        alerts=alerts(session, scope=scope),
        generated_at=utcnow(),
    )


def _mastery_rows(session: Session, scope: Scope) -> list[ConceptMastery]:
    if scope.empty:
        return []
    return list(
        session.scalars(
            select(ConceptMastery).where(
                *scope.covers(ConceptMastery.user_id, ConceptMastery.concept),
            )
        )
    )


def _mastery_distribution(session: Session, scope: Scope) -> list[ConceptCohort]:
    cohorts = {
        c: ConceptCohort(concept=c, title=scope.knowledge.concept_title(c)) for c in scope.concepts
    }
    totals: dict[str, float] = {}
    for row in _mastery_rows(session, scope):
        cohort = cohorts[row.concept]
        cohort.learners += 1
        cohort.buckets[min(int(row.wma * BUCKETS), BUCKETS - 1)] += 1
        totals[row.concept] = totals.get(row.concept, 0.0) + row.wma
    for concept, cohort in cohorts.items():
        if cohort.learners:
            cohort.mean = round(totals[concept] / cohort.learners, 4)
    return list(cohorts.values())


def _common_misconceptions(session: Session, scope: Scope) -> list[MisconceptionCohort]:
    if scope.empty:
        return []
    rows = session.execute(
        select(EvaluationEvent, User.name)
        .join(User, User.id == EvaluationEvent.user_id)
        .where(
            *scope.covers(EvaluationEvent.user_id, EvaluationEvent.concept),
        )
        .order_by(EvaluationEvent.id.desc())
    )
    found: dict[tuple[str, str], MisconceptionCohort] = {}
    learners: dict[tuple[str, str], set[int]] = {}
    for event, name in rows:
        for misconception in event.payload.get("misconceptions") or []:
            key = (event.concept, str(misconception))
            entry = found.get(key)
            if entry is None:
                entry = found[key] = MisconceptionCohort(
                    id=key[1],
                    concept=key[0],
                    description=scope.knowledge.misconception_description(*key),
                    answers=0,
                    learners=0,
                    examples=[],
                )
                learners[key] = set()
            entry.answers += 1
            learners[key].add(int(event.user_id or 0))
            entry.learners = len(learners[key])
            answer = " ".join(str(event.payload.get("answer") or "").split())
            if answer and len(entry.examples) < EXAMPLES:
                entry.examples.append(Example(learner=name, answer=answer[:EXAMPLE_CHARS]))
    ranked = sorted(found.values(), key=lambda m: (-m.learners, -m.answers, m.id))
    return ranked[:TOP_MISCONCEPTIONS]


def export_csv(session: Session, *, scope: Scope) -> str:
    """One row per learner and concept of the course: mastery, attempts, open alerts."""
    names: dict[int, str] = {
        user_id: name
        for user_id, name in session.execute(
            select(User.id, User.name).where(User.id.in_(scope.learner_ids))
        )
    }
    open_alerts = Counter((a.learner, a.concept) for a in alerts(session, scope=scope))
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        ["learner_id", "learner", "concept", "concept_title", "mastery", "bkt", "answers",
         "open_alerts", "updated_at"]
    )  # fmt: skip
    rows = sorted(_mastery_rows(session, scope), key=lambda r: (r.user_id, r.concept))
    for row in rows:
        name = names.get(row.user_id, "")
        writer.writerow(
            [row.user_id, _cell(name), row.concept, scope.knowledge.concept_title(row.concept),
             f"{row.wma:.4f}", f"{row.bkt:.4f}", row.attempts,
             open_alerts[(name, row.concept)], row.updated_at.isoformat()]
        )  # fmt: skip
    return out.getvalue()


def _cell(text: str) -> str:
    """No spreadsheet formula from a learner's name (CSV injection)."""
    text = text[:ALERT_TEXT_CHARS]
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text
