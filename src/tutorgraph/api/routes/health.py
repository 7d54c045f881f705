"""Liveness and readiness."""

from __future__ import annotations

import anyio
import anyio.to_thread
from fastapi import APIRouter
from fastapi.responses import JSONResponse

from tutorgraph import __version__
from tutorgraph.api.deps import DatabaseDep, SettingsDep
from tutorgraph.api.unit_of_work import UnitOfWorkRoute
from tutorgraph.offload import HEALTH_THREADS, thread_limiter

router = APIRouter(route_class=UnitOfWorkRoute, tags=["health"])

DB_PING_SECONDS = 2.0


@router.get("/healthz", responses={503: {"description": "The database does not answer."}})
async def healthz(database: DatabaseDep, settings: SettingsDep) -> JSONResponse:
    """Answers 200 when the process is up and the database answers within 2 seconds."""
    body: dict[str, str] = {"version": __version__, "engine": settings.llm.engine}
    # Worker threads of its own, so a busy server still answers its health check.
    limiter = thread_limiter("health", HEALTH_THREADS)
    with anyio.move_on_after(DB_PING_SECONDS) as scope:
        await anyio.to_thread.run_sync(database.ping, limiter=limiter, abandon_on_cancel=True)
    if scope.cancelled_caught:
        return JSONResponse({"status": "database unavailable", **body}, status_code=503)
    return JSONResponse({"status": "ok", **body})
