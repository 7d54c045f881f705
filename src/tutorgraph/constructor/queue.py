"""Course-build turns as jobs of procrastinate, the PostgreSQL-backed task queue: the API
process defers `constructor.turn(session_id)` (the turn itself is stored with the build), and
any worker process (`tutorgraph worker`, or the one each server runs) picks it up. A worker
that dies mid-turn leaves the build `running`; the next start-up runs it again from its
thread's last checkpoint (see `ConstructorService.recover`)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import procrastinate

from tutorgraph.store.checkpoints import postgres_conninfo

if TYPE_CHECKING:
    from tutorgraph.constructor.service import ConstructorService, RunTurn

log = logging.getLogger(__name__)

QUEUE = "constructor"
TASK = "tutorgraph.constructor.turn"
SERVICE_KEY = "constructor_service"


def queue_app(database_url: str) -> procrastinate.App:
    """A procrastinate app on the application database with the constructor's task."""
    app = procrastinate.App(
        connector=procrastinate.PsycopgConnector(conninfo=postgres_conninfo(database_url))
    )

    @app.task(name=TASK, queue=QUEUE, pass_context=True)
    async def run_turn(context: procrastinate.JobContext, session_id: str) -> None:
        service: ConstructorService = context.additional_context[SERVICE_KEY]
        await service.run_stored(session_id)

    return app


async def ensure_schema(app: procrastinate.App) -> bool:
    """Create procrastinate's tables once (they live beside the application's); True when
    they were created now."""
    async with app.open_async():
        connector = app.connector
        exists = await connector.execute_query_one_async(
            "SELECT to_regclass('procrastinate_jobs') IS NOT NULL AS present"
        )
        if exists["present"]:
            return False
        await app.schema_manager.apply_schema_async()
        return True


class QueueJobs:
    """The job runner on PostgreSQL: a turn becomes a procrastinate job."""

    def __init__(self, app: procrastinate.App) -> None:
        self.app = app

    async def submit(self, session_id: str, run: RunTurn) -> None:
        await self.app.configure_task(TASK).defer_async(session_id=session_id)


async def run_worker(
    app: procrastinate.App, service: ConstructorService, *, concurrency: int, wait: bool = True
) -> None:
    """Work the constructor queue until stopped (or, with wait=False, until it is empty)."""
    await app.run_worker_async(
        queues=[QUEUE],
        concurrency=concurrency,
        wait=wait,
        install_signal_handlers=False,
        additional_context={SERVICE_KEY: service},
        delete_jobs="successful",
    )
