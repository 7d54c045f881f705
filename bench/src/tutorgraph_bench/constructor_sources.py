"""`tutorgraph bench constructor`: build a course offline from each openly licensed source in
`benchmarks/constructor/sources.yaml` and report what an author would look at.

Per source: files, units, topics, kept quiz items, items per topic (min and mean), the share of
items that test understanding (`QuizItem.asks` in `UNDERSTANDING_ASKS`), Bloom levels per topic,
fill-in-the-blank, multiple-choice and predict-the-output counts, the readiness figure, and
"sections matched" against the source's own outline (`constructor_outline`).

It reads only the build's public results (the state's `files`, `sections`, `structure`,
`quiz_bank` and `report`), so it keeps working while the builder changes; a build that fails is
reported as failed with its error instead of stopping the other sources. Sources marked
`split: sealed` are skipped here and measured once per release commit with `--sealed`.
It does not judge question quality: that is the reviewers' rating sheet
(`constructor_sheet`, `constructor_ratings`)."""

from __future__ import annotations

import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tutorgraph.constructor.build import build_course, uploads_from
from tutorgraph.constructor.state import UNDERSTANDING_ASKS, ConstructorState, QuizItem
from tutorgraph.content.extract import ExtractionLimits
from tutorgraph.engines import offline_engine
from tutorgraph.errors import InputError
from tutorgraph_bench.constructor_outline import (
    MATCH_DICE,
    Outline,
    SectionsMatched,
    match_sections,
    read_outline,
)

SOURCES_FILE = Path("benchmarks/constructor/sources.yaml")
SHAPES = frozenset({"markdown", "html", "pdf"})
SPLITS = frozenset({"dev", "sealed"})


@dataclass(frozen=True)
class Source:
    name: str
    shape: str
    split: str
    files: list[Path]

    @property
    def folder(self) -> Path:
        return self.files[0].parent


def load_sources(path: Path = SOURCES_FILE) -> list[Source]:
    """The sources listed in `sources.yaml`, their files in the author's order."""
    raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    sources = []
    for row in raw.get("sources") or []:
        name, shape, split = str(row["name"]), str(row["shape"]), str(row.get("split", "dev"))
        if shape not in SHAPES or split not in SPLITS:
            raise InputError(
                f"{path}: {name}: shape must be one of {sorted(SHAPES)}, split dev/sealed"
            )
        folder = path.parent / "sources" / name
        files = [folder / str(f) for f in row["files"]]
        missing = [str(f) for f in files if not f.is_file()]
        if missing:
            raise InputError(f"{path}: {name}: missing files {missing}")
        sources.append(Source(name, shape, split, files))
    return sources


@dataclass
class SourceFigures:
    """What one source's build gave, from the public state only."""

    source: str
    shape: str
    split: str
    files: int = 0
    seconds: float = 0.0
    error: str = ""
    course_title: str = ""
    units: int = 0
    topics: int = 0
    items: int = 0
    items_per_topic: list[int] = field(default_factory=list)
    understanding: int = 0
    bloom_per_topic: list[int] = field(default_factory=list)
    blanks: int = 0
    multiple_choice: int = 0
    predict: int = 0
    source_units: int = 0  # units in the source's own outline (a file, or a PDF's top bookmark)
    readiness: int | None = None
    ready: bool | None = None
    matched: SectionsMatched | None = None
    outline_method: str = ""

    @property
    def min_items(self) -> int:
        return min(self.items_per_topic, default=0)

    @property
    def mean_items(self) -> float:
        return (
            sum(self.items_per_topic) / len(self.items_per_topic) if self.items_per_topic else 0.0
        )

    @property
    def understanding_share(self) -> float:
        return self.understanding / self.items if self.items else 0.0


def _asks(item: QuizItem) -> str:
    return str(getattr(item, "asks", "define"))


def measure(
    source: Source, state: ConstructorState, seconds: float, outline: Outline
) -> SourceFigures:
    figures = SourceFigures(source.name, source.shape, source.split, len(source.files), seconds)
    structure, bank, report = state.get("structure"), state.get("quiz_bank"), state.get("report")
    figures.course_title = structure.title if structure else str(state.get("course_title", ""))
    figures.outline_method = outline.method
    figures.source_units = len({(s.file, s.unit) for s in outline.sections})
    if structure is None:
        figures.error = "the build gave no structure"
        return figures
    topics = structure.ordered_topics()
    kept = bank.kept() if bank else []
    by_topic: dict[str, list[QuizItem]] = {t.topic_id: [] for t in topics}
    for item in kept:
        by_topic.setdefault(item.topic_id, []).append(item)
    figures.units, figures.topics, figures.items = len(structure.units), len(topics), len(kept)
    figures.items_per_topic = [len(by_topic[t.topic_id]) for t in topics]
    figures.bloom_per_topic = [len({i.bloom_level for i in by_topic[t.topic_id]}) for t in topics]
    asks = Counter(_asks(i) for i in kept)
    figures.understanding = sum(n for kind, n in asks.items() if kind in UNDERSTANDING_ASKS)
    figures.blanks = asks["blank"]
    figures.predict = asks["predict"]
    figures.multiple_choice = sum(1 for i in kept if getattr(i, "options", None))
    if report is not None:
        figures.readiness, figures.ready = report.readiness, report.ready
    if outline.method != "manual":
        figures.matched = match_sections(outline, state)
    return figures


async def build_source(source: Source) -> tuple[ConstructorState, float]:
    """Build offline from the source's files in the author's order; the state and seconds."""
    uploads = uploads_from(source.files, ExtractionLimits())
    started = time.perf_counter()
    state = await build_course(uploads, model=offline_engine())
    return state, time.perf_counter() - started


