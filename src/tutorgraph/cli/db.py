"""`tutorgraph db ...`: schema migrations."""

from __future__ import annotations

import typer

from tutorgraph.cli._console import console
from tutorgraph.settings import load_settings
from tutorgraph.store import migrate

db_app = typer.Typer(help="Database schema: upgrade and inspect.", no_args_is_help=True)


@db_app.command("upgrade")
def upgrade() -> None:
    """Apply every pending migration (creates the SQLite file on first run)."""
    settings = load_settings()
    migrate.upgrade(settings)
    console.print(f"database at revision [bold]{migrate.current_revision(settings)}[/]")


@db_app.command("current")
def current() -> None:
    """Show the database's migration revision."""
    console.print(migrate.current_revision(load_settings()) or "empty (run: tutorgraph db upgrade)")
