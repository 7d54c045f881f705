"""Retrieval quality: question -> expected lesson (and heading) over the demo courses."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic import BaseModel
from sqlalchemy import select

from tutorgraph.content.retrieval import SearchIndexes
from tutorgraph.content.seeding import seed_content
from tutorgraph.errors import InputError
from tutorgraph.settings import Settings
from tutorgraph.store import migrate
from tutorgraph.store.db import Database
from tutorgraph.store.models import LearningPath
from tutorgraph_bench.metrics import Interval, mean_interval, wilson


class RetrievalCase(BaseModel):
    query: str
    course: str
    lesson: str
    heading: str


@dataclass(frozen=True)
class RetrievalResult:
    cases: int
    recall_at_1: float
    recall_at_5: float
    mrr: float
    heading_at_5: float
    misses: list[str]
    reciprocal_ranks: tuple[float, ...] = ()  # per query (0 when the lesson is not in the top k)

    def share(self, value: float) -> Interval:
        """A recall of this run with its 95% Wilson interval."""
        return wilson(round(value * self.cases), self.cases)


def load_cases(path: Path) -> list[RetrievalCase]:
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise InputError(f"{path}: cannot read the benchmark queries ({exc})") from exc
    return [RetrievalCase.model_validate(item) for item in raw]


def run_retrieval_benchmark(*, content_dir: Path, queries: Path, k: int = 5) -> RetrievalResult:
    """Seed the content into a scratch database, then search every query across all courses."""
    cases = load_cases(queries)
    with tempfile.TemporaryDirectory() as scratch:
        settings = Settings(data_dir=Path(scratch), content_dir=content_dir)
        migrate.upgrade(settings)
        database = Database(settings)
        indexes = SearchIndexes(settings.index_dir)
        hits_1 = hits_k = heading_k = 0
        reciprocal: list[float] = []
        misses: list[str] = []
        try:
            with database.session() as session:
                seed_content(session=session, content_dir=content_dir)
                courses = list(session.scalars(select(LearningPath)))
                for case in cases:
                    hits = indexes.search(session=session, query=case.query, courses=courses, k=k)
                    lessons = [(h.course, h.lesson) for h in hits]
                    target = (case.course, case.lesson)
                    if target in lessons:
                        rank = lessons.index(target) + 1
                        reciprocal.append(1.0 / rank)
                        hits_k += 1
                        hits_1 += rank == 1
                    else:
                        reciprocal.append(0.0)
                        misses.append(case.query)
                    heading_k += any(
                        (h.course, h.lesson) == target and case.heading in h.heading_path
                        for h in hits
                    )
        finally:
            database.dispose()
    n = len(cases)
    return RetrievalResult(
        cases=n,
        recall_at_1=hits_1 / n,
        recall_at_5=hits_k / n,
        mrr=sum(reciprocal) / n,
        heading_at_5=heading_k / n,
        misses=misses,
        reciprocal_ranks=tuple(reciprocal),
    )


def markdown(result: RetrievalResult, command: str) -> str:
    target = "met" if result.recall_at_5 >= 0.90 else "NOT met"
    mrr = mean_interval(result.reciprocal_ranks)
    return (
        "## Retrieval (bm25s over lessons and reference KBs)\n\n"
        f"Command: `{command}`\n\n"
        f"{result.cases} questions written by the content authors, each with the lesson and the "
        "heading that answers it; search runs over both demo courses at once. Each figure with "
        f"its 95% interval over the {result.cases} questions (Wilson for the recalls, a seeded "
        "bootstrap for MRR).\n\n"
        "| metric | value |\n|---|---|\n"
        f"| recall@1 (lesson) | {result.share(result.recall_at_1).number()} |\n"
        f"| recall@5 (lesson) | {result.share(result.recall_at_5).number()} |\n"
        f"| MRR (lesson, top 5) | {mrr.number()} |\n"
        f"| heading in top 5 | {result.share(result.heading_at_5).number()} |\n\n"
        f"Target recall@5 >= 0.90: {target}."
    )
