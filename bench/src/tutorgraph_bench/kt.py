"""Knowledge tracing on ASSISTments 2009: our BKT, pyBKT and the platform's baselines."""

from __future__ import annotations

import csv
import json
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from rich.progress import Progress

from tutorgraph.errors import InputError
from tutorgraph.learner_model.bkt import BKTParams
from tutorgraph.learner_model.bkt_fit import (
    EMOptions,
    fit_skills,
    group_sequences,
    predict_sequences,
)
from tutorgraph.learner_model.mastery import ANSWER_WEIGHT, INITIAL_WMA, weighted_moving_average
from tutorgraph_bench.metrics import auc, rmse

PREPROCESSED = "pybkt_preprocessed/builder_{split}_preprocessed.csv"
LONG = "assistments2009_dkt_long.csv"
PYBKT_SCRIPT = Path("benchmarks/pybkt/run_pybkt.py")
PYBKT_SETUP = (
    "python3 -m venv .bench-venv && "
    ".bench-venv/bin/pip install -r benchmarks/pybkt/requirements.txt"
)
PYBKT_SEED = 42
BOUNDED = EMOptions(max_guess=0.3, max_slip=0.1)

SkillSequences = dict[str, list[list[int]]]
Predictor = Callable[[str, list[list[int]]], list[NDArray[np.float64]]]


@dataclass(frozen=True)
class KTScore:
    """One model's pooled one-step-ahead score on a test split."""

    model: str
    auc: float
    rmse: float
    responses: int
    fit_seconds: float | None = None


@dataclass(frozen=True)
class PyBKTRun:
    """pyBKT's own numbers from its benchmark virtualenv, or why there are none."""

    auc: float | None = None
    rmse: float | None = None
    fit_seconds: float | None = None
    note: str = ""


@dataclass(frozen=True)
class KTResult:
    """(a) the pyBKT-form reproduction, (b) the real-student split, (c) pyBKT side by side."""

    reproduction: list[KTScore]
    students: list[KTScore]
    pybkt: PyBKTRun
    skipped_unseen: int
    unseen_students: int


