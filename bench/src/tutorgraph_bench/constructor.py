"""`tutorgraph bench constructor`: build a course from a real, openly licensed chapter set and
measure it against the book's own table of contents.

- speed: pages per minute over the whole build (ingestion, structure, quiz bank, validation);
  a page is a PDF page, or 500 words of a text format;
- topics vs the book's table of contents: a topic matches a TOC entry when their titles say the
  same words (token Jaccard >= 0.6, or one title contains the other); TOC entries are the book's
  sections, or a chapter's title when it has none; precision, recall, and precision that also
  accepts the book's titled side notes ("callouts") as topics;
- quiz items per topic, Bloom levels and types;
- answerability: the share of kept items whose evidence a BM25 search of the sources with the
  question alone finds (the check validation uses), before and after validation dropped items;
- the adaptive assessment run on the generated knowledge base with simulated learners whose
  answers are the references' wording (an upper bound on what the generated bank supports)."""

from __future__ import annotations

import hashlib
import json
import random
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from langchain_core.runnables import RunnableConfig

from tutorgraph.assessment.context import AssessmentContext
from tutorgraph.assessment.graph import compile_graph
from tutorgraph.constructor.build import build_course, collect_files, uploads_from
from tutorgraph.constructor.item_checks import EvidenceIndex
from tutorgraph.constructor.publish import build_domain
from tutorgraph.constructor.state import ConstructorState
from tutorgraph.content.extract import ExtractionLimits
from tutorgraph.engines import offline_engine
from tutorgraph.errors import InputError
from tutorgraph.knowledge.bloom import TargetLevel
from tutorgraph.knowledge.loader import forget_authored, register_authored
from tutorgraph.settings import Settings
from tutorgraph.store.checkpoints import open_checkpointer
from tutorgraph.text.tokens import normalise
from tutorgraph_bench.assessment import (
    ConfigResult,
    TimedModel,
    assess_learner,
    f1,
    question_share,
    score_learner,
)
from tutorgraph_bench.learners import SimulatedLearner

MATCH_JACCARD = 0.6
BENCH_SLUG = "bench-book"
LEVELS: tuple[TargetLevel, ...] = ("junior", "mid")
_NOISE = frozenset({"the", "a", "an", "and", "of", "to", "in", "for", "with", "on", "your", "our"})


@dataclass
class ConstructorBench:
    book: str
    files: int
    words: int
    pages: int
    seconds: float
    topics: list[str]
    toc: list[str]
    callouts: list[str]
    matched_topics: int
    lenient_matched: int
    matched_toc: int
    units: int
    prerequisite_links: int
    items: int
    topics_with_items: int
    generated: int
    dropped: int
    answerable_kept: float
    answerable_generated: float
    bloom: Counter[str]
    types: Counter[str]
    readiness: int
    assessment: list[ConfigResult] = field(default_factory=list)
    # Independent judgements of the kept items (labels keyed by the question's hash).
    judged: Counter[str] = field(default_factory=Counter)
    judged_reference: Counter[str] = field(default_factory=Counter)
    judged_well_formed: Counter[str] = field(default_factory=Counter)
    unjudged: int = 0

    @property
    def judged_answerable(self) -> float:
        total = sum(self.judged.values())
        return self.judged["yes"] / total if total else 0.0

    @property
    def pages_per_minute(self) -> float:
        return self.pages / (self.seconds / 60) if self.seconds else 0.0

    @property
    def precision(self) -> float:
        return self.matched_topics / len(self.topics) if self.topics else 0.0

    @property
    def lenient_precision(self) -> float:
        return self.lenient_matched / len(self.topics) if self.topics else 0.0

    @property
    def recall(self) -> float:
        return self.matched_toc / len(self.toc) if self.toc else 0.0


def _tokens(title: str) -> set[str]:
    return {w for w in normalise(title).split() if w not in _NOISE}


def same_title(a: str, b: str) -> bool:
    left, right = _tokens(a), _tokens(b)
    if not left or not right:
        return False
    if left <= right or right <= left:
        return True
    return len(left & right) / len(left | right) >= MATCH_JACCARD


