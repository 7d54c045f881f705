"""`tutorgraph calibrate ...`: fit the offline engines' fitted parameters again, by their
documented procedures, and (with --write) record the values and their provenance.

The procedure and the data it reads live in the benchmark package (`tutorgraph_bench.calibrate`,
the development half of the learner answers); without that package the command says so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from tutorgraph.cli._bench_group import MISSING, bench_installed
from tutorgraph.cli._console import console, fail
from tutorgraph.grading.parameters import HEADER, PARAMETERS_PATH, load_grading_parameters
from tutorgraph.parameter_files import render_parameter_file

calibrate_app = typer.Typer(
    help="Fit the offline engines' fitted parameters again (development data only).",
    no_args_is_help=True,
)


@calibrate_app.command("grading")
def grading(
    write: Annotated[
        bool,
        typer.Option(
            "--write", help="Record the fitted values, their provenance and the results file."
        ),
    ] = False,
    folds: Annotated[int, typer.Option(min=2, help="Cross-validation folds (by topic).")] = 5,
    splits: Annotated[
        Path, typer.Option(help="The benchmark split file naming the development topics.")
    ] = Path("benchmarks/splits.yaml"),
    answers: Annotated[
        Path | None,
        typer.Option(help="Another folder of learner answers (its development topics only)."),
    ] = None,
    parameters: Annotated[
        Path, typer.Option(help="The parameter file to read (and, with --write, rewrite).")
    ] = PARAMETERS_PATH,
    results: Annotated[
        Path | None,
        typer.Option(
            help="Where the per-point results go (default with --write: grading.json "
            "in calibration_runs/ beside the parameter file)."
        ),
    ] = None,
    lexical_model: Annotated[
        Path | None,
        typer.Option(
            help="Also refit the lexical model (calibration.json) on this SemEval-2013 CSV's "
            "train split, as `bench grading --fit` does."
        ),
    ] = None,
) -> None:
    """Cross-validate the offline grader's fitted parameters on the development half of the
    learner answers (grid per parameter, grouped k-fold by topic) and report, for each, today's
    value, the best one and their CV objective; --write records them."""
    if not bench_installed():
        fail(MISSING.replace("`tutorgraph bench`", "`tutorgraph calibrate`"))
    from tutorgraph_bench.calibrate import (
        calibrate_grading,
        development_answers,
        refit_lexical_model,
        updated_provenance,
    )

    current = load_grading_parameters(parameters)
    data = development_answers(splits, answers)
    if not data.answers:
        fail(f"no development-topic answers found ({data.description})")
    console.print(f"Fitting on {data.description}, {folds} folds by topic.", highlight=False)
    try:
        run = calibrate_grading(
            data,
            current.values,
            folds=folds,
            on_parameter=lambda name, points: console.print(
                f"  {name}: {points} grid points", highlight=False
            ),
        )
    except ValueError as exc:
        fail(str(exc))
    rows = [("parameter", "today", "best", "CV at today", "CV at best", "nested gain", "")]
    for fit in run.fits:
        today, best = fit.point(fit.current), fit.point(fit.best)
        rows.append(
            (
                fit.name,
                str(fit.current),
                str(fit.best),
                f"{today.mean:.3f}±{today.se:.3f}",
                f"{best.mean:.3f}±{best.se:.3f}",
                f"{fit.nested_gain:+.3f}±{fit.nested_se:.3f}",
                fit.decision,
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    console.print("CV objective: mean ± standard error over the folds", highlight=False)
    for row in rows:
        line = "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        console.print(line.rstrip(), highlight=False, soft_wrap=True)
    for fit in run.fits:
        console.print(f"{fit.name}: {fit.outcome}", highlight=False, soft_wrap=True)
    for fit in run.fits:
        grid = ", ".join(f"{p.value}: {p.mean:.3f}" for p in fit.grid)
        console.print(f"{fit.name} grid: {grid}", highlight=False, soft_wrap=True)
    if not run.adoptions_help:
        console.print("[yellow]The adopted values together do worse than today's: not adopted.[/]")
    refit = None
    if lexical_model is not None:
        refit = refit_lexical_model(lexical_model)
        console.print(refit.summary, highlight=False)
    target = results or (parameters.parent / "calibration_runs" / "grading.json" if write else None)
    if target is not None:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(run.to_json(), indent=1) + "\n", encoding="utf-8")
        console.print(f"wrote {target}")
    if not write:
        console.print("Nothing recorded (--write records the values and their provenance).")
        return
    if not run.adoptions_help:
        run = run.without_adoptions()
    assert target is not None
    changes = updated_provenance(run, current, results=_shown(target))
    parameters.write_text(render_parameter_file(current.updated(changes), HEADER), encoding="utf-8")
    console.print(f"wrote {parameters}")
    if refit is not None and refit.differs:
        refit.fitted.save(refit.path)
        console.print(f"wrote {refit.path}")


def _shown(path: Path) -> str:
    """`path` relative to the working directory when it is inside it (as the repository's
    files name each other), else as given."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)
