"""`tutorgraph kb ...`: inspect the knowledge base and validate authors' YAML."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from tutorgraph.cli._console import console
from tutorgraph.knowledge import TARGET_LEVELS, get_domain, load_domain_file, shipped_domains

kb_app = typer.Typer(help="Knowledge-base domains: list, show, validate.", no_args_is_help=True)


@kb_app.command("list")
def list_domains() -> None:
    """List the shipped domains with their topic and question counts."""
    table = Table("domain", "title", "topics", "questions")
    for name, kb in shipped_domains().items():
        questions = sum(len(t.questions) for t in kb.domain.topics)
        table.add_row(name, kb.domain.title, str(len(kb.topics)), str(questions))
    console.print(table)


@kb_app.command("show")
def show(domain: Annotated[str, typer.Argument(help="Domain name, e.g. python.")]) -> None:
    """Show a domain's topics in prerequisite order."""
    kb = get_domain(domain)
    table = Table(
        "topic", "title", "levels", "prerequisites", "diff.", "questions", title=kb.domain.title
    )
    for topic_id in kb.order:
        topic = kb.topic(topic_id)
        table.add_row(
            topic.id,
            topic.title,
            " ".join(lvl for lvl in TARGET_LEVELS if lvl in topic.target_levels),
            ", ".join(topic.prerequisites) or "-",
            str(topic.difficulty),
            str(len(topic.questions)),
        )
    console.print(table)


@kb_app.command("validate")
def validate(
    path: Annotated[Path, typer.Argument(help="A domain YAML file to check.")],
) -> None:
    """Check a domain file: schema, ids, prerequisites and cycles. Exits 2 on the first error."""
    kb = load_domain_file(path)
    questions = sum(len(t.questions) for t in kb.domain.topics)
    console.print(
        f"[green]ok[/] {path}: domain {kb.name}, {len(kb.topics)} topics, {questions} questions"
    )
