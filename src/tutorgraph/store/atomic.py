"""Read-modify-write of one learner's state that requests running at once cannot interleave.

Two tabs, a double-clicked Submit or an interview and a practice round together send a learner's
writes at the same moment. Each change below reads the row it changes under a lock held to the
end of the transaction, so the second request reads what the first wrote:
- PostgreSQL locks the row (`SELECT ... FOR UPDATE`) and creates a missing one with
  `INSERT ... ON CONFLICT DO NOTHING`, so a first-insert race never fails on a unique key.
- SQLite has one write lock per database: a transaction takes it before it reads (a no-op write
  starts it), so writers run one after another and wait for each other (busy_timeout).
"""

from __future__ import annotations

import hashlib
from typing import Any, TypeVar

from sqlalchemy import Select, select, text
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from tutorgraph.store.models import Base

Row = TypeVar("Row", bound=Base)


def dialect(session: Session) -> str:
    return session.get_bind().dialect.name


def hold_write_lock(session: Session) -> None:
    """On SQLite, start this transaction's write now (a no-op write takes the database's write
    lock until commit), so what it reads next nobody else changes before it writes. Nothing on
    PostgreSQL, which locks rows instead."""
    if dialect(session) == "sqlite" and not _writing(session):
        session.execute(text("UPDATE users SET id = id WHERE 0"))


def _writing(session: Session) -> bool:
    """Whether this SQLite transaction holds the write lock already: the driver begins a
    transaction only at a transaction's first write."""
    return bool(session.connection().connection.driver_connection.in_transaction)  # type: ignore[union-attr]


def locked(session: Session, statement: Select[Row]) -> Row | None:
    """The row `statement` selects, locked until this transaction ends and read afresh (not
    from the session's identity map, which may hold what another request has since changed)."""
    hold_write_lock(session)
    return session.scalar(statement.with_for_update().execution_options(populate_existing=True))


def insert_missing(
    session: Session, model: type[Row], *, key: dict[str, Any], values: dict[str, Any]
) -> bool:
    """Insert the row of `model` with the unique `key` unless it exists. True when this call
    inserted it; a row inserted at the same moment by another request makes this False, never an
    IntegrityError."""
    insert = postgresql_insert if dialect(session) == "postgresql" else sqlite_insert
    statement = (
        insert(model).values(**key, **values).on_conflict_do_nothing(index_elements=list(key))
    )
    result = session.execute(statement)
    return bool(getattr(result, "rowcount", 0))


def locked_or_created(
    session: Session, model: type[Row], *, key: dict[str, Any], values: dict[str, Any]
) -> Row:
    """The row of `model` with the unique `key`, created with `values` if there is none, locked
    until this transaction ends."""
    insert_missing(session, model, key=key, values=values)
    row = locked(session, select(model).filter_by(**key))
    assert row is not None  # inserted above, or by the request that won the race
    return row


def serialize(session: Session, scope: str, key: str | int) -> None:
    """Make transactions on the same (scope, key), such as one learner's planning, run one after
    another, in any process: a PostgreSQL advisory lock held until this transaction ends; SQLite's
    write lock does it there."""
    if dialect(session) == "postgresql":
        session.execute(
            text("SELECT pg_advisory_xact_lock(:key)"), {"key": advisory_key(f"{scope}:{key}")}
        )
    else:
        hold_write_lock(session)


def advisory_key(name: str) -> int:
    """A stable signed 64-bit PostgreSQL advisory-lock key for a name."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)
