"""Phase 7: instructor alerts for critical failures (score below 0.4)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from tutorgraph.errors import NotFoundError
from tutorgraph.store.models import InstructorAlert, utcnow


def raise_alert(
    *, session: Session, user_id: int, concept: str, score: float, question: str
) -> InstructorAlert:
    alert = InstructorAlert(
        user_id=user_id,
        concept=concept,
        score=score,
        question=question[:2000],
        message=f"Critical failure on {concept or 'a question'}: score {score:.2f}",
    )
    session.add(alert)
    session.flush()
    return alert


def list_alerts(*, session: Session, unread_only: bool = False) -> list[InstructorAlert]:
    query = select(InstructorAlert).order_by(InstructorAlert.id.desc())
    if unread_only:
        query = query.where(InstructorAlert.read_at.is_(None))
    return list(session.scalars(query))


def mark_read(*, session: Session, alert_id: int) -> InstructorAlert:
    alert = session.get(InstructorAlert, alert_id)
    if alert is None:
        raise NotFoundError(f"no alert {alert_id}")
    alert.read_at = alert.read_at or utcnow()
    session.flush()
    return alert
