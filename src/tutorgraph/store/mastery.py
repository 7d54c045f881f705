"""Mastery as stored: each learner's two estimates per concept (ConceptMastery) and the BKT
parameters fitted per concept from stored answers (ConceptBKTParams)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tutorgraph.store import atomic
from tutorgraph.store.models import ConceptBKTParams, ConceptMastery


def mastery_row(session: Session, *, user_id: int, concept: str) -> ConceptMastery | None:
    return session.scalar(
        select(ConceptMastery).where(
            ConceptMastery.user_id == user_id, ConceptMastery.concept == concept
        )
    )


def mastery_row_locked(
    session: Session, *, user_id: int, concept: str, initial: dict[str, Any]
) -> ConceptMastery:
    """The learner's row for the concept, created with `initial` if there is none, locked
    until the transaction ends."""
    return atomic.locked_or_created(
        session, ConceptMastery, key={"user_id": user_id, "concept": concept}, values=initial
    )


def mastery_rows(session: Session, user_id: int) -> list[ConceptMastery]:
    """The learner's rows, by concept."""
    return list(
        session.scalars(
            select(ConceptMastery)
            .where(ConceptMastery.user_id == user_id)
            .order_by(ConceptMastery.concept)
        )
    )


def fitted_params(session: Session, concept: str) -> ConceptBKTParams | None:
    return session.get(ConceptBKTParams, concept)


def save_fitted_params(
    session: Session,
    *,
    concept: str,
    p_init: float,
    p_learn: float,
    p_guess: float,
    p_slip: float,
    p_forget: float,
    observations: int,
    fitted_at: datetime,
) -> None:
    """Create or replace a concept's fitted parameters (written at the caller's next flush)."""
    row = session.get(ConceptBKTParams, concept) or ConceptBKTParams(concept=concept)
    row.p_init, row.p_learn = p_init, p_learn
    row.p_guess, row.p_slip, row.p_forget = p_guess, p_slip, p_forget
    row.observations, row.fitted_at = observations, fitted_at
    session.add(row)


def last_fit(session: Session) -> datetime | None:
    """When parameters were last fitted (None: never)."""
    return session.scalar(select(func.max(ConceptBKTParams.fitted_at)))
