"""`tutorgraph worker`: run course-build jobs from the PostgreSQL job queue (any number of these
processes, on any machine that reaches the database)."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from typing import Annotated

import typer

from tutorgraph.cli._console import console
from tutorgraph.constructor.service import ConstructorService
from tutorgraph.constructor.state import CHECKPOINT_TYPES
from tutorgraph.content.extract import ExtractionLimits
from tutorgraph.engines import build_engine
from tutorgraph.errors import ConfigurationError
from tutorgraph.llm import aclose_model
from tutorgraph.settings import Settings, load_settings
from tutorgraph.store import migrate
from tutorgraph.store.checkpoints import open_checkpointer
from tutorgraph.store.db import Database


def worker(
    concurrency: Annotated[
        int | None, typer.Option(help="Turns run at once (default: jobs.concurrency).")
    ] = None,
) -> None:
    """Work the course-build queue until Ctrl+C (needs PostgreSQL: the SQLite default runs
    builds inside `tutorgraph serve`)."""
    settings = load_settings()
    if not settings.uses_job_queue:
        raise ConfigurationError(
            "there is no job queue to work: course builds use the PostgreSQL queue only with "
            "database_url set to PostgreSQL (and jobs.backend auto or queue)"
        )
    migrate.require_current(settings)
    asyncio.run(_work(settings, concurrency or settings.jobs.concurrency))


async def _work(settings: Settings, concurrency: int) -> None:
    from tutorgraph.constructor.queue import QueueJobs, ensure_schema, queue_app, run_worker

    database = Database(settings)
    model = build_engine(settings)
    app = queue_app(settings.sqlalchemy_url)
    await ensure_schema(app)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    try:
        async with (
            open_checkpointer(settings, allowed_types=CHECKPOINT_TYPES) as checkpointer,
            app.open_async(),
        ):
            service = ConstructorService(
                database=database,
                checkpointer=checkpointer,
                model=model,
                limits=ExtractionLimits(max_bytes=settings.limits.max_upload_bytes),
                jobs=QueueJobs(app),
            )
            console.print(f"worker up: course builds, {concurrency} at a time (Ctrl+C stops)")
            task = asyncio.create_task(run_worker(app, service, concurrency=concurrency))
            await stop.wait()
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
    finally:
        await aclose_model(model)
        database.dispose()
