"""Blocking work off the event loop, in bounded pools per kind, and admission for the work that
starts processes (interview code runs, upload readers).

Pools. Each kind of blocking work has worker threads of its own (an anyio capacity limiter per
event loop), so one kind piling up never takes the threads another needs:

- `sandbox`: a thread waits on each interview code run; as many as runs are admitted;
- `extraction`: a thread waits on each upload reader process; as many as are admitted, plus a
  few for uploads being refused or queued;
- `cpu`: grading, password hashing, offline model replies: one per core (`run_cpu_bound`);
- `commit` and `health`: the request's commit and `/healthz`'s ping, so neither ever queues
  behind the work above;
- everything else (synchronous routes and dependencies, database reads): anyio's default
  limiter (40 threads).

Admission. Code runs and upload readers start processes that cost memory, so their number is
bounded in this server process before any thread or process is taken (`slots(kind)`): at most
`capacity` at once (`limits.sandbox_runs`, `limits.extraction_processes`; default: the CPU
count) and at most one per owner (a learner). Beyond either, the call is refused at once with
429 (`Busy`), or, for background work that may wait (a course build reading its files), it
waits on its worker thread for a free slot up to a deadline. The counts are per server
process: with `--workers N`, N times as many run on the machine."""

from __future__ import annotations

import asyncio
import functools
import os
import threading
import time
import weakref
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import anyio
import anyio.to_thread

from tutorgraph.errors import RateLimitedError

if TYPE_CHECKING:
    from tutorgraph.settings import LimitSettings

T = TypeVar("T")
P = ParamSpec("P")

CPU_THREADS = max(1, os.cpu_count() or 1)
HEALTH_THREADS = 2
COMMIT_THREADS = 8
EXTRACTION_HEADROOM = 4  # extraction threads beyond the admitted readers (refusing, queueing)
QUEUE_POLL_SECONDS = 0.05
BUSY_RETRY_SECONDS = 2  # the Retry-After of a refused run: about a short run's length

_limiters: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[str, anyio.CapacityLimiter]
] = weakref.WeakKeyDictionary()


# ---- admission --------------------------------------------------------------------------------


class Busy(RateLimitedError):
    """No slot for this run now (HTTP 429): the server's limit, or the owner's one at a time."""


@dataclass(frozen=True)
class _Messages:
    busy: str  # every slot is taken
    yours: str  # this owner already has one


MESSAGES = {
    "sandbox": _Messages(
        busy="the code runner is busy, try again in a moment",
        yours="your previous run is still going; wait for it to finish, then run again",
    ),
    "extraction": _Messages(
        busy="the file reader is busy, try again in a moment",
        yours="your previous file is still being read; wait for it to finish, then upload again",
    ),
}


class Slots:
    """At most `capacity` runs of one kind at once in this process, and one per owner.

    Thread-safe: claimed from the event loop (code runs) or from worker threads alike. An owner
    of None (the command line, a background build) is not counted per owner."""

    def __init__(self, kind: str, capacity: int) -> None:
        self.kind = kind
        self.capacity = capacity
        self.refused = 0  # since the process started, for the readiness report
        self._lock = threading.Lock()
        self._owners: dict[Hashable, int] = {}
        self._in_use = 0
        self._messages = MESSAGES.get(kind, _Messages(f"the {kind} limit is reached", ""))

    @property
    def in_use(self) -> int:
        return self._in_use

    def _try(self, owner: Hashable | None) -> str | None:
        """Take a slot; None when taken, else the refusal's message (nothing taken)."""
        with self._lock:
            if owner is not None and self._owners.get(owner):
                return self._messages.yours
            if self._in_use >= self.capacity:
                return self._messages.busy
            self._in_use += 1
            if owner is not None:
                self._owners[owner] = self._owners.get(owner, 0) + 1
            return None

    def _release(self, owner: Hashable | None) -> None:
        with self._lock:
            self._in_use -= 1
            if owner is not None:
                left = self._owners.get(owner, 1) - 1
                if left:
                    self._owners[owner] = left
                else:
                    self._owners.pop(owner, None)

    def _refuse(self, message: str) -> Busy:
        with self._lock:
            self.refused += 1
        return Busy(message, retry_after=BUSY_RETRY_SECONDS)

    @contextmanager
    def claim(self, owner: Hashable | None = None, *, wait: float = 0.0) -> Iterator[None]:
        """Hold a slot for the block, or raise `Busy`: at once, or (background work on a worker
        thread, never the event loop) after waiting up to `wait` seconds for a free one."""
        deadline = time.monotonic() + wait
        while (refusal := self._try(owner)) is not None:
            if time.monotonic() >= deadline:
                raise self._refuse(refusal)
            time.sleep(QUEUE_POLL_SECONDS)
        try:
            yield
        finally:
            self._release(owner)

    def report(self) -> dict[str, int]:
        return {"in_use": self._in_use, "capacity": self.capacity, "refused": self.refused}