def _read(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        raise InputError(f"{path}: benchmark file not found (see ../shared/benchmarks/README.md)")
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _ordered(rows: list[dict[str, str]], split: str) -> list[dict[str, str]]:
    """One split's responses, each student's in order_id order."""
    chosen = [row for row in rows if row["split"] == split]
    return sorted(chosen, key=lambda row: (row["user_id"], int(row["order_id"])))


def _pool(
    test: SkillSequences, predict: Predictor, *, known: Mapping[str, object] | None = None
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Labels and predictions over every test response (only `known` skills if given)."""
    labels: list[int] = []
    predictions: list[NDArray[np.float64]] = []
    for skill, sequences in test.items():
        if known is not None and skill not in known:
            continue
        for sequence, predicted in zip(sequences, predict(skill, sequences), strict=True):
            labels.extend(sequence)
            predictions.append(predicted)
    return np.asarray(labels, dtype=np.float64), np.concatenate(predictions)


def _score(
    model: str,
    test: SkillSequences,
    predict: Predictor,
    *,
    known: Mapping[str, object] | None = None,
    fit_seconds: float | None = None,
) -> KTScore:
    labels, predictions = _pool(test, predict, known=known)
    return KTScore(
        model=model,
        auc=auc(labels, predictions),
        rmse=rmse(predictions, labels),
        responses=len(labels),
        fit_seconds=fit_seconds,
    )


def bkt_predictor(params: Mapping[str, BKTParams], fallback: BKTParams) -> Predictor:
    """Fitted BKT per skill; a skill unseen in training gets `fallback`."""

    def predict(skill: str, sequences: list[list[int]]) -> list[NDArray[np.float64]]:
        return predict_sequences(params.get(skill, fallback), sequences)

    return predict


def wma_predictor(*, start: float) -> Predictor:
    """The platform's moving-average mastery, read as P(correct) before each answer."""

    def predict(_: str, sequences: list[list[int]]) -> list[NDArray[np.float64]]:
        out = []
        for sequence in sequences:
            values = np.empty(len(sequence))
            mastery = start
            for t, correct in enumerate(sequence):
                values[t] = mastery
                mastery = weighted_moving_average(mastery, float(correct))
            out.append(values)
        return out

    return predict


def skill_mean_predictor(train: SkillSequences) -> Predictor:
    """Each skill's share of correct answers in training (the overall share if unseen)."""
    totals = {skill: (sum(map(sum, seqs)), sum(map(len, seqs))) for skill, seqs in train.items()}
    overall = sum(c for c, _ in totals.values()) / sum(n for _, n in totals.values())
    means = {skill: correct / count for skill, (correct, count) in totals.items()}

    def predict(skill: str, sequences: list[list[int]]) -> list[NDArray[np.float64]]:
        return [np.full(len(s), means.get(skill, overall)) for s in sequences]

    return predict


@contextmanager
def _step(
    progress: Progress | None, description: str, total: int | None = None
) -> Iterator[Callable[[int, int], None]]:
    """A progress line for one long step; yields an EM callback (iteration, groups running)."""
    if progress is None:
        yield lambda _iteration, _active: None
        return
    task = progress.add_task(description, total=total)

    def advance(iteration: int, active: int) -> None:
        progress.update(task, completed=iteration, description=f"{description} ({active} running)")

    try:
        yield advance
    finally:
        progress.update(task, completed=total or 1, total=total or 1, description=description)


def _fit(
    train: SkillSequences,
    progress: Progress | None,
    label: str,
    *,
    forgetting: bool = False,
    options: EMOptions = EMOptions(),
) -> tuple[dict[str, BKTParams], float]:
    with _step(progress, f"fit {label}", options.max_iter) as advance:
        started = time.perf_counter()
        params = fit_skills(train, forgetting=forgetting, options=options, progress=advance)
        return params, time.perf_counter() - started


def run_pybkt(
    python: Path | None, *, script: Path, train: Path, test: Path, progress: Progress | None
) -> PyBKTRun:
    """Fit and evaluate pyBKT in its own virtualenv (its numpy < 2 cannot share ours)."""
    if python is None or not python.exists():
        where = "not given" if python is None else f"{python} not found"
        return PyBKTRun(note=f"pyBKT not run ({where}); create its virtualenv: `{PYBKT_SETUP}`")
    if not script.is_file():
        return PyBKTRun(note=f"pyBKT not run: {script} not found (run from the project root)")
    command = [str(python), str(script), "--train", str(train), "--test", str(test)]
    with _step(progress, "pyBKT fit + predict (pure-Python EM, minutes)"):
        done = subprocess.run(
            [*command, "--seed", str(PYBKT_SEED)], capture_output=True, text=True, check=False
        )
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
        return PyBKTRun(note=f"pyBKT failed (exit {done.returncode}): {tail[0]}")
    try:
        numbers = json.loads(done.stdout.strip().splitlines()[-1])
        return PyBKTRun(
            auc=float(numbers["auc"]),
            rmse=float(numbers["rmse"]),
            fit_seconds=float(numbers["fit_seconds"]),
        )
    except (IndexError, KeyError, TypeError, ValueError):
        return PyBKTRun(note=f"pyBKT printed no result JSON: {done.stdout[-200:]!r}")


def _reproduce(data: Path, progress: Progress | None) -> tuple[list[KTScore], int]:
    """(a) pyBKT's preprocessed split, grouped as pyBKT groups it (user_id as given)."""
    paths = {split: data / PREPROCESSED.format(split=split) for split in ("train", "test")}
    started = time.perf_counter()
    train = group_sequences(_read(paths["train"]))
    load_seconds = time.perf_counter() - started
    test = group_sequences(_read(paths["test"]))
    scores = []
    for label, forgetting in (("BKT", False), ("BKT + forgetting", True)):
        params, seconds = _fit(train, progress, f"{label} (pyBKT files)", forgetting=forgetting)
        predict = bkt_predictor(params, BKTParams())
        scores.append(
            _score(label, test, predict, known=params, fit_seconds=load_seconds + seconds)
        )
    skipped = sum(len(s) for skill, seqs in test.items() if skill not in train for s in seqs)
    return scores, skipped


def _students(data: Path, progress: Progress | None) -> tuple[list[KTScore], int]:
    """(b) the same split with real student ids, every test response scored."""
    rows = _read(data / LONG)
    train = group_sequences(_ordered(rows, "train"))
    test = group_sequences(_ordered(rows, "test"))
    unseen = sum(len(s) for skill, seqs in test.items() if skill not in train for s in seqs)
    scores = []
    fits = (
        ("BKT", False, EMOptions()),
        ("BKT + forgetting", True, EMOptions()),
        ("BKT, guess <= 0.3, slip <= 0.1", False, BOUNDED),
    )
    for label, forgetting, options in fits:
        params, seconds = _fit(train, progress, label, forgetting=forgetting, options=options)
        predict = bkt_predictor(params, BKTParams())
        scores.append(_score(label, test, predict, fit_seconds=seconds))
    defaults = bkt_predictor({}, BKTParams())
    scores.append(_score("BKT, evaluator-spec parameters (no fit)", test, defaults))
    for start in (INITIAL_WMA, 0.5):
        wma = wma_predictor(start=start)
        label = f"moving average, answer weight {ANSWER_WEIGHT} from {start} (platform)"
        scores.append(_score(label, test, wma))
    scores.append(_score("per-skill mean correctness", test, skill_mean_predictor(train)))
    return scores, unseen


def run_kt_benchmark(
    data: Path,
    *,
    pybkt_python: Path | None = None,
    pybkt_script: Path = PYBKT_SCRIPT,
    progress: Progress | None = None,
) -> KTResult:
    """Every part of the knowledge-tracing benchmark; pyBKT runs last so timings do not overlap."""
    reproduction, skipped = _reproduce(data, progress)
    students, unseen = _students(data, progress)
    pybkt = run_pybkt(
        pybkt_python,
        script=pybkt_script,
        train=data / PREPROCESSED.format(split="train"),
        test=data / PREPROCESSED.format(split="test"),
        progress=progress,
    )
    return KTResult(reproduction, students, pybkt, skipped, unseen)


def _fmt(value: float | None, digits: int = 4) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _table(scores: list[KTScore]) -> list[str]:
    lines = ["| model | AUC | RMSE | test responses | fit (s) |", "|---|---|---|---|---|"]
    for s in scores:
        fit = _fmt(s.fit_seconds, 1) if s.fit_seconds is not None else "-"
        lines.append(f"| {s.model} | {s.auc:.4f} | {s.rmse:.4f} | {s.responses:,} | {fit} |")
    return lines


def _pybkt_lines(ours: KTScore, py: PyBKTRun) -> list[str]:
    if py.auc is None or py.fit_seconds is None:
        return [py.note]
    speedup = py.fit_seconds / ours.fit_seconds if ours.fit_seconds else float("nan")
    return [
        "| implementation | AUC | RMSE | fit (s) |",
        "|---|---|---|---|",
        f"| tutorgraph `learner_model.bkt_fit` (numpy, one process) | {ours.auc:.4f} "
        f"| {ours.rmse:.4f} | {_fmt(ours.fit_seconds, 1)} |",
        f"| pyBKT 1.4.3 (pure-Python fallback, seed {PYBKT_SEED}) | {py.auc:.4f} "
        f"| {_fmt(py.rmse)} | {py.fit_seconds:.1f} |",
        "",
        f"AUC difference {ours.auc - py.auc:+.4f}; our fit is {speedup:.0f}x faster. pyBKT runs",
        "in its own virtualenv from `benchmarks/pybkt/` (it needs numpy < 2); its C++ core does",
        "not build here, so it runs its pure-Python EM with a process pool on every CPU.",
        "Both fit times include reading the train CSV.",
    ]


def markdown(result: KTResult, command: str) -> str:
    """The `kt` section of BENCHMARKS.md."""
    return "\n".join(
        [
            "## Knowledge tracing (ASSISTments 2009 skill builder)",
            "",
            f"`{command}`",
            "",
            "Fit per skill on `train` only; on `test`, predict each response before seeing it",
            "(the first from the prior), then update on it; AUC (rank formula) and RMSE pooled",
            "over the responses. EM as pyBKT 1.4.3 runs it: 5 random restarts, at most 100",
            "iterations, tol 0.005, no parameter bounds unless the row says so.",
            "",
            "### (a) pyBKT's preprocessed files (`user_id` is the sequence length, kept as is)",
            "",
            *_table(result.reproduction),
            "",
            f"{result.skipped_unseen} test response(s) of a skill absent from train left out,",
            "as pyBKT does. Published: standard BKT 0.76 (pyBKT), BKT + forgetting 0.83.",
            "",
            "### (b) `assistments2009_dkt_long.csv`: real student ids, ordered by `order_id`",
            "",
            *_table(result.students),
            "",
            f"{result.unseen_students} test response(s) of a skill absent from train scored",
            "with the evaluator-spec parameters (BKT) or the overall train mean (per-skill",
            "mean). The moving average is `learner_model.mastery.weighted_moving_average`",
            f"(new = current + {ANSWER_WEIGHT} * (observation - current)); it predicts its",
            "current value,",
            f"starting from the platform's `INITIAL_WMA` ({INITIAL_WMA}) or from 0.5. Published:",
            "BKT 0.73 (Khajah et al. 2016), BKT + forgetting 0.83, per-skill mean ~0.62.",
            "",
            "### (c) pyBKT side by side (the files of (a), same machine, run after ours)",
            "",
            *_pybkt_lines(result.reproduction[0], result.pybkt),
        ]
    )
