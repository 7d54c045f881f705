"""`tutorgraph mastery ...`: knowledge-tracing maintenance."""

from __future__ import annotations

from typing import Annotated

import typer

from tutorgraph.cli._console import console
from tutorgraph.grading.refit import MIN_OBSERVATIONS, refit_concepts
from tutorgraph.settings import load_settings
from tutorgraph.store import migrate
from tutorgraph.store.db import Database

mastery_app = typer.Typer(
    help="Mastery tracking: refit BKT from stored answers.", no_args_is_help=True
)


@mastery_app.command("fit")
def fit(
    min_observations: Annotated[
        int, typer.Option(help="Answers a concept needs before it is refitted.")
    ] = MIN_OBSERVATIONS,
) -> None:
    """Refit per-concept BKT parameters (EM) from every stored graded answer."""
    settings = load_settings()
    migrate.require_current(settings)
    database = Database(settings)
    try:
        with database.session() as session:
            report = refit_concepts(session=session, min_observations=min_observations)
    finally:
        database.dispose()
    for concept, n in sorted(report.fitted.items()):
        console.print(f"fitted {concept} from {n} answers")
    for concept, n in sorted(report.skipped.items()):
        console.print(f"[dim]skipped {concept}: {n} answers (< {min_observations})[/]")
    if not report.fitted and not report.skipped:
        console.print("no graded answers stored yet")
