"""Which passage the tutor answers a learner's question from: questions written by someone who had
not read the lessons (only the catalogue), labelled afterwards with the lesson and heading(s) that
answer them by someone who read the lessons but no code.

Each question is asked as the first message of a chat in the lesson the learner had open (default
mode). The tutor's first citation names the passage it answers from ("Source: lesson › heading"):
- lesson@1: that lesson is the one that answers the question;
- heading: its most specific heading is one of the acceptable ones;
- redirected: the tutor said the course does not cover it.
Questions are split by a hash of their text: the tutor's rules may be looked at against `dev`;
`test` is only reported. Targets (issue 12, on all questions): heading >= 0.85, lesson@1 >= 0.90."""

from __future__ import annotations

import asyncio
import hashlib
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from pydantic import BaseModel

from tutorgraph.content.seeding import seed_database
from tutorgraph.engines import build_engine
from tutorgraph.errors import InputError
from tutorgraph.evals.runner import TutorRunner
from tutorgraph.settings import Settings
from tutorgraph.store import migrate
from tutorgraph.store.db import Database
from tutorgraph.tutor.compose import citations
from tutorgraph_bench.metrics import wilson

DEFAULT_PATH = Path("benchmarks/tutor/learner_questions.yaml")
HEADING_TARGET = 0.85
LESSON_TARGET = 0.90


class LearnerQuestion(BaseModel):
    lesson: str
    style: str
    question: str
    answer_lesson: str
    headings: list[str]
    answerable: bool = True
    partial: bool = False

    @property
    def split(self) -> str:
        return "dev" if hashlib.sha256(self.question.encode()).digest()[0] % 2 == 0 else "test"


@dataclass(frozen=True)
class Answered:
    case: LearnerQuestion
    lesson_title: str | None
    heading: str | None
    reference_notes: bool

    def lesson_right(self, titles: dict[str, str]) -> bool:
        return self.lesson_title == titles.get(self.case.answer_lesson)

    def heading_right(self, titles: dict[str, str]) -> bool:
        return (
            self.lesson_right(titles)
            and not self.reference_notes
            and (self.heading in self.case.headings)
        )


@dataclass
class QuestionsResult:
    answered: list[Answered] = field(default_factory=list)
    titles: dict[str, str] = field(default_factory=dict)

    @property
    def cases(self) -> list[Answered]:
        return [a for a in self.answered if a.case.answerable]

    def share(self, which: str, style: str | None = None, split: str | None = None) -> float:
        chosen = [
            a
            for a in self.cases
            if (style is None or a.case.style == style) and (split is None or a.case.split == split)
        ]
        if not chosen:
            return float("nan")
        if which == "lesson":
            hits = [a.lesson_right(self.titles) for a in chosen]
        elif which == "heading":
            hits = [a.heading_right(self.titles) for a in chosen]
        else:
            hits = [a.lesson_title is None for a in chosen]
        return sum(hits) / len(hits)


def load_questions(path: Path = DEFAULT_PATH) -> list[LearnerQuestion]:
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise InputError(f"{path}: cannot read the learner questions ({exc})") from exc
    return [LearnerQuestion.model_validate(item) for item in raw.get("questions") or []]


def first_citation(reply: str) -> tuple[str | None, str | None, bool]:
    """(lesson title, most specific heading, from reference notes) of the reply's first citation."""
    found = citations(reply)
    if not found:
        return None, None, False
    return found[0].lesson_title, found[0].heading or None, found[0].reference_notes


async def _ask_all(runner: TutorRunner, cases: list[LearnerQuestion]) -> list[Answered]:
    answered = []
    for case in cases:
        context = runner.context(lesson=case.lesson, mode="default", explore=False)
        turn = await runner.turn(context, [], case.question)
        title, heading, notes = first_citation(turn.reply)
        answered.append(Answered(case, title, heading, notes))
    return answered


def run_questions_benchmark(*, content_dir: Path, path: Path = DEFAULT_PATH) -> QuestionsResult:
    """Seed the demo content into a scratch database, then ask every question with the offline
    engine."""
    cases = load_questions(path)
    with tempfile.TemporaryDirectory() as scratch:
        settings = Settings(data_dir=Path(scratch), content_dir=content_dir)
        migrate.upgrade(settings)
        seed_database(settings)
        database = Database(settings)
        try:
            runner = TutorRunner(settings=settings, database=database, model=build_engine(settings))
            answered = asyncio.run(_ask_all(runner, cases))
            titles = _titles(database)
        finally:
            database.dispose()
    return QuestionsResult(answered, titles)


def _titles(database: Database) -> dict[str, str]:
    from sqlalchemy import select

    from tutorgraph.store.models import Lesson

    with database.session() as session:
        return {slug: title for slug, title in session.execute(select(Lesson.slug, Lesson.title))}


def markdown(result: QuestionsResult, command: str) -> str:
    def met(ok: bool) -> str:
        return "met" if ok else "NOT met"

    styles = sorted(Counter(a.case.style for a in result.cases))
    lines = [
        "## Tutor: which passage it answers learner questions from",
        "",
        f"Command: `{command}`",
        "",
        f"{len(result.cases)} questions (`benchmarks/tutor/learner_questions.yaml`) written by a "
        "helper who saw only the course catalogue (titles, summaries), never the lessons or the "
        "tutor, in seven styles; labelled afterwards with the lesson and the heading(s) that "
        "answer each by a helper who read the lessons but no code. Each is the first message of "
        "a chat in the lesson that was open (offline engine, default mode); the tutor's first "
        "citation is the passage it answers from.",
        "",
        "| style | questions | lesson@1 | heading right | redirected |",
        "|---|---|---|---|---|",
    ]
    for style in [*styles, None]:
        n = sum(1 for a in result.cases if style is None or a.case.style == style)
        lines.append(
            f"| {style or '**all**'} | {n} | {result.share('lesson', style):.2f} | "
            f"{result.share('heading', style):.2f} | {result.share('redirect', style):.2f} |"
        )
    for split in ("dev", "test"):
        n = sum(1 for a in result.cases if a.case.split == split)
        lines.append(
            f"| split `{split}` | {n} | {result.share('lesson', split=split):.2f} | "
            f"{result.share('heading', split=split):.2f} | "
            f"{result.share('redirect', split=split):.2f} |"
        )
    total = len(result.cases)

    def interval(kind: str) -> str:
        return wilson(round(result.share(kind) * total), total).number(2)

    lines += [
        "",
        f"All {total} questions with their 95% Wilson intervals: lesson@1 {interval('lesson')}, "
        f"heading right {interval('heading')}, redirected {interval('redirect')}.",
        "",
        f"Targets: heading right >= {HEADING_TARGET}: "
        f"{met(result.share('heading') >= HEADING_TARGET)}; lesson@1 >= {LESSON_TARGET}: "
        f"{met(result.share('lesson') >= LESSON_TARGET)}.",
    ]
    return "\n".join(lines)
