"""`tutorgraph kb ...`: inspect the knowledge base and validate authors' YAML."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from tutorgraph.cli._console import console, fail
from tutorgraph.cli.kb_lexicon import lexicon
from tutorgraph.knowledge import TARGET_LEVELS, get_domain, load_domain_file, shipped_domains
from tutorgraph.knowledge.lint import lint_domain
from tutorgraph.wording import counted

kb_app = typer.Typer(
    help="Knowledge-base domains: list, show, validate, checks; the paraphrase lexicon: lexicon.",
    no_args_is_help=True,
)
kb_app.command("lexicon")(lexicon)


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
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="List every warning.")] = False,
) -> None:
    """Check a domain file: schema, ids, prerequisites and cycles (exits 2 on the first), then
    its grading content against the offline grader: phrasings, cues (exits 2 on an error)."""
    kb = load_domain_file(path)
    questions = sum(len(t.questions) for t in kb.domain.topics)
    findings = lint_domain(kb.domain)
    warnings = [f for f in findings if f.level == "warning"]
    for finding in findings:
        if finding.level == "warning" and not verbose:
            continue
        style = "red" if finding.level == "error" else "yellow"
        console.print(
            f"[{style}]{finding.level}[/] {finding.where}: {escape(finding.message)}",
            highlight=False,
        )
    if warnings and not verbose:
        console.print(
            f"[yellow]{counted(len(warnings), 'warning')}[/] about grading content "
            "(--verbose lists them)"
        )
    errors = sum(f.level == "error" for f in findings)
    if errors:
        fail(f"{path}: {counted(errors, 'grading content error')}", 2)
    phrasings = sum(
        len(alternatives)
        for topic in kb.domain.topics
        for question in topic.questions
        for alternatives in question.phrasings.values()
    )
    examples = sum(len(q.examples) for topic in kb.domain.topics for q in topic.questions)
    console.print(
        f"[green]ok[/] {path}: domain {kb.name}, {len(kb.topics)} topics, {questions} questions, "
        f"{phrasings} accepted phrasings, {examples} graded example answers"
    )


@kb_app.command("checks")
def checks(
    domain: Annotated[
        str | None, typer.Argument(help="A domain name or YAML file (default: every shipped one).")
    ] = None,
) -> None:
    """Run every question's answer checks on its `solution` (each case and value must accept it)
    and on an answer that does nothing (no case may pass); exits 2 on a problem."""
    from tutorgraph.grading.checks.verify import verify

    if domain is None:
        bases = list(shipped_domains().values())
    elif domain.endswith((".yaml", ".yml")):
        bases = [load_domain_file(Path(domain))]
    else:
        bases = [get_domain(domain)]
    problems = checked = unrun = 0
    for kb in bases:
        for topic in kb.domain.topics:
            for question in topic.questions:
                if question.checks is None:
                    continue
                result = verify(question.id, question.checks)
                checked += 1
                unrun += not result.ran
                for problem in result.problems:
                    problems += 1
                    console.print(
                        f"[red]error[/] {escape(question.id)}: {escape(problem)}",
                        highlight=False,
                        soft_wrap=True,
                    )
    if unrun:
        console.print(
            f"[yellow]{counted(unrun, 'question')}' cases not run: bubblewrap is not available "
            "(apt-get install bubblewrap)[/]"
        )
    if problems:
        fail(f"{counted(problems, 'problem')} in {counted(checked, 'checked question')}", 2)
    console.print(
        f"[green]ok[/] {counted(checked, 'question')} with checks: each accepts its solution"
    )
