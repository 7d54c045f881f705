"""Liveness and readiness."""

from __future__ import annotations

from fastapi import APIRouter
from sqlalchemy import text

from tutorgraph import __version__
from tutorgraph.api.deps import DatabaseDep, SettingsDep

router = APIRouter(tags=["health"])


@router.get("/healthz")
def healthz(database: DatabaseDep, settings: SettingsDep) -> dict[str, str]:
    """Answers 200 when the process is up and the database answers."""
    with database.engine.connect() as connection:
        connection.execute(text("SELECT 1"))
    return {"status": "ok", "version": __version__, "engine": settings.llm.engine}
