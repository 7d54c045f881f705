"""Kill tests' plumbing: a child process that runs a service on the durable checkpointer and may
SIGKILL itself mid-step (`--kill-at N`), started from a test and read back by its stdout.

    python -m tests.<area>.crash_child DATA_DIR COMMAND [--kill-at N] [TEXT]
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, NamedTuple

from langgraph.checkpoint.base import BaseCheckpointSaver

from tutorgraph.engines import offline_engine
from tutorgraph.settings import Settings
from tutorgraph.store import migrate
from tutorgraph.store.checkpoints import open_checkpointer
from tutorgraph.store.db import Database

ROOT = Path(__file__).resolve().parents[1]


class ChildArgs(NamedTuple):
    data: Path
    command: str
    kill_at: int | None
    text: str


def parse_child_args(argv: list[str]) -> ChildArgs:
    """DATA_DIR COMMAND [--kill-at N] [TEXT], in any order after the first two."""
    kill = int(argv[argv.index("--kill-at") + 1]) if "--kill-at" in argv else None
    rest = [
        a for i, a in enumerate(argv) if a != "--kill-at" and (i == 0 or argv[i - 1] != "--kill-at")
    ]
    return ChildArgs(Path(rest[0]), rest[1], kill, rest[2] if len(rest) > 2 else "")


@asynccontextmanager
async def durable_store(data: Path) -> AsyncIterator[tuple[Database, BaseCheckpointSaver[str]]]:
    """The child's database (migrated) and durable SQLite checkpointer in `data`, as the server
    opens them; disposed of on the way out."""
    settings = Settings(data_dir=data, environment="development")
    migrate.upgrade(settings)
    database = Database(settings)
    try:
        async with open_checkpointer(settings) as checkpointer:
            yield database, checkpointer
    finally:
        database.dispose()


def run_child(module: str, data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run `python -m module data *args` from the repository root; its output as text."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", module, str(data), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )


class KillingEngine:
    """The offline engine, killing this process (SIGKILL, no cleanup) at the `kill_at`th call of
    `kill_agent`: before the call, or once it has returned with `after`. `record` (for a
    subclass) sees every call that completes."""

    name = "killing"
    supports_tools = False
    can_stream = False

    def __init__(self, kill_agent: str, kill_at: int | None, *, after: bool = False) -> None:
        self.inner = offline_engine()
        self.kill_agent = kill_agent
        self.kill_at = kill_at
        self.after = after
        self.calls = 0

    async def structured(
        self, schema: Any, messages: Any, *, agent: str, inputs: Any = None
    ) -> Any:
        if not self.after:
            self._count(agent)
        out = await self.inner.structured(schema, messages, agent=agent, inputs=inputs)
        if self.after:
            self._count(agent)
        self.record(agent, inputs, out)
        return out

    def stream_chat(self, *args: Any, **kwargs: Any) -> Any:
        return self.inner.stream_chat(*args, **kwargs)

    def record(self, agent: str, inputs: Any, out: Any) -> None:
        """Called after every call that returned (and did not kill)."""

    def _count(self, agent: str) -> None:
        if agent == self.kill_agent:
            self.calls += 1
            if self.calls == self.kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
