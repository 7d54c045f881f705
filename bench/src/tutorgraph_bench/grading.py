"""Grading agreement with human graders: SemEval-2013 Task 7 (2-way) and SAF (English).

Protocol: a grader's score is mapped to each dataset's labels by thresholds chosen on that
subset's train split (best macro-F1), never on a test split; the same is done for the lexical
baseline. Any grader fits the hook `Grader = Callable[[GradingRequest], Verdict]` (for example the
LLM judge); by default the offline grader runs, which also sees the alternative references.
"""

from __future__ import annotations

import asyncio
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
from rich.progress import Progress

from tutorgraph.grading.calibration import (
    DEFAULT_PATH,
    Calibration,
    TrainingRow,
    fit_calibration,
    load_default,
)
from tutorgraph.grading.features import extract, is_echo
from tutorgraph.grading.judge import judge_once
from tutorgraph.grading.offline import OfflineGrader
from tutorgraph.grading.types import GradingRequest, Verdict
from tutorgraph.text.tokens import words
from tutorgraph_bench import metrics
from tutorgraph_bench._grading_data import (
    SAF_LABELS,
    Dataset,
    GradingItem,
    answer_length,
    lexical_share,
    load_items,
)
from tutorgraph_bench.metrics import FloatArray, Interval

Grader = Callable[[GradingRequest], Verdict]

TRAIN_SPLIT: dict[Dataset, str] = {"semeval": "train", "saf": "training"}
TEST_SPLITS: dict[Dataset, tuple[str, ...]] = {
    "semeval": ("test_ua", "test_uq", "test_ud"),
    "saf": ("unseen_answers", "unseen_questions"),
}
FIT_SUBSETS: dict[Dataset, tuple[str, ...]] = {
    # SciEntsBank alone generalised best in grouped train cross-validation (Beetle's many short
    # references pull the pooled model away from SciEntsBank without helping Beetle).
    "semeval": ("sciEntsBank",),
    "saf": ("english",),
}
FIT_L2 = 10.0
QUALITY_SAMPLE = 200
QUALITY_RUNS = 3
WITHIN_GRADE_RESAMPLES = 500  # each resample ranks every grade's answers again


class Scorer:
    """Scores items with a plugged-in grader, or the offline grader with alternative references."""

    def __init__(
        self,
        grader: Grader | None = None,
        *,
        calibration: Calibration | None = None,
        progress: Progress | None = None,
    ) -> None:
        self.progress = progress
        self.deterministic = grader is None  # the offline grader: same input, same score
        self.request: Grader
        self._item: Callable[[GradingItem], Verdict]
        if grader is None:
            offline = OfflineGrader(calibration)
            self.request = offline.grade
            self._item = lambda item: offline.grade_with_alternatives(
                item.request(), alternatives=item.references[1:]
            )
        else:
            plugged = grader
            self.request = plugged
            self._item = lambda item: plugged(item.request())

    def __call__(self, item: GradingItem) -> float:
        return self._item(item).score

    def many(self, items: Sequence[GradingItem], description: str) -> FloatArray:
        """Scores of `items`, advancing a progress bar when there is one."""
        task = self.progress.add_task(description, total=len(items)) if self.progress else None
        scores = np.empty(len(items), dtype=np.float64)
        for i, item in enumerate(items):
            scores[i] = self(item)
            if self.progress is not None and task is not None:
                self.progress.advance(task)
        return scores


@dataclass(frozen=True)
class TwoWayRow:
    """Accuracy and F1 of one SemEval corpus and test split, with the lexical baseline's."""

    subset: str
    split: str
    n: int
    accuracy: float
    macro_f1: float
    weighted_f1: float
    baseline_accuracy: float
    baseline_macro_f1: float
    intervals: dict[str, Interval] = field(default_factory=dict)  # accuracy, macro_f1


