"""Alerts as an instructor sees and handles them: only those on the learners and concepts of a
course they teach."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from tutorgraph.errors import NotFoundError
from tutorgraph.instructor.scope import Scope, scopes
from tutorgraph.store import cohort
from tutorgraph.store.models import InstructorAlert, User, utcnow
from tutorgraph.store.users import get_user


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
        concept_title=scope.concept_title(alert.concept),
        score=alert.score,
        question=alert.question,
        answer=alert.answer,
        created_at=alert.created_at,
        handled_at=alert.read_at,
    )


def alerts(session: Session, *, scope: Scope, open_only: bool = True) -> list[AlertView]:
    if scope.empty:
        return []
    rows = cohort.alerts_with_learners(
        session, learners=scope.learner_ids, concepts=scope.concepts, open_only=open_only
    )
    return [_view(alert, name, scope) for alert, name in rows]


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
    alert = cohort.alert_by_id(session, alert_id)
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
    learner = get_user(session=session, user_id=alert.user_id)
    return _view(alert, learner.name if learner else "", scope)
