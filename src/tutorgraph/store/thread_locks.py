"""One request at a time advances a checkpoint thread (an assessment, an interview, a build).

Two requests resuming the same LangGraph thread at once would both read its last checkpoint and
fork it: an answer lost, a question asked twice. Within a process an `asyncio.Lock` per thread
orders them; across processes (`tutorgraph serve --workers N`, several hosts) on PostgreSQL a
session-level advisory lock keyed by the thread does, held on a connection of its own for as
long as the step runs and released when that connection closes, so a process that dies frees
its threads. The SQLite default serves one process, where the in-process lock is the whole rule.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio.to_thread
from sqlalchemy import Connection, Engine, create_engine, text
from sqlalchemy.pool import NullPool

from tutorgraph.errors import ConflictError
from tutorgraph.store.atomic import advisory_key

WAIT_SECONDS = 120.0  # how long a request waits for the thread before a 409
POLL_SECONDS = 0.05


class ThreadLocks:
    """`async with locks.hold(thread_id): ...` runs the block alone on that thread."""

    def __init__(self, engine: Engine, *, wait_seconds: float = WAIT_SECONDS) -> None:
        self.wait_seconds = wait_seconds
        self._local: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        self._engine: Engine | None = None
        if engine.dialect.name == "postgresql":
            # not the request pool: a held lock keeps its connection for the whole step
            self._engine = create_engine(engine.url, poolclass=NullPool)

    @asynccontextmanager
    async def hold(self, thread_id: str, *, wait: bool = True) -> AsyncIterator[None]:
        """Hold the thread for the block. Raises ConflictError when another request keeps it
        longer than `wait_seconds` (at once with `wait=False`)."""
        lock = self._local.get(thread_id)
        if lock is None:
            lock = self._local[thread_id] = asyncio.Lock()
        if lock.locked() and not wait:
            raise _busy()
        await lock.acquire()  # this process's requests on the thread, in turn
        deadline = time.monotonic() + (self.wait_seconds if wait else 0.0)
        try:
            if self._engine is None:
                yield
                return
            connection = await self._acquire(self._engine, advisory_key(thread_id), deadline)
            try:
                yield
            finally:
                await anyio.to_thread.run_sync(connection.close)  # the lock goes with it
        finally:
            lock.release()

    def dispose(self) -> None:
        if self._engine is not None:
            self._engine.dispose()

    async def _acquire(self, engine: Engine, key: int, deadline: float) -> Connection:
        connection = await anyio.to_thread.run_sync(engine.connect)
        try:
            while not await anyio.to_thread.run_sync(_try_lock, connection, key):
                if time.monotonic() >= deadline:
                    raise _busy()
                await asyncio.sleep(POLL_SECONDS)
        except BaseException:
            await anyio.to_thread.run_sync(connection.close)
            raise
        return connection


def _try_lock(connection: Connection, key: int) -> bool:
    got = bool(connection.execute(text("SELECT pg_try_advisory_lock(:key)"), {"key": key}).scalar())
    connection.commit()  # a session-level lock outlives the transaction; no idle transaction
    return got


def _busy() -> ConflictError:
    return ConflictError("this is busy with another request; try again in a moment")
