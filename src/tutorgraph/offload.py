"""CPU-bound work off the event loop: password hashing, offline grading, retrieval.

Such work runs in worker threads under one limiter per event loop, sized to the machine's cores,
so a burst of hashes or grades neither blocks the loop (health checks and streams keep answering)
nor takes every worker thread from the requests that only wait on the database."""

from __future__ import annotations

import asyncio
import os
import weakref
from collections.abc import Callable
from typing import TypeVar

import anyio
import anyio.to_thread

T = TypeVar("T")

CPU_THREADS = max(1, os.cpu_count() or 1)
HEALTH_THREADS = 2
COMMIT_THREADS = 8

_limiters: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[str, anyio.CapacityLimiter]
] = weakref.WeakKeyDictionary()


def thread_limiter(kind: str, size: int) -> anyio.CapacityLimiter:
    """The running loop's limiter named `kind` (limiters belong to one event loop)."""
    per_loop = _limiters.setdefault(asyncio.get_running_loop(), {})
    if kind not in per_loop:
        per_loop[kind] = anyio.CapacityLimiter(size)
    return per_loop[kind]


async def run_cpu_bound(func: Callable[..., T], *args: object) -> T:
    """`func(*args)` in a worker thread, at most one per core at a time."""
    return await anyio.to_thread.run_sync(func, *args, limiter=thread_limiter("cpu", CPU_THREADS))
