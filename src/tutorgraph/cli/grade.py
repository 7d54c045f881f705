"""`tutorgraph grade`: grade one answer, or a CSV of answers, with the configured engine."""

from __future__ import annotations

import asyncio
import csv
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.panel import Panel
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from tutorgraph.cli._console import console, err_console, fail
from tutorgraph.engines import build_engine
from tutorgraph.grading.types import GradingRequest
from tutorgraph.learner_model.evaluator import Evaluator, GradeResult
from tutorgraph.llm import aclose_model
from tutorgraph.settings import load_settings

REQUIRED_COLUMNS = ("question", "reference_answer", "student_answer")
ADDED_COLUMNS = ("score", "error_type", "decision")


def grade(
    question: Annotated[str | None, typer.Option(help="The question asked.")] = None,
    reference: Annotated[str | None, typer.Option(help="The reference (golden) answer.")] = None,
    answer: Annotated[str | None, typer.Option(help="The learner's answer.")] = None,
    concept: Annotated[
        str | None, typer.Option(help="Knowledge-base topic id (adds its misconceptions).")
    ] = None,
    batch: Annotated[
        Path | None,
        typer.Option(help="CSV with question, reference_answer, student_answer columns."),
    ] = None,
    out: Annotated[Path | None, typer.Option(help="Where --batch writes its results.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Grade an answer against a reference: score, rubric, error type, feedback, decision."""
    if batch is not None:
        if out is None:
            fail("--batch needs --out OUT.csv", 2)
        assert out is not None
        asyncio.run(_grade_batch(batch, out))
        return
    if not (question and reference and answer is not None):
        fail("give --question, --reference and --answer (or --batch IN.csv --out OUT.csv)", 2)
    assert question is not None and reference is not None and answer is not None
    request = GradingRequest(
        question=question, reference_answer=reference, answer=answer, concept=concept
    )
    result = asyncio.run(_grade_one(request))
    if as_json:
        sys.stdout.write(result.model_dump_json(indent=2) + "\n")
        return
    _show(result)


async def _grade_one(request: GradingRequest) -> GradeResult:
    settings = load_settings()
    model = build_engine(settings)
    try:
        return await Evaluator(model, grading=settings.grading).grade(request)
    finally:
        await aclose_model(model)


def _show(result: GradeResult) -> None:
    rubric = result.rubric
    lines = [
        f"[bold]score[/] {result.score:.2f}   [bold]decision[/] {result.decision}   "
        f"[bold]error[/] {result.error_type or '-'}   [dim]({result.grader} grader)[/]",
        f"correctness {rubric.correctness:.2f} · completeness {rubric.completeness:.2f} · "
        f"clarity {rubric.clarity:.2f}",
    ]
    if result.misconceptions:
        lines.append("misconceptions: " + "; ".join(m.description for m in result.misconceptions))
    if result.missing_key_points:
        lines.append("missing: " + "; ".join(result.missing_key_points))
    lines.append("")
    lines.append(result.feedback)
    console.print(Panel("\n".join(lines), title="Grade", expand=False))
    for warning in result.warnings:
        err_console.print(f"[yellow]warning:[/] {warning}")


async def _grade_batch(source: Path, target: Path) -> None:
    try:
        handle = source.open(newline="", encoding="utf-8-sig")
    except OSError as exc:
        fail(f"cannot read {source}: {exc.strerror}", 2)
        return
    with handle:
        reader = csv.DictReader(handle)
        fields = list(reader.fieldnames or [])
        missing = [c for c in REQUIRED_COLUMNS if c not in fields]
        if missing:
            fail(f"{source}: missing column(s) {', '.join(missing)}", 2)
        rows = list(enumerate(reader, start=2))
    settings = load_settings()
    model = build_engine(settings)
    evaluator = Evaluator(model, grading=settings.grading)
    written = skipped = 0
    try:
        with (
            target.open("w", newline="", encoding="utf-8") as out_handle,
            Progress(
                TextColumn("grading"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                console=err_console,
            ) as progress,
        ):
            writer = csv.DictWriter(
                out_handle, fieldnames=[*fields, *[c for c in ADDED_COLUMNS if c not in fields]]
            )
            writer.writeheader()
            task = progress.add_task("grading", total=len(rows))
            for line, row in rows:
                problem = _row_problem(row)
                if problem:
                    err_console.print(f"[yellow]skipped line {line}:[/] {problem}")
                    skipped += 1
                else:
                    request = GradingRequest(
                        question=row["question"],
                        reference_answer=row["reference_answer"],
                        answer=row["student_answer"] or "",
                    )
                    result = await evaluator.grade(request)
                    row.update(
                        score=f"{result.score:.4f}",
                        error_type=result.error_type or "",
                        decision=result.decision,
                    )
                    writer.writerow({k: v for k, v in row.items() if k is not None})
                    written += 1
                progress.advance(task)
    finally:
        await aclose_model(model)
    console.print(f"graded {written} row(s) into {target}; skipped {skipped} malformed row(s)")


def _row_problem(row: dict[str | None, str | None]) -> str | None:
    if None in row:
        return "more fields than the header has columns"
    for column in ("question", "reference_answer"):
        if not (row.get(column) or "").strip():
            return f"empty {column}"
    if row.get("student_answer") is None:
        return "missing student_answer field"
    return None
