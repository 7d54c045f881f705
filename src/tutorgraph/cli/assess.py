"""`tutorgraph assess`: an adaptive assessment in the terminal, resumable, scriptable.

Interactive by default (an answer ends with an empty line; Ctrl-D stops and prints how to
resume; the answer `/finish` ends the assessment now, with a report on what was answered).
`--answers FILE` takes a YAML or JSON list of answers (`/finish` among them too) and runs
without a terminal; `--json` prints the final report as JSON on stdout (everything else then
goes to stderr)."""

from __future__ import annotations

import asyncio
import sys
from collections import deque
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console, Group
from rich.markdown import Markdown
from rich.markup import escape
from rich.panel import Panel
from rich.progress_bar import ProgressBar
from rich.table import Table

from tutorgraph.assessment.service import AssessmentReport, AssessmentService, AssessmentView
from tutorgraph.cli._answers import next_answer, read_answers
from tutorgraph.cli._console import console, err_console
from tutorgraph.engines import build_engine
from tutorgraph.errors import ConflictError, InputError, NotFoundError
from tutorgraph.learner_model.evaluator import Evaluator
from tutorgraph.llm import aclose_model
from tutorgraph.settings import Settings, load_settings
from tutorgraph.store import migrate, users
from tutorgraph.store.checkpoints import open_checkpointer
from tutorgraph.store.db import Database
from tutorgraph.wording import counted, percent

EXIT_UNFINISHED = 1
FINISH_COMMAND = "/finish"  # typed (or listed in --answers) instead of an answer: finish now


def assess(
    domain: Annotated[str, typer.Option(help="Knowledge-base domain (see `kb list`).")] = "python",
    level: Annotated[str, typer.Option(help="Target level: junior, mid, senior or staff.")] = "mid",
    resume: Annotated[
        str | None, typer.Option("--resume", help="Continue the assessment with this ID.")
    ] = None,
    answers: Annotated[
        Path | None,
        typer.Option("--answers", help="YAML or JSON list of answers, used in order."),
    ] = None,
    user: Annotated[
        str | None, typer.Option("--user", help="Email of the account that owns it.")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the final report as JSON on stdout.")
    ] = False,
) -> None:
    """Run an adaptive skill assessment: questions, then readiness, gaps and a learning plan."""
    scripted = read_answers(answers) if answers is not None else None
    out = err_console if as_json else console
    settings = load_settings()
    view = asyncio.run(_run(settings, out, domain, level, resume, user, scripted))
    if view.report is None:
        out.print(
            f"[yellow]Stopped before the end.[/] Resume with: "
            f"[bold]tutorgraph assess --resume {view.id}[/]",
            highlight=False,
        )
        if scripted is not None:
            raise typer.Exit(EXIT_UNFINISHED)
        return
    if as_json:
        sys.stdout.write(view.report.model_dump_json(indent=2) + "\n")
    else:
        show_report(console, view.report)


async def _run(
    settings: Settings,
    out: Console,
    domain: str,
    level: str,
    resume: str | None,
    email: str | None,
    scripted: deque[str] | None,
) -> AssessmentView:
    database = Database(settings)
    model = build_engine(settings)
    try:
        user_id = _check_database(database, email)
        async with open_checkpointer(settings) as checkpointer:
            service = AssessmentService(
                database=database,
                checkpointer=checkpointer,
                model=model,
                evaluator=Evaluator(model, grading=settings.grading),
            )
            if resume:
                view = await service.get(assessment_id=resume, user_id=None, any_owner=True)
            else:
                view = await service.start(user_id=user_id, domain=domain, target_level=level)
                out.print(f"Assessment [bold]{view.id}[/] ({view.domain}, {view.target_level})")
            while view.report is None:
                if view.interrupt is not None:
                    show_question(out, view)
                    answer = next_answer(out, scripted)
                    if answer is None:
                        return view
                else:
                    answer = ""  # stopped on an error last time: carry on
                try:
                    if answer.strip() == FINISH_COMMAND:
                        view = await service.finish(
                            assessment_id=view.id, user_id=None, any_owner=True
                        )
                    else:
                        view = await service.answer(
                            assessment_id=view.id, user_id=None, answer=answer, any_owner=True
                        )
                except (
                    InputError,
                    ConflictError,
                ) as exc:  # a blank answer: nothing counted, ask again
                    if scripted is not None:
                        raise
                    err_console.print(f"[yellow]{escape(str(exc))}[/]")
            return view
    finally:
        await aclose_model(model)
        database.dispose()


