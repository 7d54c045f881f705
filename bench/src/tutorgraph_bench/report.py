"""BENCHMARKS.md sections: each benchmark replaces only its own block."""

from __future__ import annotations

import platform
from datetime import UTC, datetime
from pathlib import Path

HEADER = (
    "# Benchmarks\n\n"
    "Every number here was produced by the command shown above it, on the machine described.\n"
    "Re-run all of them with `make bench`.\n"
)


def machine() -> str:
    import os

    return f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} CPUs"


def write_section(path: Path, name: str, body: str) -> None:
    """Insert or replace the `name` section of a markdown report."""
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    stamp = datetime.now(UTC).strftime("%Y-%m-%d")
    block = f"{start}\n{body.rstrip()}\n\n_Measured {stamp} on {machine()}._\n{end}"
    text = path.read_text(encoding="utf-8") if path.exists() else HEADER
    if start in text and end in text:
        before, rest = text.split(start, 1)
        _, after = rest.split(end, 1)
        text = before + block + after
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    path.write_text(text, encoding="utf-8")