@dataclass(frozen=True)
class ScoreRow:
    """Correlation, error and 3-label F1 of one SAF test split, with the lexical baseline's."""

    split: str
    n: int
    pearson: float
    spearman: float
    rmse: float
    macro_f1: float
    baseline_pearson: float
    baseline_spearman: float
    baseline_macro_f1: float
    intervals: dict[str, Interval] = field(default_factory=dict)  # pearson, spearman, rmse, F1


@dataclass(frozen=True)
class Quality:
    """The spec's judge-quality metrics on one test split."""

    subset: str
    split: str
    n: int
    consistency: float
    position_bias: float  # the spec's: Assistant 1 and 2 swapped in the judge prompt
    role_asymmetry: float  # reference and answer exchanged: not a bias (see the report)
    length_bias: float
    human_length_bias: float
    within_grade_length_bias: float  # rho among answers the humans graded alike (the bias proper)
    deterministic: bool = False  # the offline grader: consistency and position bias are 0
    intervals: dict[str, Interval] = field(default_factory=dict)  # the two length biases


@dataclass(frozen=True)
class GradingResult:
    dataset: Dataset
    grader: str
    thresholds: dict[str, tuple[float, ...]]
    baseline_thresholds: dict[str, tuple[float, ...]]
    two_way: list[TwoWayRow] = field(default_factory=list)
    scored: list[ScoreRow] = field(default_factory=list)
    quality: Quality | None = None


def _select(items: Sequence[GradingItem], subset: str, split: str) -> list[GradingItem]:
    return [i for i in items if i.subset == subset and i.split == split]


def _subsets(items: Sequence[GradingItem], dataset: Dataset) -> list[str]:
    """Subsets in file order, the ones the calibration is fitted on first."""
    found = list(dict.fromkeys(i.subset for i in items))
    return sorted(found, key=lambda subset: subset not in FIT_SUBSETS[dataset])


