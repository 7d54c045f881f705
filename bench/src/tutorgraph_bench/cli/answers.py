"""`tutorgraph bench answers` (the development half) and `tutorgraph bench release` (the sealed
half, once per release commit)."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Annotated

import typer

from tutorgraph_bench.cli._app import OutOption, bench_app, console, err_console
from tutorgraph_bench.report import write_section
from tutorgraph_bench.sealed import DEFAULT_RECORD
from tutorgraph_bench.splits import DEFAULT_SPLITS, TopicSplit

RELEASE = "tutorgraph bench release"
SplitsOption = Annotated[
    Path, typer.Option("--splits", help="The halves and the answer sets (YAML).")
]
RecordOption = Annotated[
    Path, typer.Option("--record", help="The sealed figures' record, appended to (YAML).")
]


@bench_app.command("answers")
def answers(
    splits: SplitsOption = DEFAULT_SPLITS,
    sealed: Annotated[
        bool,
        typer.Option(
            "--sealed",
            help="Measure the sealed half instead (a clean checkout, once per commit; appends "
            "a dated row to --record): what `bench release` runs.",
        ),
    ] = False,
    record: RecordOption = DEFAULT_RECORD,
    out: OutOption = Path("BENCHMARKS.md"),
) -> None:
    """The offline grader on learners' own words, the development half: ordering correct >
    partial > wrong, pass and fail rates, error types and misconceptions, with 95% intervals.
    The sealed half only with --sealed."""
    from tutorgraph_bench.splits import load_split

    split = load_split(splits)
    if sealed:
        release_sealed(split, splits=splits, record=record, out=out)
        return
    _development(split, splits=splits, record=record, out=out)


def _development(split: TopicSplit, *, splits: Path, record: Path, out: Path) -> None:
    from tutorgraph_bench._answers_report import markdown, row_label
    from tutorgraph_bench.learner_answers import development_half, reports

    tuned = [s for s in split.present_sets() if s.tuned]
    if not tuned:
        console.print(f"[yellow]no development answer set present ({splits}): nothing measured[/]")
        return
    loaded = development_half(split)
    measured = reports(loaded, "dev")
    for r in measured:
        console.print(
            f"{row_label(r)}: {r.answers} answers, ordering {r.ordering.percent()}, correct >= "
            f"0.6 {r.correct_pass.percent()}, wrong < 0.4 {r.wrong_fail.percent()}, error type "
            f"{r.error_type_accuracy.percent()}, misconception {r.misconception_recall.percent()}",
            highlight=False,
        )
    command = "tutorgraph bench answers" + (
        f" --splits {splits}" if splits != DEFAULT_SPLITS else ""
    )
    names = ", ".join(f"`benchmarks/{s.name}/`" for s in tuned)
    write_section(out, "learner-answers", markdown(measured, command, split=split, sets=names))
    _render_sealed(split, record=record, out=out)
    console.print(f"wrote {out}")


def _render_sealed(split: TopicSplit, *, record: Path, out: Path) -> None:
    """The sealed section from the record as it stands (nothing is measured here)."""
    from tutorgraph_bench.sealed import load_record, markdown

    text = markdown(load_record(record), split, RELEASE)
    write_section(out, "learner-answers-sealed", text, after="learner-answers")


def release_sealed(split: TopicSplit, *, splits: Path, record: Path, out: Path) -> None:
    """Refuse unless the checkout is clean and its commit unrecorded; then grade the sealed
    half of every present set, append the row and render the section from the record."""
    from tutorgraph_bench.sealed import ReleaseRefused, measure, record_run, release_commit

    try:
        commit = release_commit(Path("."), record)
    except ReleaseRefused as exc:
        err_console.print(f"[bold red]error:[/] {exc.message}", highlight=False, soft_wrap=True)
        raise typer.Exit(exc.exit_code) from exc
    with console.status("grading the sealed half"):
        measured = measure(split)
    for s in measured:
        r = s.report
        console.print(
            f"sealed, {s.name}{'' if s.clean else ' (not clean)'}: {r.answers} answers, ordering "
            f"{r.ordering.percent()}, correct >= 0.6 {r.correct_pass.percent()}, wrong < 0.4 "
            f"{r.wrong_fail.percent()}",
            highlight=False,
        )
    record_run(record, commit=commit, split=split, sets=measured, today=datetime.date.today())
    console.print(f"recorded commit {commit[:12]} in {record}")
    _render_sealed(split, record=record, out=out)
    console.print(f"wrote {out}")


@bench_app.command("release")
def release(
    splits: SplitsOption = DEFAULT_SPLITS,
    record: RecordOption = DEFAULT_RECORD,
    out: OutOption = Path("BENCHMARKS.md"),
) -> None:
    """The sealed halves, once per release: refuses uncommitted changes (`git status
    --porcelain`) and a commit already recorded; appends one dated row (commit, figures with
    95% intervals) to --record and renders BENCHMARKS.md's sealed section from it."""
    from tutorgraph_bench.splits import load_split

    release_sealed(load_split(splits), splits=splits, record=record, out=out)
