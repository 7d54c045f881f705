"""One evaluation run: the tutor and judges on an engine, every chosen scenario, one `RunResult`."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from sqlalchemy import select

from tutorgraph.errors import ConfigurationError
from tutorgraph.evals.checks import CheckContext
from tutorgraph.evals.harness import RunResult, ScenarioResult, now, run_scenario
from tutorgraph.evals.runner import TutorRunner
from tutorgraph.evals.scenario import Scenario
from tutorgraph.evals.simulator import StudentSimulator
from tutorgraph.llm import Model, aclose_model
from tutorgraph.settings import Settings
from tutorgraph.store.db import Database
from tutorgraph.store.models import LearningPath, Lesson

Progress = Callable[[Scenario, ScenarioResult], None]


def check_context(database: Database) -> CheckContext:
    with database.session() as session:
        titles = {slug: title for slug, title in session.execute(select(Lesson.slug, Lesson.title))}
        courses = list(session.scalars(select(LearningPath.title)))
    if not titles:
        raise ConfigurationError("no lessons in the database: run `tutorgraph seed` first")
    return CheckContext(titles=titles, course_titles=courses)


def course_text(database: Database) -> Callable[[str], str]:
    """The material a lesson's replies may draw on (its lesson and reference notes; in Explore,
    everything), for the notation and link checks."""
    with database.session() as session:
        rows = list(session.execute(select(Lesson.slug, Lesson.content, Lesson.reference_kb)))
    every = "\n".join(f"{c}\n{r or ''}" for _, c, r in rows)
    by_slug = {slug: f"{c}\n{r or ''}" for slug, c, r in rows}
    return lambda slug: by_slug.get(slug, every) if slug else every


async def run_evaluation(
    scenarios: Sequence[Scenario],
    *,
    settings: Settings,
    database: Database,
    model: Model,
    label: str,
    ablate: Sequence[str] = (),
    progress: Progress | None = None,
) -> RunResult:
    runner = TutorRunner(settings=settings, database=database, model=model, ablate=ablate)
    simulator = StudentSimulator(model)
    checks = check_context(database)
    texts = course_text(database)
    started = now()
    results = []
    try:
        for scenario in scenarios:
            result = await run_scenario(
                scenario,
                runner=runner,
                simulator=simulator,
                judge_model=model,
                checks=checks,
                course_text=texts,
            )
            results.append(result)
            if progress is not None:
                progress(scenario, result)
    finally:
        await aclose_model(model)
    return RunResult(
        label=label,
        engine=settings.llm.engine,
        model=settings.llm.model if settings.llm.engine != "offline" else "offline",
        ablate=list(ablate),
        started=started,
        scenarios=results,
    )


@contextlib.contextmanager
def scratch_database(
    content_dir: Path, base: Settings | None = None
) -> Iterator[tuple[Settings, Database]]:
    """A temporary SQLite database with the content seeded (other settings from `base`): for
    benchmarks and tests."""
    from tutorgraph.content.seeding import seed_database
    from tutorgraph.store import migrate

    with tempfile.TemporaryDirectory() as scratch:
        settings = (base or Settings()).model_copy(
            update={"data_dir": Path(scratch), "content_dir": content_dir, "database_url": None}
        )
        migrate.upgrade(settings)
        seed_database(settings)
        database = Database(settings)
        try:
            yield settings, database
        finally:
            database.dispose()
