"""Typer application: every subcommand hangs off `app`."""

from __future__ import annotations

import logging
import sys
from typing import Annotated

import typer

from tutorgraph import __version__
from tutorgraph.cli._bench_group import add_bench_group
from tutorgraph.cli._console import console, err_console
from tutorgraph.cli.assess import assess
from tutorgraph.cli.calibrate import calibrate_app
from tutorgraph.cli.course import course_app
from tutorgraph.cli.db import db_app
from tutorgraph.cli.evals import eval_app
from tutorgraph.cli.grade import grade
from tutorgraph.cli.interview import interview
from tutorgraph.cli.kb import kb_app
from tutorgraph.cli.mastery import mastery_app
from tutorgraph.cli.users import users_app
from tutorgraph.cli.worker import worker
from tutorgraph.cli.xapi import xapi_app
from tutorgraph.errors import ConfigurationError, TutorgraphError
from tutorgraph.settings import load_settings

app = typer.Typer(
    name="tutorgraph",
    help="tutorgraph: an open-source adaptive learning platform (tutor, assessment, practice).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
app.add_typer(db_app, name="db")
app.add_typer(users_app, name="users")
app.add_typer(kb_app, name="kb")
add_bench_group(app)  # when the benchmark package is installed
app.add_typer(mastery_app, name="mastery")
app.add_typer(calibrate_app, name="calibrate")
app.add_typer(eval_app, name="eval")
app.add_typer(xapi_app, name="xapi")
app.add_typer(course_app, name="course")
app.command()(grade)
app.command()(assess)
app.command()(interview)
app.command()(worker)


def _version(value: bool) -> None:
    if value:
        console.print(f"tutorgraph {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    """Configuration comes from settings.yaml, TUTORGRAPH_* variables and .env."""


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Interface to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    reload: Annotated[bool, typer.Option(help="Reload on code changes (development).")] = False,
    workers: Annotated[
        int,
        typer.Option(
            min=1,
            help="Server processes on this port (PostgreSQL only: SQLite serves one process).",
        ),
    ] = 1,
) -> None:
    """Serve the web app and the API."""
    import uvicorn

    settings = load_settings()
    from tutorgraph.server import create_app
    from tutorgraph.store import migrate

    migrate.require_current(settings)

    console.print(
        f"tutorgraph {__version__} on [bold]http://{host}:{port}[/] "
        f"(engine: {settings.llm.engine}, database: {settings.sqlalchemy_url.split(':')[0]})"
    )
    if workers > 1 and not settings.sqlalchemy_url.startswith("postgresql"):
        raise ConfigurationError(
            "--workers: several processes need PostgreSQL (set TUTORGRAPH_DATABASE_URL)"
        )
    # uvicorn would believe X-Forwarded-For from 127.0.0.1 (or FORWARDED_ALLOW_IPS): the app
    # does that itself, from `trusted_proxies` only (server.py).
    if reload or workers > 1:  # each process builds its app from the same settings
        uvicorn.run(
            "tutorgraph.server:create_app",
            factory=True,
            host=host,
            port=port,
            reload=reload,
            workers=None if reload else workers,
            proxy_headers=False,
        )
    else:
        uvicorn.run(
            create_app(settings), host=host, port=port, log_level="info", proxy_headers=False
        )


@app.command()
def seed() -> None:
    """Load the courses in the content directory into the database (safe to re-run)."""
    from tutorgraph.cli.seed import run_seed

    run_seed(load_settings())


def main() -> None:
    """Entry point: run the app, turning tutorgraph errors into a message and an exit code."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        app()
    except TutorgraphError as exc:
        err_console.print(f"[bold red]error:[/] {exc.message}", highlight=False, soft_wrap=True)
        sys.exit(exc.exit_code)
