"""A whole build in one call, for the terminal and the benchmark: the same coordinator graph the
web drives, with the author's review steps approved as proposed (edits are the web page's job)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from tutorgraph import observability
from tutorgraph.constructor.context import ConstructorContext, Upload
from tutorgraph.constructor.graph import compile_graph
from tutorgraph.constructor.outline import order_key, read_outline
from tutorgraph.constructor.state import CHECKPOINT_TYPES, ConstructorState, ProgressEvent
from tutorgraph.content.extract import ExtractionLimits
from tutorgraph.errors import InputError
from tutorgraph.llm import Model
from tutorgraph.store.checkpoints import serializer

SOURCE_SUFFIXES = frozenset({".md", ".markdown", ".txt", ".html", ".htm", ".pdf", ".docx"})
MARKDOWN_SUFFIXES = frozenset({".md", ".markdown"})


def collect_files(paths: Sequence[Path]) -> list[Path]:
    """The files to read, in the author's order: files named keep the order they were named
    in; a folder's source files follow their front matter's order key (`order`, `nav_order`,
    `weight`, `lecture`...) when every Markdown file in it has one, else their names (the book
    order for numbered chapters)."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += _folder_in_order(
                [p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in SOURCE_SUFFIXES]
            )
        elif path.is_file():
            found.append(path)
        else:
            raise InputError(f"{path}: no such file or folder")
    if not found:
        raise InputError("no source files found (Markdown, text, HTML, PDF or DOCX)")
    return list(dict.fromkeys(found))


def _folder_in_order(files: list[Path]) -> list[Path]:
    by_name = sorted(files)
    keys = {p: _order_key(p) for p in by_name if p.suffix.lower() in MARKDOWN_SUFFIXES}
    if not keys or any(k is None for k in keys.values()):
        return by_name
    # Files without front matter (PDF, Word...) keep their place among names after the rest.
    return sorted(by_name, key=lambda p: (keys.get(p) is None, keys.get(p) or 0.0))


def _order_key(path: Path) -> float | None:
    try:
        head = path.read_text(encoding="utf-8-sig", errors="replace")
    except OSError:
        return None
    return order_key(read_outline(head).front_matter) if head.startswith("---") else None


def uploads_from(files: Sequence[Path], limits: ExtractionLimits) -> list[Upload]:
    uploads = []
    for file in files:
        data = file.read_bytes()
        if len(data) > limits.max_bytes:
            raise InputError(
                f"{file}: {len(data) / 1048576:.1f} MB is over the limit of "
                f"{limits.max_bytes / 1048576:.0f} MB"
            )
        uploads.append(Upload(hashlib.sha256(data).hexdigest()[:16], file.name, data))
    return uploads


async def build_course(
    uploads: Sequence[Upload],
    *,
    model: Model,
    title: str = "",
    limits: ExtractionLimits | None = None,
    progress: Callable[[ProgressEvent], None] = lambda _e: None,
) -> ConstructorState:
    """Read, structure, write the quiz bank and validate; returns the final state (phase
    `validated`). Publishing is the caller's step."""
    by_id = {u.upload_id: u for u in uploads}

    async def no_publish(_state: ConstructorState) -> str:
        raise InputError("publishing is the caller's step")

    context = ConstructorContext(
        model=model,
        read_uploads=lambda ids: [by_id[i] for i in ids if i in by_id],
        store_image=lambda *_args: None,
        mark_upload=lambda *_args: None,
        publish=no_publish,
        progress=progress,
        limits=limits or ExtractionLimits(),
    )
    graph = compile_graph(InMemorySaver(serde=serializer(CHECKPOINT_TYPES)))
    config: RunnableConfig = observability.run_config(
        "constructor", "build", tags=["course-build"], metadata={}
    )
    turns: list[ConstructorState] = [
        {"request": {"title": title}},
        {"request": {"action": "ingest"}, "pending_uploads": list(by_id)},
    ]
    for turn in turns:
        state = await graph.ainvoke(turn, config, context=context)
    if not state.get("files"):
        failures = "; ".join(f.error for f in state.get("failures", []))
        raise InputError(f"no file could be read: {failures}")
    approve: Command[Any] = Command(resume={"approve": True})
    steps: list[ConstructorState | Command[Any]] = [
        {"request": {"action": "build_structure"}},
        approve,
        {"request": {"action": "generate_quiz"}},
        approve,
    ]
    for step in steps:
        state = await graph.ainvoke(step, config, context=context)
    return cast(ConstructorState, state)
