"""The xAPI outbox: a statement is queued in the same transaction as what it records, and
leaves it once the LRS has it."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tutorgraph.store import atomic
from tutorgraph.store.models import XapiStatement

NAMESPACE = uuid.UUID("6f0c1f8e-3f2a-5c1b-9d3e-7a2b4c5d6e7f")


def statement_id(verb: str, key: str) -> str:
    """The same record (verb and key) always gets the same statement id: an LRS that already
    has it answers 409 or 204, and the outbox never holds it twice."""
    return str(uuid.uuid5(NAMESPACE, f"{verb}:{key}"))


def enqueue(session: Session, *, user_id: int, verb: str, key: str, data: dict[str, Any]) -> None:
    """Queue a statement unless the same record is queued already (also by a request running
    at the same moment: an insert that does nothing on conflict)."""
    atomic.insert_missing(
        session,
        XapiStatement,
        key={"id": statement_id(verb, key)},
        values={"user_id": user_id, "verb": verb, "data": data},
    )


def due_statements(session: Session, *, now: datetime, limit: int) -> list[XapiStatement]:
    """The oldest unsent statements whose next attempt is due, at most `limit`, locked until the
    transaction ends: another process flushing at once sends other statements, not these."""
    return list(
        session.scalars(
            select(XapiStatement)
            .where(XapiStatement.sent_at.is_(None), XapiStatement.next_attempt_at <= now)
            .order_by(XapiStatement.created_at, XapiStatement.id)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
    )


def unsent_count(session: Session) -> int:
    count = session.scalar(
        select(func.count()).select_from(XapiStatement).where(XapiStatement.sent_at.is_(None))
    )
    return int(count or 0)
