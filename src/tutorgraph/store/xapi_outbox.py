"""The xAPI outbox: a statement is queued in the same transaction as what it records."""

from __future__ import annotations

import uuid
from typing import Any

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
