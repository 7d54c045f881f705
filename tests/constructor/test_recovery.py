"""A process that stops with a build's turn unfinished loses nothing: the next start-up runs the
turn (from its thread's last checkpoint), and publishing twice leaves one course."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from tests.conftest import make_settings
from tests.constructor.sources import FUNCTIONS_MD
from tutorgraph.constructor.service import ConstructorService, InProcessJobs, TurnIn
from tutorgraph.constructor.state import CHECKPOINT_TYPES
from tutorgraph.content.extract import ExtractionLimits
from tutorgraph.engines import offline_engine
from tutorgraph.store import migrate, users
from tutorgraph.store.checkpoints import open_checkpointer
from tutorgraph.store.db import Database
from tutorgraph.store.models import ConstructorSession, LearningPath, User


class DroppedJobs:
    """A job runner whose process dies before running anything it was given."""

    async def submit(
        self, session_id: str, run: Callable[[str], Coroutine[Any, Any, None]]
    ) -> None:
        return None


async def until_idle(service: ConstructorService, session_id: str, user: User) -> str:
    for _ in range(400):
        view = await service.view(session_id=session_id, user=user)
        if view.status != "running":
            return view.phase
        await asyncio.sleep(0.02)
    raise AssertionError("still running")


async def test_a_turn_left_running_is_run_at_the_next_start(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    migrate.upgrade(settings)
    database = Database(settings)
    with database.session() as session:
        user = users.create_user(
            session=session, email="ann@example.org", password="plenty long enough", name="Ann"
        )
        session.expunge(user)

    def service(saver: Any, jobs: Any) -> ConstructorService:
        return ConstructorService(
            database=database,
            checkpointer=saver,
            model=offline_engine(),
            limits=ExtractionLimits(),
            jobs=jobs,
        )

    async with open_checkpointer(settings, allowed_types=CHECKPOINT_TYPES) as saver:
        dying = service(saver, DroppedJobs())
        build = await dying.start(user=user, title="Functions")
        dying.upload(
            session_id=build.session_id, user=user, filename="f.md", data=FUNCTIONS_MD.encode()
        )
        await dying.submit(session_id=build.session_id, user=user, turn=TurnIn(action="ingest"))
        assert (await dying.view(session_id=build.session_id, user=user)).status == "running"

    async with open_checkpointer(settings, allowed_types=CHECKPOINT_TYPES) as saver:
        jobs = InProcessJobs()
        restarted = service(saver, jobs)
        assert await restarted.recover() == 1
        assert await until_idle(restarted, build.session_id, user) == "ingested"
        for action in ("build_structure",):
            await restarted.submit(
                session_id=build.session_id, user=user, turn=TurnIn(action=action)
            )
            await until_idle(restarted, build.session_id, user)
        for turn in (TurnIn(approve=True), TurnIn(action="generate_quiz"), TurnIn(approve=True)):
            await restarted.submit(session_id=build.session_id, user=user, turn=turn)
            await until_idle(restarted, build.session_id, user)
        for _ in range(2):
            await restarted.submit(
                session_id=build.session_id, user=user, turn=TurnIn(action="publish", confirm=True)
            )
            assert await until_idle(restarted, build.session_id, user) == "published"
        await jobs.drain()
    with database.session() as session:
        assert session.scalar(select(func.count()).select_from(LearningPath)) == 1
        row = session.get(ConstructorSession, build.session_id)
        assert row is not None and row.pending_turn is None and row.course_slug == "functions"
    database.dispose()


async def test_a_separate_worker_runs_queued_turns_on_postgresql(
    tmp_path: Path, backend: str
) -> None:
    if backend != "postgres":
        pytest.skip("the job queue is PostgreSQL's")
    from tutorgraph.constructor.queue import QueueJobs, ensure_schema, queue_app, run_worker

    settings = make_settings(tmp_path, backend)
    migrate.upgrade(settings)
    database = Database(settings)
    with database.session() as session:
        user = users.create_user(
            session=session, email="ann@example.org", password="plenty long enough", name="Ann"
        )
        session.expunge(user)
    app = queue_app(settings.sqlalchemy_url)
    assert await ensure_schema(app) is True and await ensure_schema(app) is False
    async with (
        open_checkpointer(settings, allowed_types=CHECKPOINT_TYPES) as saver,
        app.open_async(),
    ):
        service = ConstructorService(
            database=database,
            checkpointer=saver,
            model=offline_engine(),
            limits=ExtractionLimits(),
            jobs=QueueJobs(app),
        )
        build = await service.start(user=user, title="Functions")
        service.upload(
            session_id=build.session_id, user=user, filename="f.md", data=FUNCTIONS_MD.encode()
        )
        await service.submit(session_id=build.session_id, user=user, turn=TurnIn(action="ingest"))
        assert (await service.view(session_id=build.session_id, user=user)).status == "running"
        # A worker process: it runs what is queued, then (wait=False) stops.
        await run_worker(app, service, concurrency=1, wait=False)
        view = await service.view(session_id=build.session_id, user=user)
        assert view.status == "idle" and view.phase == "ingested"
    database.dispose()
