"""Liveness (`/healthz`) and readiness (`/readyz`)."""

from __future__ import annotations

import anyio
import anyio.to_thread
from fastapi import APIRouter
from fastapi.responses import JSONResponse

from tutorgraph import __version__, offload
from tutorgraph.http.deps import DatabaseDep, SettingsDep
from tutorgraph.http.unit_of_work import UnitOfWorkRoute
from tutorgraph.offload import HEALTH_THREADS, thread_limiter
from tutorgraph.store.db import Database

router = APIRouter(route_class=UnitOfWorkRoute, tags=["health"])

DB_PING_SECONDS = 2.0
# Pools every request may need: work waiting for one of their threads means requests queue.
REQUEST_POOLS = ("default", "commit")


async def _database_answers(database: Database) -> bool:
    # Worker threads of its own, so a busy server still answers its health check.
    limiter = thread_limiter("health", HEALTH_THREADS)
    with anyio.move_on_after(DB_PING_SECONDS) as scope:
        await anyio.to_thread.run_sync(database.ping, limiter=limiter, abandon_on_cancel=True)
    return not scope.cancelled_caught


@router.get("/healthz", responses={503: {"description": "The database does not answer."}})
async def healthz(database: DatabaseDep, settings: SettingsDep) -> JSONResponse:
    """Answers 200 when the process is up and the database answers within 2 seconds."""
    body: dict[str, str] = {"version": __version__, "engine": settings.llm.engine}
    if not await _database_answers(database):
        return JSONResponse({"status": "database unavailable", **body}, status_code=503)
    return JSONResponse({"status": "ok", **body})


@router.get(
    "/readyz",
    responses={503: {"description": "Saturated (requests queue for threads) or no database."}},
)
async def readyz(database: DatabaseDep) -> JSONResponse:
    """Whether to send this process more traffic: 503 when the database does not answer or
    work is waiting for the threads every request needs (`default`, `commit`): it is saturated.
    The body shows each pool (threads busy, size, calls waiting) and the code-run and
    upload-reader slots (in use, capacity, refused so far). Full slots alone stay 200: those
    requests are refused with 429 while everything else is served."""
    pools = offload.pool_report()
    slots = {kind: offload.slots(kind).report() for kind in ("sandbox", "extraction")}
    saturated = [kind for kind in REQUEST_POOLS if pools.get(kind, {}).get("waiting", 0) > 0]
    full = [kind for kind, slot in slots.items() if slot["in_use"] >= slot["capacity"]]
    body = {"pools": pools, "slots": slots, "saturated": saturated, "full": full}
    if not await _database_answers(database):
        return JSONResponse({"status": "database unavailable", **body}, status_code=503)
    if saturated:
        return JSONResponse({"status": "saturated", **body}, status_code=503)
    return JSONResponse({"status": "ok", **body})
