"""`tutorgraph course build PATH...`: an author's files to a validated course from the terminal."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from sqlalchemy import select

from tutorgraph.cli._console import console, err_console
from tutorgraph.constructor import publish as publishing
from tutorgraph.constructor import readiness
from tutorgraph.constructor.build import build_course, collect_files, uploads_from
from tutorgraph.constructor.context import Upload
from tutorgraph.constructor.state import ConstructorState, ProgressEvent
from tutorgraph.content.extract import ExtractionLimits
from tutorgraph.engines import build_engine
from tutorgraph.errors import InputError, NotFoundError
from tutorgraph.llm import Model, aclose_model
from tutorgraph.settings import Settings, load_settings
from tutorgraph.store import migrate
from tutorgraph.store.db import Database
from tutorgraph.store.models import User

course_app = typer.Typer(help="Build courses from your own material.", no_args_is_help=True)


@course_app.command("build")
def build(
    paths: Annotated[
        list[Path], typer.Argument(help="Files or folders (md, txt, html, pdf, docx).")
    ],
    title: Annotated[str, typer.Option(help="The course title (default: from the files).")] = "",
    owner: Annotated[
        str | None, typer.Option(help="Publish to the database as this user's private course.")
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="Also write the course in the content format here.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    publish_anyway: Annotated[
        bool,
        typer.Option(
            "--publish-anyway",
            help="With --owner: publish even when the readiness report is below the bar.",
        ),
    ] = False,
) -> None:
    """Read the files, propose a structure, write a quiz bank, validate it, and publish
    (--owner) or export (--out). Review steps are approved as proposed; edit on /create.
    A course below the readiness bar is published only with --publish-anyway."""
    settings = load_settings()
    limits = ExtractionLimits(max_bytes=settings.limits.max_upload_bytes)
    uploads = uploads_from(collect_files(paths), limits)
    model = build_engine(settings)
    state = asyncio.run(_run(uploads, model, title, limits, quiet=as_json))
    if owner or out:
        publishing.course_title(state)  # a course nothing names is not published or written
    slug = publishing.choose_slug_offline(state, title)
    held = False
    if owner:
        report = readiness.assess_state(state)
        held = report is not None and not report.ready and not publish_anyway
        if not held:
            migrate.require_current(settings)
            slug = _publish(settings, state, owner)
    if out:
        root = publishing.export_course(state, out, slug)
        if not as_json:
            console.print(f"wrote {root}")
    _print_report(state, slug, as_json=as_json, published=bool(owner) and not held)
    if held:
        report = readiness.assess_state(state)
        reasons = readiness.failed_checks(report) if report else []
        say = err_console if as_json else console  # JSON output stays JSON
        say.print("[yellow]Not published: the course is below the readiness bar.[/]")
        for reason in reasons:
            say.print(f"  - {reason}", highlight=False)
        say.print("Improve it on /create, or run again with --publish-anyway.")
        raise typer.Exit(code=1)


async def _run(
    uploads: Sequence[Upload], model: Model, title: str, limits: ExtractionLimits, *, quiet: bool
) -> ConstructorState:
    progress = Progress(
        TextColumn("[bold]{task.fields[stage]}[/]"),
        BarColumn(),
        TextColumn("{task.description}"),
        TimeElapsedColumn(),
        console=console,
        disable=quiet,
        transient=False,
    )
    task = progress.add_task("starting", total=None, stage="build")

    def on_event(event: ProgressEvent) -> None:
        total = event.total or None
        progress.update(
            task,
            description=event.message[:80],
            stage=event.stage,
            total=total,
            completed=event.done if total else 0,
        )

    try:
        with progress:
            return await build_course(
                uploads, model=model, title=title, limits=limits, progress=on_event
            )
    finally:
        await aclose_model(model)


def _publish(settings: Settings, state: ConstructorState, email: str) -> str:
    database = Database(settings)
    try:
        with database.session() as session:
            user = session.scalar(select(User).where(User.email == email.strip().lower()))
            if user is None:
                raise NotFoundError(f"no user {email!r} (create one with tutorgraph users create)")
            slug = publishing.choose_slug(session, state.get("course_title") or "course", None)
            publishing.publish_course(session, state, owner_id=user.id, slug=slug)
            return slug
    finally:
        database.dispose()


def _print_report(state: ConstructorState, slug: str, *, as_json: bool, published: bool) -> None:
    structure, bank, report = state.get("structure"), state.get("quiz_bank"), state.get("report")
    if structure is None or bank is None or report is None:
        raise InputError("the build did not finish")
    if as_json:
        print(
            json.dumps(
                {
                    "slug": slug,
                    "published": published,
                    "units": len(structure.units),
                    "topics": len(structure.topics),
                    "questions": len(bank.kept()),
                    "dropped": bank.dropped,
                    "report": report.model_dump(mode="json"),
                },
                indent=2,
            )
        )
        return
    table = Table(title=f"{state.get('course_title') or structure.title}: structure")
    table.add_column("unit")
    table.add_column("topic")
    table.add_column("words", justify="right")
    table.add_column("questions", justify="right")
    table.add_column("builds on")
    for unit in structure.units:
        for topic_id in unit.topic_ids:
            topic = structure.topic(topic_id)
            count = sum(1 for i in bank.kept() if i.topic_id == topic_id)
            needs = ", ".join(structure.topic(p).title for p in topic.prerequisites)
            table.add_row(unit.title, topic.title, str(topic.words), str(count), needs)
    console.print(table)
    checks = Table(
        title=f"readiness {report.readiness}/100 ({'ready' if report.ready else 'not ready'})"
    )
    for column in ("check", "score", "detail"):
        checks.add_column(column)
    for check in report.checks:
        mark = "[green]ok[/]" if check.passed else "[yellow]![/]"
        checks.add_row(f"{mark} {check.name}", f"{check.score:.2f}", check.detail)
    console.print(checks)
    where = f"published as /courses/{slug} (private)" if published else "not published"
    console.print(f"{len(bank.kept())} question(s) kept, {bank.dropped} dropped; {where}")
