"""`tutorgraph eval ...`: run the tutor evaluation scenarios, compare runs, write a report."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from tutorgraph.cli._console import console
from tutorgraph.errors import InputError
from tutorgraph.evals.harness import RunResult, ScenarioResult
from tutorgraph.evals.scenario import Scenario
from tutorgraph.settings import Settings, load_settings

eval_app = typer.Typer(help="Tutor evaluation: simulated learners, scored in four layers.")

TEACHING_MODES = ("default", "eli5", "analogy", "code", "deep_dive")


def _settings_for(engine: str | None, model: str | None, base_url: str | None) -> Settings:
    settings = load_settings()
    update: dict[str, object] = {}
    if engine is not None:
        if engine not in ("offline", "openai"):
            raise InputError("--engine must be offline or openai")
        update["engine"] = engine
    if model is not None:
        update["model"] = model
    if base_url is not None:
        update["base_url"] = base_url
    if update:
        settings = settings.model_copy(update={"llm": settings.llm.model_copy(update=update)})
    return settings


@eval_app.command("run")
def run(
    lesson: Annotated[str | None, typer.Option(help="Only this lesson's scenarios.")] = None,
    scenario: Annotated[
        str | None, typer.Option(help="Only scenarios whose id contains this.")
    ] = None,
    engine: Annotated[
        str | None, typer.Option(help="offline or openai (default: settings).")
    ] = None,
    model: Annotated[str | None, typer.Option(help="Model id for the openai engine.")] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible server URL.")] = None,
    mode: Annotated[
        str | None,
        typer.Option(
            help="'explore' for the Explore scenarios, or a teaching mode to run them in."
        ),
    ] = None,
    ablate: Annotated[
        list[str] | None,
        typer.Option(help="Drop a system-prompt section (e.g. principles, rhythm); repeatable."),
    ] = None,
    scenarios_dir: Annotated[
        Path | None, typer.Option("--scenarios", help="Folder of scenario YAML files.")
    ] = None,
    scratch: Annotated[
        bool, typer.Option(help="Run on a temporary database seeded from the content folder.")
    ] = False,
    label: Annotated[str | None, typer.Option(help="Name of this run in reports.")] = None,
    out: Annotated[
        Path | None, typer.Option(help="Results JSON (default data/evals/LABEL.json).")
    ] = None,
) -> None:
    """Run scenarios through the real tutor (agent loop, tools, prompts) and score them."""
    from tutorgraph.evals import report
    from tutorgraph.evals.scenario import SCENARIO_DIR, load_scenarios, select

    settings = _settings_for(engine, model, base_url)
    chosen = select(
        load_scenarios(scenarios_dir or SCENARIO_DIR),
        lesson=lesson,
        scenario=scenario,
        explore=True if mode == "explore" else None,
    )
    if mode is not None and mode != "explore":
        if mode not in TEACHING_MODES:
            raise InputError(f"--mode must be explore or one of {', '.join(TEACHING_MODES)}")
        chosen = [s.model_copy(update={"mode": mode}) for s in chosen]
    name = label or (
        settings.llm.engine if settings.llm.engine == "offline" else settings.llm.model
    )
    if ablate:
        name += "-without-" + "-".join(ablate)
    result = asyncio.run(_run(chosen, settings, name, ablate or [], scratch))
    target = out or settings.data_dir / "evals" / f"{name.replace('/', '_')}.json"
    report.save(result, target)
    _print_summary(result)
    console.print(f"results: {target}")


async def _run(
    chosen: list[Scenario], settings: Settings, name: str, ablate: list[str], scratch: bool
) -> RunResult:
    from tutorgraph.cli.evaluation import evaluate

    def progress(scenario: Scenario, result: ScenarioResult) -> None:
        mark = "[green]pass[/]" if result.layers_pass and result.pedagogy_pass else "[red]fail[/]"
        console.print(f"{mark} {scenario.id}", highlight=False)

    return await evaluate(chosen, settings, name, ablate=ablate, scratch=scratch, progress=progress)


def _print_summary(result: RunResult) -> None:
    from tutorgraph.evals.report import comparison_rows

    _print_rows(comparison_rows([result]))


def _print_rows(rows: list[list[str]]) -> None:
    table = Table(*rows[0])
    for row in rows[1:]:
        table.add_row(*row)
    console.print(table)


@eval_app.command("compare")
def compare(
    results: Annotated[list[Path], typer.Argument(help="Two or more results JSON files.")],
) -> None:
    """Side by side: pass rates, each check and each judge criterion of two or more runs."""
    from tutorgraph.evals import report

    if len(results) < 2:
        raise InputError("compare needs at least two results files (from `tutorgraph eval run`)")
    _print_rows(report.comparison_rows([report.load(p) for p in results]))


@eval_app.command("report")
def write_report(
    results: Annotated[list[Path], typer.Argument(help="Results JSON files.")],
    out: Annotated[Path, typer.Option(help="HTML file to write.")] = Path("eval-report.html"),
) -> None:
    """An HTML report: the comparison, per-criterion charts, each scenario's transcript."""
    from tutorgraph.evals import report

    out.write_text(report.html_report([report.load(p) for p in results]), encoding="utf-8")
    console.print(f"wrote {out}")