def quality(
    items: Sequence[GradingItem],
    scores: FloatArray,
    scorer: Scorer,
    *,
    sample: int = QUALITY_SAMPLE,
) -> Quality:
    """Consistency (std over 3 runs), position bias (the judge prompt's Assistant 1 and 2 swapped,
    through the platform's judge path), role asymmetry (reference and answer exchanged), and
    length bias."""
    step = max(1, len(items) // sample)
    picked = list(items)[::step][:sample]
    spreads, swaps = [], []
    for item in picked:
        runs = [scorer(item) for _ in range(QUALITY_RUNS)]
        spreads.append(statistics.pstdev(runs))
        swapped = GradingRequest(
            question=item.question, reference_answer=item.answer, answer=item.references[0]
        )
        if words(item.answer):
            swaps.append(abs(scorer.request(item.request()).score - scorer.request(swapped).score))
    positions = asyncio.run(_position_bias([i.request() for i in picked]))
    lengths = [float(answer_length(i)) for i in items]
    length_array = np.asarray(lengths, dtype=np.float64)
    return Quality(
        subset=items[0].subset,
        split=items[0].split,
        n=len(picked),
        consistency=float(np.mean(spreads)),
        position_bias=positions,
        role_asymmetry=float(np.mean(swaps)) if swaps else 0.0,
        length_bias=metrics.spearman(lengths, scores),
        human_length_bias=metrics.spearman(lengths, [i.target for i in items]),
        within_grade_length_bias=_within_grade_rho(items, lengths, scores),
        deterministic=scorer.deterministic,
        intervals={
            "length_bias": metrics.paired_interval(metrics.spearman, lengths, scores),
            "within_grade_length_bias": metrics.bootstrap(
                lambda ix: _within_grade_rho(
                    [items[i] for i in ix], list(length_array[ix]), scores[ix]
                ),
                len(items),
                resamples=WITHIN_GRADE_RESAMPLES,
            ),
        },
    )


def _within_grade_rho(
    items: Sequence[GradingItem], lengths: Sequence[float], scores: FloatArray
) -> float:
    """Spearman rho of length vs score inside each human grade (>= 10 answers), weighted by size:
    how much longer answers score higher among answers of the same quality."""
    by_grade: dict[float, list[int]] = {}
    for index, item in enumerate(items):
        by_grade.setdefault(item.target, []).append(index)
    groups = [ix for ix in by_grade.values() if len(ix) >= 10]
    total = sum(len(ix) for ix in groups)
    if not total:
        return float("nan")
    return (
        sum(
            len(ix) * metrics.spearman([lengths[i] for i in ix], [float(scores[i]) for i in ix])
            for ix in groups
        )
        / total
    )


async def _position_bias(requests: Sequence[GradingRequest]) -> float:
    """Mean abs difference of the learner's score with the reference shown first and second."""
    from tutorgraph.engines import offline_engine

    engine = offline_engine()
    gaps = []
    for request in requests:
        as_spec = await judge_once(engine, request)
        swapped = await judge_once(engine, request, reference_first=False)
        gaps.append(abs(as_spec.score - swapped.score))
    return float(np.mean(gaps)) if gaps else 0.0


def run_semeval(
    items: Sequence[GradingItem],
    *,
    grader: Grader | None = None,
    calibration: Calibration | None = None,
    grader_name: str = "offline",
    progress: Progress | None = None,
) -> GradingResult:
    """Per corpus: threshold on train, then accuracy / macro-F1 / weighted-F1 per test split."""
    scorer = Scorer(grader, calibration=calibration, progress=progress)
    result = GradingResult("semeval", grader_name, {}, {})
    for subset in _subsets(items, "semeval"):
        train = _select(items, subset, TRAIN_SPLIT["semeval"])
        if not train:
            continue
        truth = [i.target >= 0.5 for i in train]
        cut = metrics.best_threshold(scorer.many(train, f"{subset} train"), truth)
        base_cut = metrics.best_threshold([lexical_share(i) for i in train], truth)
        result.thresholds[subset], result.baseline_thresholds[subset] = (cut,), (base_cut,)
        for split in TEST_SPLITS["semeval"]:
            test = _select(items, subset, split)
            if not test:
                continue
            scores = scorer.many(test, f"{subset} {split}")
            gold = [i.target >= 0.5 for i in test]
            predicted = [bool(s >= cut) for s in scores]
            baseline = [lexical_share(i) >= base_cut for i in test]
            truth_array = np.asarray(gold, dtype=np.float64)
            predicted_array = np.asarray(predicted, dtype=np.float64)
            result.two_way.append(
                TwoWayRow(
                    subset=subset,
                    split=split,
                    n=len(test),
                    accuracy=metrics.accuracy(gold, predicted),
                    macro_f1=metrics.macro_f1(gold, predicted),
                    weighted_f1=metrics.weighted_f1(gold, predicted),
                    baseline_accuracy=metrics.accuracy(gold, baseline),
                    baseline_macro_f1=metrics.macro_f1(gold, baseline),
                    intervals={
                        "accuracy": metrics.share(
                            [g == p for g, p in zip(gold, predicted, strict=True)]
                        ),
                        "macro_f1": metrics.paired_interval(
                            metrics.binary_macro_f1, truth_array, predicted_array
                        ),
                    },
                )
            )
            if result.quality is None:
                result = replace(result, quality=quality(test, scores, scorer))
    return result


def run_saf(
    items: Sequence[GradingItem],
    *,
    grader: Grader | None = None,
    calibration: Calibration | None = None,
    grader_name: str = "offline",
    progress: Progress | None = None,
) -> GradingResult:
    """Two label thresholds on train, then Pearson / Spearman / RMSE / 3-label F1 per test split."""
    scorer = Scorer(grader, calibration=calibration, progress=progress)
    result = GradingResult("saf", grader_name, {}, {})
    train = [i for i in items if i.split == TRAIN_SPLIT["saf"]]
    labels = [SAF_LABELS.index(i.label) for i in train]
    cuts = metrics.best_two_thresholds(scorer.many(train, "saf training"), labels)
    base_cuts = metrics.best_two_thresholds([lexical_share(i) for i in train], labels)
    subset = train[0].subset if train else "english"
    result.thresholds[subset], result.baseline_thresholds[subset] = cuts, base_cuts
    for split in TEST_SPLITS["saf"]:
        test = [i for i in items if i.split == split]
        if not test:
            continue
        scores = scorer.many(test, f"saf {split}")
        targets = [i.target for i in test]
        gold = [SAF_LABELS.index(i.label) for i in test]
        shares = [lexical_share(i) for i in test]
        result.scored.append(
            ScoreRow(
                split=split,
                n=len(test),
                pearson=metrics.pearson(scores, targets),
                spearman=metrics.spearman(scores, targets),
                rmse=metrics.rmse(scores, targets),
                macro_f1=metrics.macro_f1(gold, metrics.three_way(scores, *cuts)),
                baseline_pearson=metrics.pearson(shares, targets),
                baseline_spearman=metrics.spearman(shares, targets),
                baseline_macro_f1=metrics.macro_f1(gold, metrics.three_way(shares, *base_cuts)),
                intervals={
                    "pearson": metrics.paired_interval(metrics.pearson, scores, targets),
                    "spearman": metrics.paired_interval(metrics.spearman, scores, targets),
                    "rmse": metrics.paired_interval(metrics.rmse, scores, targets),
                    "macro_f1": metrics.paired_interval(
                        lambda s, g: metrics.macro_f1(
                            [int(v) for v in g], metrics.three_way(s, *cuts)
                        ),
                        scores,
                        gold,
                    ),
                },
            )
        )
        if result.quality is None:
            result = replace(result, quality=quality(test, scores, scorer))
    return result


def fit_from_items(
    dataset: Dataset, items: Sequence[GradingItem], *, progress: Progress | None = None
) -> Calibration:
    """Fit the offline grader's model and thresholds on the train split of `dataset` only."""
    train = [
        i for i in items if i.split == TRAIN_SPLIT[dataset] and i.subset in FIT_SUBSETS[dataset]
    ]
    usable = [i for i in train if words(i.answer) and not is_echo(i.question, i.answer)]
    rows = [
        TrainingRow(extract(i.question, i.references, i.answer).values, i.target) for i in usable
    ]
    subsets = ", ".join(FIT_SUBSETS[dataset])
    described = {"semeval": "SemEval-2013 Task 7", "saf": "SAF"}[dataset]
    calibration = fit_calibration(
        rows,
        l2=FIT_L2,
        fitted_on=f"{described} {subsets} {TRAIN_SPLIT[dataset]} split ({len(rows)} answers)",
    )
    scores = Scorer(calibration=calibration, progress=progress).many(train, "thresholds on train")
    cut = metrics.best_threshold(scores, [i.label.lower() == "correct" for i in train])
    labels: tuple[float, float] | None = None
    if dataset == "saf":
        low, high = metrics.best_two_thresholds(scores, [SAF_LABELS.index(i.label) for i in train])
        labels = (round(low, 4), round(high, 4))
    return calibration.model_copy(update={"threshold": round(cut, 4), "label_thresholds": labels})


def run_grading_benchmark(
    dataset: Dataset,
    data: Path,
    *,
    fit: bool = False,
    grader: Grader | None = None,
    grader_name: str = "offline",
    calibration_path: Path = DEFAULT_PATH,
    progress: Progress | None = None,
) -> GradingResult:
    """Load the CSV, optionally refit and save the offline calibration, then measure."""
    items = load_items(dataset, data)
    if fit:
        calibration = fit_from_items(dataset, items, progress=progress)
        calibration.save(calibration_path)
    else:
        calibration = load_default(calibration_path)
    if grader is None:
        grader_name = f"the offline grader, calibration fitted on the {calibration.fitted_on}"
    run = run_semeval if dataset == "semeval" else run_saf
    return run(
        items, grader=grader, calibration=calibration, grader_name=grader_name, progress=progress
    )


def markdown(result: GradingResult, command: str) -> str:
    """The BENCHMARKS.md section for `result` (`grading-semeval` or `grading-saf`)."""
    from tutorgraph_bench._grading_report import render

    return render(result, command)
