"""The sealed half: measured once per release commit, appended to a record, never during tuning.

`tutorgraph bench release` (and `tutorgraph bench answers --sealed`, the same measurement for
the learner answers alone) refuses to run when `git status --porcelain` shows any change, so the
figures belong to a commit anyone can check out, and refuses a commit the record already holds,
so a figure is not re-measured until it pleases. Each run appends one dated row (date, commit,
figures with their 95% intervals) to `benchmarks/sealed_results.yaml`; BENCHMARKS.md's sealed
section is rendered from that record, every row of it, so a run that disappointed stays visible.
"""

from __future__ import annotations

import datetime
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from tutorgraph.errors import TutorgraphError
from tutorgraph_bench.learner_answers import AnswerReport, grade_all, report, sealed_halves
from tutorgraph_bench.metrics import Interval
from tutorgraph_bench.splits import TopicSplit

DEFAULT_RECORD = Path("benchmarks/sealed_results.yaml")
RECORD_HEADER = (
    "# The sealed halves' figures, one row per release run (`tutorgraph bench release` or\n"
    "# `tutorgraph bench answers --sealed`, on a clean checkout, once per commit), appended by\n"
    "# the command and never edited by hand; BENCHMARKS.md's sealed section is rendered from it.\n"
)
# The figures a row records, in the order the report shows them.
FIGURES = (
    ("ordering", "ordering c > p > w"),
    ("correct_pass", "correct >= 0.6"),
    ("wrong_fail", "wrong < 0.4"),
    ("error_type_accuracy", "error type acc."),
    ("misconception_recall", "misconception found"),
    ("misconception_false_on_correct", "false misconception on correct"),
)

Git = Callable[[Sequence[str], Path], str]


class ReleaseRefused(TutorgraphError):
    """The sealed half may not be measured now (uncommitted changes, or already recorded)."""


def run_git(args: Sequence[str], root: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
    )
    return done.stdout


def load_record(path: Path) -> list[dict[str, Any]]:
    """The recorded runs, oldest first (none when the file does not exist yet)."""
    if not path.is_file():
        return []
    raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return list(raw.get("runs") or [])


def release_commit(root: Path, record: Path, git: Git = run_git) -> str:
    """The commit to measure: HEAD of a clean checkout that the record does not hold yet."""
    try:
        status = git(["status", "--porcelain"], root)
        commit = git(["rev-parse", "HEAD"], root).strip()
    except (OSError, subprocess.CalledProcessError) as exc:
        raise ReleaseRefused(
            f"the sealed half is measured on a git commit, and {root} is not a git checkout "
            f"with one ({exc})"
        ) from exc
    changed = [line[3:] for line in status.splitlines() if line.strip()]
    if changed:
        shown = ", ".join(changed[:5]) + (
            f" and {len(changed) - 5} more" if len(changed) > 5 else ""
        )
        raise ReleaseRefused(
            f"refusing to measure the sealed half: `git status --porcelain` shows uncommitted "
            f"changes ({shown}). It is measured once per release on a committed tree; commit "
            "(or remove) the changes first."
        )
    for run in load_record(record):
        if run.get("commit") == commit:
            raise ReleaseRefused(
                f"refusing to measure the sealed half again: commit {commit[:12]} was already "
                f"measured on {run.get('date')} ({record}). The sealed half is measured once per "
                "release commit."
            )
    return commit


@dataclass(frozen=True)
class SealedSet:
    """One set's sealed half, graded."""

    name: str
    clean: bool
    note: str
    report: AnswerReport
    ordering_no_examples: Interval


def measure(split: TopicSplit) -> list[SealedSet]:
    """Grade the sealed topics of every present set, set by set."""
    measured = []
    for answer_set, answers in sealed_halves(split):
        full = report(grade_all(answers), f"sealed, {answer_set.name}")
        bare = report(grade_all(answers, examples="none"), f"sealed, {answer_set.name}", "none")
        measured.append(
            SealedSet(answer_set.name, not answer_set.tuned, answer_set.note, full, bare.ordering)
        )
    return measured


def record_run(
    path: Path, *, commit: str, split: TopicSplit, sets: Sequence[SealedSet], today: datetime.date
) -> dict[str, Any]:
    """Append one dated row for this run and return it."""
    row: dict[str, Any] = {
        "date": today.isoformat(),
        "commit": commit,
        "benchmark": "learner-answers",
        "split_decided": split.decided.isoformat(),
        "sets": [
            {
                "set": s.name,
                "clean": s.clean,
                "answers": s.report.answers,
                "questions": s.report.questions,
                **{key: getattr(s.report, key).as_record() for key, _ in FIGURES},
                "ordering_no_examples": s.ordering_no_examples.as_record(),
            }
            for s in sets
        ],
    }
    runs = [*load_record(path), row]
    body = yaml.safe_dump({"runs": runs}, sort_keys=False, allow_unicode=True)
    path.write_text(RECORD_HEADER + body, encoding="utf-8")
    return row


def _cell(figure: dict[str, Any] | None) -> str:
    if not figure:
        return "n/a"
    value = Interval(figure["value"], figure["low"], figure["high"], figure["n"])
    return f"{value.percent()} (n={value.n})"


def markdown(runs: Sequence[dict[str, Any]], split: TopicSplit, command: str) -> str:
    """The BENCHMARKS.md section, rendered from every recorded run."""
    sealed = ", ".join(f"{d}: {', '.join(t)}" for d, t in split.sealed.items())
    notes = " ".join(
        f"`benchmarks/{s.name}/`: {'clean' if not s.tuned else 'NOT clean'}, {s.note}."
        for s in split.sets
    )
    lines = [
        "## Grading learners' own words: the sealed half (one row per release)",
        "",
        f"Command: `{command}` (refuses uncommitted changes and a commit already recorded; "
        "appends to `benchmarks/sealed_results.yaml`, which this section is rendered from)",
        "",
        f"The sealed topics (`benchmarks/splits.yaml`, decided {split.decided}) — {sealed} — "
        "are graded only here, once per release commit, never during tuning. Each set is "
        f"reported apart. {notes} Figures with their 95% intervals (Wilson) and n "
        "(questions for the ordering, answers otherwise); 'no examples' grades the same answers "
        "without the knowledge base's graded examples.",
        "",
    ]
    if not runs:
        lines.append(
            "No sealed measurement recorded yet: run `tutorgraph bench release` on a clean "
            "checkout of a release commit."
        )
        return "\n".join(lines)
    header = ["date", "commit", "set", "answers", *(label for _, label in FIGURES)]
    header.append("ordering, no examples")
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for run in runs:
        for s in run.get("sets") or []:
            name = f"`{s['set']}`" + ("" if s.get("clean") else " (not clean)")
            cells = [str(run["date"]), f"`{str(run['commit'])[:12]}`", name, str(s["answers"])]
            cells += [_cell(s.get(key)) for key, _ in FIGURES]
            cells.append(_cell(s.get("ordering_no_examples")))
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
