"""Kill tests' plumbing: a child process that runs a service on the durable checkpointer and may
SIGKILL itself mid-step (`--kill-at N`), started from a test and read back by its stdout.

    python -m tests.<area>.crash_child DATA_DIR COMMAND [--kill-at N] [TEXT]
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

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