@dataclass(frozen=True)
class ProcessLimits:
    """What `configure` takes from the settings; read by the sandbox and the upload reader."""

    sandbox_runs: int = CPU_THREADS
    extraction_processes: int = CPU_THREADS
    extraction_memory_mb: int = 1024
    sandbox_cgroup: str = ""


_config = ProcessLimits()
_slots: dict[str, Slots] = {}
_slots_lock = threading.Lock()


def configure(limits: LimitSettings) -> ProcessLimits:
    """Apply `limits.sandbox_runs`, `extraction_processes`, `extraction_memory_mb` and
    `sandbox_cgroup` to this process (0 runs or processes: the CPU count)."""
    global _config
    _config = ProcessLimits(
        sandbox_runs=limits.sandbox_runs or CPU_THREADS,
        extraction_processes=limits.extraction_processes or CPU_THREADS,
        extraction_memory_mb=limits.extraction_memory_mb,
        sandbox_cgroup=limits.sandbox_cgroup,
    )
    slots("sandbox").capacity = _config.sandbox_runs
    slots("extraction").capacity = _config.extraction_processes
    return _config


def process_limits() -> ProcessLimits:
    return _config


def slots(kind: str) -> Slots:
    """This process's admission for `kind` ("sandbox", "extraction")."""
    with _slots_lock:
        if kind not in _slots:
            capacity = {"sandbox": _config.sandbox_runs}.get(kind, _config.extraction_processes)
            _slots[kind] = Slots(kind, capacity)
        return _slots[kind]


# ---- pools ------------------------------------------------------------------------------------


def _pool_size(kind: str) -> int:
    if kind == "sandbox":
        return slots("sandbox").capacity
    if kind == "extraction":
        return slots("extraction").capacity + EXTRACTION_HEADROOM
    return {"cpu": CPU_THREADS, "health": HEALTH_THREADS, "commit": COMMIT_THREADS}[kind]


def thread_limiter(kind: str, size: int | None = None) -> anyio.CapacityLimiter:
    """The running loop's limiter named `kind` (limiters belong to one event loop); the pools
    above know their size, others give it."""
    per_loop = _limiters.setdefault(asyncio.get_running_loop(), {})
    wanted = size if size is not None else _pool_size(kind)
    limiter = per_loop.get(kind)
    if limiter is None:
        limiter = per_loop[kind] = anyio.CapacityLimiter(wanted)
    elif size is None and limiter.total_tokens != wanted:
        limiter.total_tokens = wanted  # the settings changed (a new app in this process)
    return limiter


async def run_in_pool(kind: str, func: Callable[..., T], *args: Any) -> T:
    """`func(*args)` on a worker thread of the `kind` pool (waits for a free one)."""
    return await anyio.to_thread.run_sync(func, *args, limiter=thread_limiter(kind))


async def run_blocking(func: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """`func(*args, **kwargs)` on the default worker threads (anyio's, which synchronous routes
    use and `/readyz` watches), never asyncio's own executor: that is a pool of its own,
    min(32, cores + 4) threads, whose queue no probe would see."""
    return await anyio.to_thread.run_sync(functools.partial(func, *args, **kwargs))


async def run_cpu_bound(func: Callable[..., T], *args: object) -> T:
    """`func(*args)` in a worker thread, at most one per core at a time."""
    return await run_in_pool("cpu", func, *args)


POOLS = ("sandbox", "extraction", "cpu", "commit", "health")


def pool_report() -> dict[str, dict[str, int]]:
    """Each pool of the running loop: threads busy, its size and calls waiting for a thread
    ("default" is anyio's, which synchronous routes and dependencies use)."""
    per_loop = _limiters.get(asyncio.get_running_loop(), {})
    found = {"default": anyio.to_thread.current_default_thread_limiter()}
    found |= {kind: per_loop[kind] for kind in POOLS if kind in per_loop}
    report = {}
    for kind, limiter in found.items():
        report[kind] = {
            "busy": int(limiter.borrowed_tokens),
            "size": int(limiter.total_tokens),
            "waiting": limiter.statistics().tasks_waiting,
        }
    for kind in POOLS:
        if kind not in report and kind in ("sandbox", "extraction", "cpu"):
            report[kind] = {"busy": 0, "size": _pool_size(kind), "waiting": 0}
    return report