def _check_database(database: Database, email: str | None) -> int | None:
    migrate.require_current(database.settings)
    if email is None:
        return None
    with database.session() as session:
        account = users.get_user_by_email(session=session, email=email)
        if account is None:
            raise NotFoundError(f"--user: no account with email {email}")
        return account.id


def show_question(out: Console, view: AssessmentView) -> None:
    progress = view.interrupt
    if progress is None:
        return
    question = progress["question"]
    line = Table.grid(padding=(0, 2))
    left = view.left
    words = f"Question [bold]{progress['total_questions']}[/]"
    if left is not None:
        words += f" · topic {left.topic_number} of {left.topics} · " + (
            "the last question"
            if left.most == 0
            else f"about {counted(left.estimate, 'more question', 'more questions')}"
            f" (at most {left.most})"
        )
    line.add_row(
        words,
        ProgressBar(
            total=left.topics if left else 1, completed=progress["topics_evaluated"], width=30
        ),
    )
    out.print(line, highlight=False)
    if view.answered:
        out.print(f"[dim]Type {FINISH_COMMAND} to finish now with a report on your answers.[/]")
    out.print(
        Panel(
            Markdown(question["text"]),
            title=f"[bold]{escape(view.topic_title or question['topic'])}[/]",
            subtitle=f"{question['bloomLevel']} · {question['questionType']}",
            border_style="cyan",
        )
    )


def show_report(out: Console, report: AssessmentReport) -> None:
    out.print(
        Panel(
            f"[bold]Readiness {report.overall_readiness}/100[/] for the {report.target_level} "
            f"level\n{escape(report.summary)}\n"
            f"[dim]{counted(report.questions_asked, 'question')} answered; "
            f"{counted(len(report.topics_evaluated), 'topic')} assessed"
            + (f", {len(report.not_assessed)} not assessed" if report.not_assessed else "")
            + "[/]",
            title=f"{report.domain} report",
            border_style="green",
        )
    )
    graph = Table("topic", "confidence", "target", "Bloom", title="Knowledge graph")
    for topic_id, target in report.target_graph.items():
        node = report.knowledge_graph["nodes"].get(topic_id)
        graph.add_row(
            escape(report.topic_titles.get(topic_id, topic_id)),
            ProgressBar(total=1.0, completed=node["confidence"], width=20)
            if node
            else "[dim]not assessed[/]",
            percent(target),
            node["bloom_level"] if node else "-",
        )
    out.print(graph)
    if report.gaps:
        gaps = Table("topic", "priority", "now", "target", "recommendation", title="Gaps")
        for gap in report.gaps:
            gaps.add_row(
                escape(gap["title"]),
                gap["priority"],
                percent(gap["current_confidence"]),
                percent(gap["target_confidence"]),
                escape(gap["recommendation"]),
            )
        out.print(gaps)
    else:
        out.print("[green]No gaps: every topic assessed meets the target for this level.[/]")
    phases = []
    for number, phase in enumerate(report.plan["phases"], start=1):
        resources = "\n".join(
            f"  {escape('[' + r['type'] + ']')} {escape(r['title'])}"
            + (f" <{escape(r['url'])}>" if r["url"] else "")
            for r in phase["resources"]
        )
        phases.append(
            f"[bold]{number}. {escape(phase['title'])}[/] (about {phase['estimated_hours']:g} h)\n"
            f"{escape(phase['rationale'])}\n{resources}"
        )
    out.print(
        Panel(
            Group(escape(report.plan["summary"]), *phases),
            title="Learning plan",
            subtitle=f"about {report.plan['total_hours']:g} hours",
        )
    )