@dataclass
class SourceRun:
    figures: SourceFigures
    state: ConstructorState | None
    outline: Outline


async def run_source(source: Source) -> SourceRun:
    outline = read_outline(source.name, source.shape, source.files)
    try:
        state, seconds = await build_source(source)
    except Exception as exc:  # a failing build is a figure too: report it, go on
        figures = SourceFigures(source.name, source.shape, source.split, len(source.files))
        figures.error = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
        figures.outline_method = outline.method
        traceback.print_exc()
        return SourceRun(figures, None, outline)
    return SourceRun(measure(source, state, seconds, outline), state, outline)


async def run_sources(sources: list[Source], *, split: str = "dev") -> list[SourceRun]:
    return [await run_source(s) for s in sources if s.split == split]


# ------------------------------------------------------------------------------------ report


def _share(value: float) -> str:
    return f"{value:.0%}"


def _row(figures: SourceFigures) -> list[str]:
    if figures.error:
        return [figures.source, figures.shape, str(figures.files), f"build failed: {figures.error}"]
    matched = figures.matched
    topics_matched, sections_covered = "manual", "manual"
    if matched:
        hits = sum(t.matched for t in matched.topics)
        covered = sum(ok for _s, ok in matched.covered)
        topics_matched = f"{_share(matched.topic_share)} ({hits}/{len(matched.topics)})"
        sections_covered = f"{_share(matched.section_share)} ({covered}/{len(matched.covered)})"
    leaked = f"{matched.exercises_in_topics}/{matched.exercises}" if matched else "n/a"
    bloom = figures.bloom_per_topic
    return [
        figures.source,
        figures.shape,
        str(figures.files),
        f"{figures.seconds:.1f} s",
        f"{figures.units} ({figures.source_units})",
        str(figures.topics),
        str(figures.items),
        f"{figures.min_items} / {figures.mean_items:.1f}",
        f"{_share(figures.understanding_share)} ({figures.understanding}/{figures.items})",
        f"{min(bloom, default=0)} / {sum(bloom) / len(bloom) if bloom else 0:.1f}",
        str(figures.blanks),
        str(figures.multiple_choice),
        str(figures.predict),
        "n/a"
        if figures.readiness is None
        else f"{figures.readiness}{' ready' if figures.ready else ''}",
        topics_matched,
        sections_covered,
        leaked,
    ]


HEADER = [
    "source",
    "shape",
    "files",
    "build",
    "units (source's)",
    "topics",
    "items",
    "items/topic min / mean",
    "tests understanding",
    "Bloom levels/topic min / mean",
    "blanks",
    "MC",
    "predict",
    "readiness",
    "topics = one section",
    "sections covered",
    "exercises inside topics",
]


def table(runs: list[SourceRun]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for run in runs:
        row = _row(run.figures)
        lines.append("| " + " | ".join(row + [""] * (len(HEADER) - len(row))) + " |")
    return "\n".join(lines)


def plain_table(runs: list[SourceRun]) -> str:
    """The same figures, one `name: value` line each, for the terminal."""
    out: list[str] = []
    for run in runs:
        out.append(f"== {run.figures.source} ({run.figures.shape}, {run.figures.split})")
        row = _row(run.figures)
        out += [f"  {name}: {value}" for name, value in zip(HEADER[2:], row[2:], strict=False)]
        if run.figures.course_title:
            out.append(f"  course title: {run.figures.course_title}")
    return "\n".join(out)


def markdown(runs: list[SourceRun], command: str) -> str:
    return "\n".join(
        [
            "## Course constructor on material nobody here wrote",
            "",
            f"`{command}`",
            "",
            "Offline engine; sources, licences and origins in `benchmarks/constructor/sources/` "
            "(listed with their file order and split in `benchmarks/constructor/sources.yaml`). "
            "Development sources only: the sealed source is measured once per release commit "
            "(`--sealed`).",
            "",
            table(runs),
            "",
            "How it is measured: *tests understanding* is the share of kept items whose `asks` is "
            "why / how / what-if / compare / predict / apply / debug / command (the builder's own "
            "label; the reviewers' rating is the independent figure). *Topics = one section*: the "
            "share of topics whose lesson text matches one main section of the source (bag-of-"
            f"words Dice >= {MATCH_DICE}); *sections covered*: the share of the source's main "
            "sections and introductions that a topic, a unit introduction or a unit's exercises "
            "or reading list matches. The source's outline is read independently of the builder: "
            "Markdown with markdown-it (headings outside `:::` divs), HTML with the HTML parser, "
            "the PDF from its bookmarks. *Exercises inside topics*: exercise divs whose text sits "
            "inside a topic's lesson. *Units (source's)*: the course's units and, in brackets, "
            "the source's own (one per file; a PDF's top-level bookmarks).",
        ]
    )


def summary_record(figures: SourceFigures) -> dict[str, Any]:
    """The figures as plain values (the sealed record's row)."""
    matched = figures.matched
    return {
        "source": figures.source,
        "error": figures.error,
        "files": figures.files,
        "units": figures.units,
        "topics": figures.topics,
        "items": figures.items,
        "items_per_topic_min": figures.min_items,
        "items_per_topic_mean": round(figures.mean_items, 3),
        "tests_understanding": round(figures.understanding_share, 4),
        "blanks": figures.blanks,
        "multiple_choice": figures.multiple_choice,
        "predict": figures.predict,
        "readiness": figures.readiness,
        "topics_one_section": round(matched.topic_share, 4) if matched else None,
        "sections_covered": round(matched.section_share, 4) if matched else None,
        "seconds": round(figures.seconds, 2),
    }
