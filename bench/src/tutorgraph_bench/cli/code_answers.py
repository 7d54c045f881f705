"""`tutorgraph bench code-answers`: code, config and worked answers graded with their checks
(the development half; the sealed half with --sealed, once per release commit)."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Annotated, Any

import typer
import yaml

from tutorgraph_bench.cli._app import OutOption, bench_app, console, err_console
from tutorgraph_bench.report import write_section
from tutorgraph_bench.splits import DEFAULT_SPLITS

CODE_RECORD = Path("benchmarks/sealed_code_answers.yaml")
RECORD_HEADER = (
    "# The code-answers benchmark's sealed half, one row per release commit (`tutorgraph bench\n"
    "# code-answers --sealed` on a clean checkout), appended by the command, never edited.\n"
)


@bench_app.command("code-answers")
def code_answers(
    splits: Annotated[Path, typer.Option("--splits", help="The topic halves (YAML).")] = (
        DEFAULT_SPLITS
    ),
    folder: Annotated[Path, typer.Option("--folder", help="The answer set.")] = Path(
        "benchmarks/code_answers"
    ),
    sealed: Annotated[
        bool,
        typer.Option(
            "--sealed",
            help="Measure the sealed half (a clean checkout, once per commit; appends a row "
            "to --record).",
        ),
    ] = False,
    record: Annotated[Path, typer.Option("--record", help="The sealed record (YAML).")] = (
        CODE_RECORD
    ),
    out: OutOption = Path("BENCHMARKS.md"),
) -> None:
    """Code, config and worked answers by independent writers, graded with their checks (code
    run in the sandbox, numbers computed) and by the text grader alone: correct code-only >=
    0.8, one slip between wrong and correct, wrong < 0.4, slip named, false misconceptions,
    sandbox cost. The development half; the sealed half only with --sealed."""
    from tutorgraph_bench.code_answers import grade_all, in_half, load, markdown, report
    from tutorgraph_bench.splits import load_split

    split = load_split(splits)
    commit = _release_commit(record) if sealed else None
    half = "sealed" if sealed else "dev"
    answers = [a for a in load(folder)]
    with console.status(f"grading the {half} half"):
        graded = in_half(grade_all(answers), split, half)
        unrun = in_half(grade_all(answers, run=False), split, half)
    measured = report(graded, f"{half} half")
    static = report(unrun, f"{half}, read statically (no sandbox)")
    for key in ("correct_code_only_pass", "slip_between", "wrong_fail", "slip_named"):
        console.print(f"{half}: {key} {getattr(measured, key).percent()}", highlight=False)
    console.print(
        f"{half}: false misconception on correct "
        f"{measured.false_misconception_on_correct.percent()}; sandbox median "
        f"{measured.cost_median_ms:.0f} ms, p95 {measured.cost_p95_ms:.0f} ms",
        highlight=False,
    )
    if commit is not None:
        _append(record, commit, measured)
        console.print(f"recorded commit {commit[:12]} in {record}")
        write_section(out, "code-answers-sealed", _sealed_markdown(record), after="code-answers")
    else:
        command = "tutorgraph bench code-answers"
        write_section(out, "code-answers", markdown([measured, static], command))
    console.print(f"wrote {out}")


def _release_commit(record: Path) -> str:
    from tutorgraph_bench.sealed import ReleaseRefused, release_commit

    try:
        return release_commit(Path("."), record)
    except ReleaseRefused as exc:
        err_console.print(f"[bold red]error:[/] {exc.message}", highlight=False, soft_wrap=True)
        raise typer.Exit(exc.exit_code) from exc


def _append(record: Path, commit: str, measured: Any) -> None:
    from tutorgraph_bench.code_answers import ROWS
    from tutorgraph_bench.sealed import load_record

    row = {
        "date": datetime.date.today().isoformat(),
        "commit": commit,
        "benchmark": "code-answers",
        "answers": measured.answers,
        "questions": measured.questions,
        **{key: getattr(measured, key).as_record() for key, _, _ in ROWS},
        "cost_median_ms": round(measured.cost_median_ms),
        "cost_p95_ms": round(measured.cost_p95_ms),
    }
    runs = [*load_record(record), row]
    body = yaml.safe_dump({"runs": runs}, sort_keys=False, allow_unicode=True)
    record.write_text(RECORD_HEADER + body, encoding="utf-8")


def _sealed_markdown(record: Path) -> str:
    from tutorgraph_bench.code_answers import ROWS
    from tutorgraph_bench.metrics import Interval
    from tutorgraph_bench.sealed import load_record

    lines = [
        "## Code, config and worked answers: the sealed half (one row per release)",
        "",
        "Command: `tutorgraph bench code-answers --sealed` (refuses uncommitted changes and a "
        f"commit already recorded; appends to `{record}`, which this section is rendered from).",
        "",
        "| date | commit | answers | " + " | ".join(label for _, label, _ in ROWS) + " | "
        "sandbox median / p95 |",
        "|" + "---|" * (len(ROWS) + 4),
    ]
    for run in load_record(record):
        cells = [str(run["date"]), f"`{str(run['commit'])[:12]}`", str(run["answers"])]
        for key, _, _ in ROWS:
            f = run.get(key)
            cells.append(
                f"{Interval(f['value'], f['low'], f['high'], f['n']).percent()} (n={f['n']})"
                if f
                else "n/a"
            )
        cells.append(f"{run.get('cost_median_ms')} / {run.get('cost_p95_ms')} ms")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
