"""One tutor evaluation run for `tutorgraph eval run` (and the `bench eval` benchmark, which
imports it): the configured engine with every offline implementation as the built-in engine and
the fallback, on a throwaway seeded database or the configured one. It sits with the commands
because it wires engines (`tutorgraph.engines`), which the evaluation flow itself may not."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import ExitStack

from tutorgraph.engines import offline_engine
from tutorgraph.evals.harness import RunResult
from tutorgraph.evals.scenario import Scenario
from tutorgraph.evals.service import Progress, run_evaluation, scratch_database
from tutorgraph.evals.simulator import register_offline_simulator
from tutorgraph.llm import Model, build_model
from tutorgraph.settings import Settings
from tutorgraph.store.db import Database


def evaluation_model(settings: Settings) -> Model:
    """The configured engine, with every offline implementation (the simulator's included) as
    the built-in engine and the fallback."""
    offline = offline_engine(settings.grading)
    register_offline_simulator(offline)
    return build_model(settings.llm, offline=offline)


async def evaluate(
    scenarios: Sequence[Scenario],
    settings: Settings,
    label: str,
    *,
    ablate: Sequence[str] = (),
    scratch: bool = True,
    progress: Progress | None = None,
) -> RunResult:
    """One run, on a throwaway seeded database (`scratch`) or on the configured one."""
    model = evaluation_model(settings)
    with ExitStack() as stack:
        if scratch:
            settings, database = stack.enter_context(
                scratch_database(settings.content_dir, settings)
            )
        else:
            database = Database(settings)
            stack.callback(database.dispose)
        return await run_evaluation(
            list(scenarios),
            settings=settings,
            database=database,
            model=model,
            label=label,
            ablate=ablate,
            progress=progress,
        )
