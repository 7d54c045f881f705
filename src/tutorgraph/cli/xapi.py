"""`tutorgraph xapi ...`: the xAPI statement queue."""

from __future__ import annotations

import typer

from tutorgraph.cli._console import console
from tutorgraph.errors import ConfigurationError
from tutorgraph.learning import xapi
from tutorgraph.settings import load_settings
from tutorgraph.store import migrate
from tutorgraph.store.db import Database

xapi_app = typer.Typer(help="xAPI statements for a Learning Record Store.", no_args_is_help=True)


@xapi_app.command("status")
def status() -> None:
    """How many statements wait for the LRS, and where they go."""
    settings = load_settings()
    migrate.require_current(settings)
    database = Database(settings)
    try:
        pending = xapi.pending_count(database)
    finally:
        database.dispose()
    where = settings.xapi.endpoint or "nowhere yet (set xapi.endpoint)"
    console.print(f"{pending} statement(s) queued; LRS: {where}")


@xapi_app.command("flush")
def flush() -> None:
    """Send every queued statement that is due to the LRS now."""
    settings = load_settings()
    migrate.require_current(settings)
    if not settings.xapi.enabled:
        raise ConfigurationError("xapi.endpoint is not set: there is no LRS to send to")
    database = Database(settings)
    try:
        report = xapi.flush(database, settings.xapi)
    finally:
        database.dispose()
    console.print(f"sent {report.sent}; {report.pending} still queued")
    if report.error:
        console.print(f"[red]the LRS did not take {report.failed}: {report.error}[/]")
        raise typer.Exit(1)
