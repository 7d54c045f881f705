"""A checkpoint thread is held by one request at a time: in a process (an asyncio lock) and, on
PostgreSQL, across processes (an advisory lock: two `ThreadLocks` stand for two servers)."""

from __future__ import annotations

import asyncio

import pytest

from tutorgraph.errors import ConflictError
from tutorgraph.store.db import Database
from tutorgraph.store.thread_locks import ThreadLocks


async def _order(first: ThreadLocks, second: ThreadLocks, thread: str, other: str) -> list[str]:
    steps: list[str] = []
    held = asyncio.Event()

    async def a() -> None:
        async with first.hold(thread):
            steps.append("a in")
            held.set()
            await asyncio.sleep(0.3)
            steps.append("a out")

    async def b() -> None:
        await held.wait()
        async with second.hold(other):
            steps.append("b in")

    await asyncio.gather(a(), b())
    return steps


def _servers(database: Database) -> tuple[ThreadLocks, ThreadLocks]:
    if database.engine.dialect.name == "sqlite":
        one = ThreadLocks(database.engine)  # SQLite serves one process: its own lock is the rule
        return one, one
    return ThreadLocks(database.engine), ThreadLocks(database.engine)


def test_a_thread_is_held_by_one_request_at_a_time(database: Database) -> None:
    first, second = _servers(database)
    steps = asyncio.run(_order(first, second, "assessment-1", "assessment-1"))
    assert steps == ["a in", "a out", "b in"]
    # another thread is not held up
    assert asyncio.run(_order(first, second, "assessment-1", "assessment-2")) == [
        "a in",
        "b in",
        "a out",
    ]
    first.dispose()
    second.dispose()


def test_a_held_thread_refuses_a_request_that_will_not_wait(database: Database) -> None:
    first, second = _servers(database)
    second.wait_seconds = 0.2

    async def scenario() -> tuple[str, str]:
        async with first.hold("interview-9"):
            with pytest.raises(ConflictError) as now:
                async with second.hold("interview-9", wait=False):
                    pass
            waited = "no wait"
            if second is not first:  # across processes, a waiting request gives up in time
                with pytest.raises(ConflictError):
                    async with second.hold("interview-9"):
                        pass
                waited = "gave up"
        async with second.hold("interview-9", wait=False):  # free again
            pass
        return str(now.value), waited

    message, _ = asyncio.run(scenario())
    assert "try again in a moment" in message
    first.dispose()
    second.dispose()
