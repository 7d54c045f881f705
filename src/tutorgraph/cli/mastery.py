"""`tutorgraph mastery ...`: knowledge-tracing maintenance."""

from __future__ import annotations

from typing import Annotated

import typer

from tutorgraph.cli._console import console
from tutorgraph.errors import InputError
from tutorgraph.learner_model.refit_schedule import refit
from tutorgraph.settings import load_settings
from tutorgraph.store import migrate
from tutorgraph.store.db import Database

mastery_app = typer.Typer(
    help="Mastery tracking: refit BKT from stored answers.", no_args_is_help=True
)


@mastery_app.command("fit")
def fit(
    min_observations: Annotated[
        int | None,
        typer.Option(help="Answers a concept needs before it is refitted (mastery setting)."),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(help="auto, bkt or bkt_forgetting (default: the mastery.model setting)."),
    ] = None,
) -> None:
    """Refit per-concept BKT parameters (EM) from every stored graded answer."""
    settings = load_settings()
    migrate.require_current(settings)
    if model not in (None, "auto", "bkt", "bkt_forgetting"):
        raise InputError("model: must be auto, bkt or bkt_forgetting")
    overrides: dict[str, object] = {}
    if model is not None:
        overrides["model"] = model
    if min_observations is not None:
        overrides["min_observations"] = min_observations
    mastery = settings.mastery.model_copy(update=overrides)
    database = Database(settings)
    try:
        report = refit(database, mastery)
    finally:
        database.dispose()
    if report.reason:
        console.print(f"model: {report.model} ({report.reason})")
    for name, value in report.holdout_auc.items():
        console.print(f"  held-out AUC {name}: {value:.4f}")
    min_observations = mastery.min_observations
    for concept, n in sorted(report.fitted.items()):
        console.print(f"fitted {concept} from {n} answers")
    for concept, n in sorted(report.skipped.items()):
        console.print(f"[dim]skipped {concept}: {n} answers (< {min_observations})[/]")
    if not report.fitted and not report.skipped:
        console.print("no graded answers stored yet")
