"""`tutorgraph interview`: a mock technical interview from a resume, in the terminal.

Interactive by default (an answer ends with an empty line; type `/code` to paste code to run in
the sandbox; Ctrl-D ends the interview with its scorecard). `--answers FILE` takes a YAML or JSON
list of answers and runs without a terminal; `--json` prints the scorecard as JSON on stdout
(everything else then goes to stderr)."""

from __future__ import annotations

import asyncio
import json
import sys
from collections import deque
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table

from tutorgraph.cli._answers import next_answer, read_answers
from tutorgraph.cli._console import console, err_console
from tutorgraph.engines import build_engine
from tutorgraph.errors import InputError
from tutorgraph.interview.context import InterviewContext
from tutorgraph.interview.service import InterviewService, InterviewView
from tutorgraph.learner_model.evaluator import Evaluator
from tutorgraph.llm import aclose_model
from tutorgraph.settings import Settings, load_settings
from tutorgraph.store import migrate
from tutorgraph.store.checkpoints import open_checkpointer
from tutorgraph.store.db import Database

SCORES = ("overall", "communication", "technical", "problem_solving", "code_quality")


def interview(
    resume: Annotated[
        Path, typer.Option("--resume", help="Resume file: PDF, DOCX, Markdown or text.")
    ],
    role: Annotated[str, typer.Option(help="The role you are interviewing for.")] = (
        "Software engineer"
    ),
    level: Annotated[str, typer.Option(help="junior, mid, senior or staff.")] = "mid",
    answers: Annotated[
        Path | None,
        typer.Option("--answers", help="YAML or JSON list of answers, used in order."),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the scorecard as JSON on stdout.")
    ] = False,
) -> None:
    """Rehearse a technical interview built from your resume; ends with a scorecard."""
    try:
        data = resume.read_bytes()
    except OSError as exc:
        raise InputError(f"--resume: cannot read {resume}: {exc.strerror}") from exc
    scripted = read_answers(answers) if answers is not None else None
    out = err_console if as_json else console
    view = asyncio.run(_run(load_settings(), out, resume.name, data, role, level, scripted))
    if as_json:
        sys.stdout.write(json.dumps(view.scorecard, indent=2) + "\n")
    else:
        show_scorecard(console, view)


async def _run(
    settings: Settings,
    out: Console,
    filename: str,
    data: bytes,
    role: str,
    level: str,
    scripted: deque[str] | None,
) -> InterviewView:
    database = Database(settings)
    model = build_engine(settings)
    try:
        migrate.require_current(settings)
        async with open_checkpointer(settings) as checkpointer:
            service = InterviewService(
                database=database,
                checkpointer=checkpointer,
                context=InterviewContext(
                    model=model, evaluator=Evaluator(model, grading=settings.grading)
                ),
                settings=settings.interview,
            )
            stored = await service.add_resume(user_id=None, filename=filename, data=data)
            labels = ", ".join(a.label for a in stored.anchors)
            out.print(f"[dim]From your resume: {escape(labels)}[/]", highlight=False)
            view = await service.start(user_id=None, resume_id=stored.id, role=role, level=level)
            shown = 0
            while view.status != "complete":
                shown = _show_new(out, view, shown)
                answer = next_answer(
                    out,
                    scripted,
                    title="You",
                    exhausted="The answers file has no more answers: ending the interview.",
                    on_ctrl_d="ends the interview",
                )
                if answer is None:
                    view = await service.end(interview_id=view.id, user_id=None)
                    break
                try:
                    view = await service.answer(interview_id=view.id, user_id=None, text=answer)
                except InputError as exc:
                    if scripted is not None:
                        raise
                    err_console.print(f"[yellow]{escape(str(exc))}[/]")
            _show_new(out, view, shown)
            return view
    finally:
        await aclose_model(model)
        database.dispose()


def _show_new(out: Console, view: InterviewView, shown: int) -> int:
    for message in view.messages[shown:]:
        if message.role == "interviewer":
            out.print(Panel(escape(message.text), title="Interviewer", border_style="cyan"))
    return len(view.messages)


def show_scorecard(out: Console, view: InterviewView) -> None:
    card = view.scorecard or {}
    table = Table(title="Scorecard", show_lines=True)
    table.add_column("Score")
    table.add_column("", justify="right")
    table.add_column("Evidence")
    for key in SCORES:
        score = card.get(key) or {}
        value = score.get("score")
        evidence = "\n".join(score.get("evidence", [])[:2])
        table.add_row(
            key.replace("_", " ").capitalize(),
            "not assessed" if value is None else f"{value}/100",
            escape(f"{score.get('summary', '')}\n{evidence}".strip()),
        )
    out.print(table)
    for title in ("strengths", "weaknesses", "recommendations", "topics_covered"):
        items = card.get(title) or []
        if items:
            out.print(f"[bold]{title.replace('_', ' ').capitalize()}[/]")
            for item in items:
                out.print(f"  • {escape(str(item))}", highlight=False)
    if card.get("ended_because"):
        out.print(f"[dim]{escape(str(card['ended_because']))}[/]", highlight=False)
