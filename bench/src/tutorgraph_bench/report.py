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


def write_section(path: Path, name: str, body: str, *, after: str | None = None) -> None:
    """Insert or replace the `name` section of a markdown report; a new section goes right
    after the `after` section when the report has it, at the end otherwise."""
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    stamp = datetime.now(UTC).strftime("%Y-%m-%d")
    block = f"{start}\n{body.rstrip()}\n\n_Measured {stamp} on {machine()}._\n{end}"
    text = path.read_text(encoding="utf-8") if path.exists() else HEADER
    anchor = f"<!-- /bench:{after} -->" if after else None
    if start in text and end in text:
        before, rest = text.split(start, 1)
        _, tail = rest.split(end, 1)
        text = before + block + tail
    elif anchor is not None and anchor in text:
        before, tail = text.split(anchor, 1)
        text = before + anchor + "\n\n" + block + tail
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    path.write_text(text, encoding="utf-8")