def toc_entries(toc: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The book's topics (sections, or the chapter title when a chapter has none) and its
    titled side notes."""
    entries: list[str] = []
    callouts: list[str] = []
    for chapter in toc["chapters"]:
        entries += chapter.get("sections") or [chapter["title"]]
        callouts += chapter.get("callouts") or []
    return entries, callouts


def question_key(text: str, reference: str) -> str:
    """The key independent labels use for an item: a hash of its question and reference
    answer (ids change when the writer changes; a changed item needs a new judgement)."""
    return hashlib.sha256(f"{text}\n{reference}".encode()).hexdigest()[:12]


def judge(result: ConstructorBench, state: ConstructorState, labels_file: Path) -> None:
    """Count the independent reviewer's labels of the kept items that were judged."""
    if not labels_file.is_file():
        return
    raw = yaml.safe_load(labels_file.read_text(encoding="utf-8")) or {}
    labels = {str(row["key"]): row for row in raw.get("labels", [])}
    bank = state.get("quiz_bank")
    for item in bank.kept() if bank else []:
        row = labels.get(question_key(item.text, item.reference_answer))
        if row is None:
            result.unjudged += 1
            continue
        result.judged[str(row["answerable"])] += 1
        result.judged_reference[str(row["reference_correct"])] += 1
        result.judged_well_formed[str(row["well_formed"])] += 1


async def run_constructor_benchmark(
    book: Path, *, learners: int, seed: int, labels: Path | None = None
) -> ConstructorBench:
    sources, toc_file = book / "sources", book / "toc.json"
    if not sources.is_dir() or not toc_file.is_file():
        raise InputError(
            f"{book}: needs sources/ and toc.json (see BENCHMARKS.md for how to get the book)"
        )
    toc = json.loads(toc_file.read_text(encoding="utf-8"))
    files = collect_files([sources])
    uploads = uploads_from(files, ExtractionLimits())
    started = time.perf_counter()
    state = await build_course(uploads, model=offline_engine(), title=toc.get("title", ""))
    seconds = time.perf_counter() - started
    result = await _measure(state, toc, seconds, learners=learners, seed=seed, book=book.name)
    if labels is not None:
        judge(result, state, labels)
    return result


async def _measure(
    state: ConstructorState,
    toc: dict[str, Any],
    seconds: float,
    *,
    learners: int,
    seed: int,
    book: str,
) -> ConstructorBench:
    structure, bank, report = state.get("structure"), state.get("quiz_bank"), state.get("report")
    if structure is None or bank is None or report is None:
        raise InputError("the build did not finish")
    files = state.get("files", [])
    topics = [t.title for t in structure.ordered_topics()]
    entries, callouts = toc_entries(toc)
    matched = sum(1 for t in topics if any(same_title(t, e) for e in entries))
    lenient = sum(1 for t in topics if any(same_title(t, e) for e in [*entries, *callouts]))
    found = sum(1 for e in entries if any(same_title(t, e) for t in topics))
    index = EvidenceIndex(state.get("chunks", []))
    kept = bank.kept()
    answerable = [index.evidence_for(i) is not None for i in kept]
    generated = [index.evidence_for(i) is not None for i in bank.items]
    result = ConstructorBench(
        book=book,
        files=len(files),
        words=sum(f.words for f in files),
        pages=sum(f.pages for f in files),
        seconds=seconds,
        topics=topics,
        toc=entries,
        callouts=callouts,
        matched_topics=matched,
        lenient_matched=lenient,
        matched_toc=found,
        units=len(structure.units),
        prerequisite_links=sum(len(t.prerequisites) for t in structure.topics),
        items=len(kept),
        topics_with_items=len({i.topic_id for i in kept}),
        generated=len(bank.items),
        dropped=bank.dropped,
        answerable_kept=sum(answerable) / len(answerable) if answerable else 0.0,
        answerable_generated=sum(generated) / len(generated) if generated else 0.0,
        bloom=Counter(i.bloom_level.value for i in kept),
        types=Counter(i.type for i in kept),
        readiness=report.readiness,
    )
    result.assessment = await _assessment(state, learners=learners, seed=seed)
    return result


async def _assessment(state: ConstructorState, *, learners: int, seed: int) -> list[ConfigResult]:
    """The adaptive assessment on the generated domain, with reference-worded learners."""
    kb = build_domain(state, BENCH_SLUG)
    register_authored(kb)
    rng = random.Random(seed)
    model = TimedModel(offline_engine())
    context = AssessmentContext.for_model(model)
    results: list[ConfigResult] = []
    try:
        with tempfile.TemporaryDirectory() as scratch:
            settings = Settings(
                data_dir=Path(scratch), checkpoint_url=f"sqlite:///{scratch}/checkpoints.db"
            )
            async with open_checkpointer(settings) as checkpointer:
                graph = compile_graph(checkpointer)
                for style in ("consistent", "noisy"):
                    for level in LEVELS:
                        result = ConfigResult(style, BENCH_SLUG, level)
                        for number in range(learners):
                            learner = SimulatedLearner.generate(kb, level, rng, style=style)
                            thread = f"{seed}-{style}-{level}-{number}"
                            config: RunnableConfig = {"configurable": {"thread_id": thread}}
                            await assess_learner(graph, context, model, learner, config, [], [])
                            score_learner(result, learner, (await graph.aget_state(config)).values)
                        results.append(result)
    finally:
        forget_authored(BENCH_SLUG)
    return results


def _judged_lines(result: ConstructorBench) -> list[str]:
    total = sum(result.judged.values())
    if not total:
        return ["No independent judgements of these items yet.", ""]

    def share(counter: Counter[str]) -> str:
        return ", ".join(f"{v} {counter[v]}" for v in ("yes", "partly", "no") if counter[v])

    return [
        f"Independent reviewers (helpers that never saw the code) judged {total} of the "
        f"{total + result.unjudged} kept items against the chapter "
        "(`benchmarks/constructor/answerability_labels.yaml`):",
        "",
        "| judgement | counts |",
        "|---|---|",
        f"| answerable from the chapter (target >= 0.95 yes) | {share(result.judged)} "
        f"(**{result.judged_answerable:.2f}** yes) |",
        f"| reference answer correct | {share(result.judged_reference)} |",
        f"| question well formed | {share(result.judged_well_formed)} |",
        "",
    ]


def markdown(result: ConstructorBench, command: str) -> str:
    bloom = ", ".join(f"{level} {n}" for level, n in sorted(result.bloom.items()))
    types = ", ".join(f"{kind} {n}" for kind, n in sorted(result.types.items()))
    lines = [
        "## Course constructor on a real textbook chapter set",
        "",
        f"`{command}`",
        "",
        f"Book: `{result.book}`: Software Carpentry, *Programming with Python* "
        "(swcarpentry/python-novice-inflammation at 2b3613a5, CC BY 4.0; not in this repository, "
        "see below for how to get it). Offline engine.",
        "",
        "| measure | value |",
        "|---|---|",
        f"| files / words / pages (500 words a page) | {result.files} / {result.words} / "
        f"{result.pages} |",
        f"| build time (read, structure, quiz bank, validation) | {result.seconds:.1f} s |",
        f"| pages per minute | {result.pages_per_minute:.0f} |",
        f"| units / topics / prerequisite links | {result.units} / {len(result.topics)} / "
        f"{result.prerequisite_links} |",
        f"| topics vs the book's TOC: precision | {result.precision:.2f} "
        f"({result.matched_topics}/{len(result.topics)}) |",
        f"| precision also accepting the book's titled side notes | "
        f"{result.lenient_precision:.2f} |",
        f"| topics vs the book's TOC: recall | {result.recall:.2f} "
        f"({result.matched_toc}/{len(result.toc)}) |",
        f"| quiz items kept / generated (dropped by validation) | {result.items} / "
        f"{result.generated} ({result.dropped}) |",
        f"| quiz items per topic | {result.items / max(1, len(result.topics)):.2f} |",
        f"| topics with at least one item | {result.topics_with_items} of {len(result.topics)} |",
        f"| answerability of kept items (target >= 0.95) | {result.answerable_kept:.3f} |",
        f"| answerability of all generated items, before validation | "
        f"{result.answerable_generated:.3f} |",
        f"| Bloom levels of kept items | {bloom} |",
        f"| question types | {types} |",
        f"| readiness score | {result.readiness}/100 |",
        "",
        *_judged_lines(result),
        "Assessment on the generated knowledge base (simulated learners answering in the "
        "reference wording: an upper bound):",
        "",
        "| learners | level | runs | gap F1 | questions used |",
        "|---|---|---:|---:|---:|",
    ]
    for config in result.assessment:
        lines.append(
            f"| {config.style} | {config.level} | {config.learners} | {f1(config):.3f} | "
            f"{question_share(config):.0%} |"
        )
    lines += [
        "",
        "How it is measured: a topic matches a TOC entry when their titles share their words "
        f"(token Jaccard >= {MATCH_JACCARD}, or one contains the other); this book heads every "
        "section, so following headings finds its TOC: a book whose structure is not in its "
        "headings (a scanned PDF, a long text without them) would score lower. Answerability is "
        "the constructor's own retrieval check (BM25 over the source chunks with the question "
        "alone must return the item's evidence in the top 3), so validation's dropping of "
        "unanswerable items makes the kept rate 1.0 by construction; the rate before validation "
        "is the writer's own. It says the answer is in the sources, not that the question is "
        "good.",
        "",
        "Get the book (not committed: fetched material stays out of the repository): clone "
        "`https://github.com/swcarpentry/python-novice-inflammation`, check out `2b3613a5`, copy "
        "`episodes/*.md` to `benchmarks/data/constructor/swc-python-inflammation/sources/` and "
        "`config.yaml` to `upstream-index.yaml` beside it, then run "
        "`python3 benchmarks/constructor/build_toc.py benchmarks/data/constructor/"
        "swc-python-inflammation` to write its `toc.json` from the book's own headings.",
    ]
    return "\n".join(lines)
