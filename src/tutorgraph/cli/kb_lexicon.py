"""`tutorgraph kb lexicon`: check the paraphrase lexicon the offline grader reads answers with."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from tutorgraph.cli._console import console, fail
from tutorgraph.text.lexicon_check import check_lexicon
from tutorgraph.text.meaning import LEXICON_PATH
from tutorgraph.wording import counted


def lexicon(
    path: Annotated[
        Path, typer.Argument(help="A lexicon YAML file (default: the shipped one).")
    ] = LEXICON_PATH,
) -> None:
    """Check the paraphrase lexicon: its format, no entry in two groups, no everyday word read as a
    Python or ML idea without context, each group's example read as it and no counterexample
    (exits 2 on a problem)."""
    report = check_lexicon(path)
    for problem in report.problems:
        console.print(f"[red]error[/] {escape(problem)}", highlight=False, soft_wrap=True)
    if report.problems and not report.examples_checked:
        console.print("examples and counterexamples are read once these are fixed")
    if report.problems:
        fail(f"{path}: {counted(len(report.problems), 'lexicon problem')}", 2)
    console.print(
        f"[green]ok[/] {path}: {counted(report.groups, 'group')}, "
        f"{counted(report.entries, 'entry', 'entries')} ({report.in_context} read so only in "
        "context); every example is read as its group and no counterexample is",
        highlight=False,
        soft_wrap=True,
    )
