"""The scheduled mastery refit: the server refits BKT from stored answers on its own when
`mastery.refit_every_hours` have passed since the last fit and new answers arrived. Every process
may check; a refit that two run at once writes the same rows twice, which is harmless."""

from __future__ import annotations

import asyncio
import logging

import anyio.to_thread

from tutorgraph.learner_model.refit import RefitReport, refit_concepts, refit_due
from tutorgraph.settings import MasterySettings
from tutorgraph.store.db import Database
from tutorgraph.store.models import utcnow

log = logging.getLogger(__name__)

CHECK_SECONDS = 600.0


def refit(database: Database, mastery: MasterySettings) -> RefitReport:
    """Refit now (on demand: the CLI, the Teach page)."""
    with database.session() as session:
        return refit_concepts(
            session=session, min_observations=mastery.min_observations, model=mastery.model
        )


def refit_if_due(database: Database, mastery: MasterySettings) -> RefitReport | None:
    with database.session() as session:
        due = refit_due(session=session, every_hours=mastery.refit_every_hours, now=utcnow())
    if not due:
        return None
    report = refit(database, mastery)
    log.info(
        "scheduled mastery refit: %s for %d concept(s) (%s)",
        report.model,
        len(report.fitted),
        report.reason,
    )
    return report


async def refit_periodically(
    database: Database, mastery: MasterySettings, *, check_seconds: float = CHECK_SECONDS
) -> None:
    """Check every `check_seconds` until cancelled; a failed refit is logged, never fatal."""
    while True:
        await asyncio.sleep(check_seconds)
        try:
            await anyio.to_thread.run_sync(refit_if_due, database, mastery)
        except Exception:
            log.exception("scheduled mastery refit failed; it is tried again later")
