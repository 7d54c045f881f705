"""The offline grader's fitted parameters, by one documented procedure (`tutorgraph calibrate
grading`).

One parameter at a time, the others at their current values:
1. Data: the development half of the learner-answers benchmark (`development_answers`: the
   development topics of `benchmarks/splits.yaml`; a sealed topic is never read).
2. Folds: the development topics are dealt into K folds, grouped by topic so that no topic's
   phrasings, cues and graded examples serve two folds; largest topic first, each to the fold
   with the fewest answers, ties by the SHA-256 of the topic id.
3. Objective, per fold: the mean of the benchmark's three headline shares (questions ordered
   correct > partial > wrong, correct answers >= 0.6, wrong answers < 0.4).
4. Grid: each parameter's `GRIDS`, today's value always included. At each point every answer
   is graded once (the grader is deterministic; its text analyses are cached across points)
   and the objective computed on each fold: mean and standard error over the folds.
5. Choice: the value with the best mean (ties: today's value, else the one nearest it).
6. Adoption: the choice replaces today's value only when its nested cross-validated gain (for
   each fold, the best value on the other folds scored on that fold, minus today's value
   there) is positive and larger than its standard error. Otherwise today's value is kept and
   the result is recorded beside it (`cv`); it becomes `fitted` only when it is the grid's
   one best value, and stays hand-set when others tie with it.
"""

from __future__ import annotations

import datetime
import hashlib
import math
import statistics
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tutorgraph.grading.calibration import DEFAULT_PATH, Calibration, load_default
from tutorgraph.grading.offline import OfflineGrader
from tutorgraph.grading.parameters import GradingParameters
from tutorgraph.parameter_files import CrossValidation, Number, ParameterFile, Provenance
from tutorgraph_bench.learner_answers import (
    CATEGORIES,
    CORRECT_PASS,
    WRONG_FAIL,
    LearnerAnswer,
    development_half,
    load_answers,
    request_for,
)
from tutorgraph_bench.splits import DEFAULT_SPLITS, load_split

OBJECTIVE = (
    "mean of the learner-answers headline shares (ordering correct > partial > wrong, "
    f"correct >= {CORRECT_PASS}, wrong < {WRONG_FAIL})"
)
DEFAULT_FOLDS = 5


def _grid(start: float, stop: float, step: float) -> tuple[float, ...]:
    count = round((stop - start) / step)
    return tuple(round(start + i * step, 4) for i in range(count + 1))


# The parameters the procedure fits, each with its grid: the ones that turn the key points,
# the lexical model and the graded examples into a rubric question's score.
GRIDS: dict[str, tuple[float, ...]] = {
    "key_points.full_share": _grid(0.6, 1.0, 0.05),
    "scoring.lexical_share": _grid(0.0, 0.4, 0.05),
    "scoring.misconception_cap": _grid(0.05, 0.35, 0.05),
    "scoring.focus_share": _grid(0.1, 0.6, 0.1),
    "examples.example_share": _grid(0.3, 1.0, 0.1),
}


@dataclass(frozen=True)
class DevelopmentData:
    """The answers fitting may read, and where they come from (for the provenance)."""

    answers: list[LearnerAnswer]
    description: str


def development_answers(
    splits: Path = DEFAULT_SPLITS, answers: Path | None = None
) -> DevelopmentData:
    """The development half of the learner answers (`learner_answers.development_half`), or,
    from another folder (`answers`), its answers to development topics only: the one place that
    says which data fitting reads."""
    split = load_split(splits)
    if answers is None:
        chosen = development_half(split)
        where = f"the development half of {splits}"
    else:
        topics = split.topics("dev")
        chosen = [a for a in load_answers(answers) if a.topic in topics]
        where = f"the answers in {answers} to development topics of {splits}"
    count = len({a.topic for a in chosen})
    return DevelopmentData(
        chosen, f"learner answers: {where}: {count} topics, {len(chosen)} answers"
    )


def topic_folds(answers: Sequence[LearnerAnswer], folds: int) -> list[tuple[str, ...]]:
    """The topics dealt into `folds` groups of about equal answers (see the module doc)."""
    sizes: dict[str, int] = defaultdict(int)
    for answer in answers:
        sizes[answer.topic] += 1
    if len(sizes) < folds:
        raise ValueError(f"{folds} folds need at least {folds} topics; the data has {len(sizes)}")
    order = sorted(sizes, key=lambda t: (-sizes[t], hashlib.sha256(t.encode()).hexdigest()))
    groups: list[list[str]] = [[] for _ in range(folds)]
    loads = [0] * folds
    for topic in order:
        fold = min(range(folds), key=lambda i: (loads[i], i))
        groups[fold].append(topic)
        loads[fold] += sizes[topic]
    return [tuple(sorted(group)) for group in groups]


def headline(scores: Mapping[tuple[str, str], float]) -> float:
    """The objective on one fold: `scores` maps (question id, category) to the verdict's score."""
    by_question: dict[str, dict[str, float]] = defaultdict(dict)
    for (question, category), score in scores.items():
        by_question[question][category] = score
    triples = [s for s in by_question.values() if all(c in s for c in CATEGORIES)]
    shares = [
        [s["correct"] > s["partial"] > s["wrong"] for s in triples],
        [s >= CORRECT_PASS for (_, c), s in scores.items() if c == "correct"],
        [s < WRONG_FAIL for (_, c), s in scores.items() if c == "wrong"],
    ]
    return statistics.fmean(statistics.fmean(s) if s else 0.0 for s in shares)


@dataclass(frozen=True)
class GridPoint:
    value: Number
    folds: tuple[float, ...]

    @property
    def mean(self) -> float:
        return statistics.fmean(self.folds)

    @property
    def se(self) -> float:
        return statistics.stdev(self.folds) / math.sqrt(len(self.folds))


@dataclass(frozen=True)
class ParameterFit:
    """One parameter's grid, its best value, and the nested CV gain of choosing it."""

    name: str
    current: Number
    grid: tuple[GridPoint, ...]
    best: Number
    nested_gain: float
    nested_se: float
    blocked: bool = False  # adopted alone, but the adopted values together did worse

    @property
    def adopted(self) -> bool:
        """Whether the best value replaces today's (its gain is larger than its error)."""
        gain = self.nested_gain
        significant = self.best != self.current and gain > self.nested_se + _SAME and gain > 0
        return significant and not self.blocked

    @property
    def ties(self) -> list[Number]:
        """The other grid values whose mean equals the best one's."""
        top = self.point(self.best).mean
        return [p.value for p in self.grid if p.value != self.best and abs(p.mean - top) < _SAME]

    @property
    def confirmed(self) -> bool:
        """Whether today's value is the one best value of the grid (no tie)."""
        return self.best == self.current and not self.ties

    @property
    def decision(self) -> str:
        """adopt (a better value), fitted (today's is the one best) or keep."""
        return "adopt" if self.adopted else "fitted" if self.confirmed else "keep"

    @property
    def fitted(self) -> Number:
        return self.best if self.adopted else self.current

    def point(self, value: Number) -> GridPoint:
        return next(p for p in self.grid if p.value == value)

    @property
    def outcome(self) -> str:
        best, current = self.point(self.best), self.point(self.current)
        if self.best == self.current:
            if not self.ties:
                return "today's value has the best mean CV objective, alone: fitted"
            tied = ", ".join(map(str, self.ties))
            return f"today's value ties for the best mean CV objective with {tied}: kept"
        verdict = "adopted" if self.adopted else "kept today's value: the gain is not above its SE"
        if self.blocked:
            verdict = "kept today's value: with the other adopted values it did worse"
        return (
            f"best {self.best} ({best.mean:.3f} +/- {best.se:.3f}) against today's "
            f"{self.current} ({current.mean:.3f} +/- {current.se:.3f}); nested CV gain "
            f"{self.nested_gain:+.3f} +/- {self.nested_se:.3f}: {verdict}"
        )


@dataclass(frozen=True)
class CalibrationRun:
    date: datetime.date
    data: str
    folds: tuple[tuple[str, ...], ...]
    fits: tuple[ParameterFit, ...]
    today: tuple[float, ...]  # the objective per fold at today's values
    together: tuple[float, ...]  # ...and with every adopted value at once

    def without_adoptions(self) -> CalibrationRun:
        """This run with every value kept (the adopted ones together did worse)."""
        fits = tuple(replace(fit, blocked=True) for fit in self.fits)
        return replace(self, fits=fits, together=self.today)

    @property
    def adoptions_help(self) -> bool:
        """Whether the adopted values, taken together, do at least as well as today's on the
        development half (each was fitted with the others at today's values)."""
        return statistics.fmean(self.together) >= statistics.fmean(self.today)

    def to_json(self) -> dict[str, Any]:
        """Everything the run measured: the results file the provenance points to."""
        return {
            "date": self.date.isoformat(),
            "data": self.data,
            "objective": OBJECTIVE,
            "folds": [list(f) for f in self.folds],
            "today": [round(f, 6) for f in self.today],
            "adopted_together": [round(f, 6) for f in self.together],
            "parameters": {
                fit.name: {
                    "current": fit.current,
                    "best": fit.best,
                    "decision": fit.decision,
                    "adopted": fit.adopted,
                    "nested_gain": round(fit.nested_gain, 6),
                    "nested_se": round(fit.nested_se, 6),
                    "outcome": fit.outcome,
                    "grid": [
                        {
                            "value": p.value,
                            "mean": round(p.mean, 6),
                            "se": round(p.se, 6),
                            "folds": [round(f, 6) for f in p.folds],
                        }
                        for p in fit.grid
                    ],
                }
                for fit in self.fits
            },
        }


_SAME = 1e-9  # objectives this close are equal (the same folds summed in another order)


def _choose(means: Mapping[Number, float], current: Number) -> Number:
    """The value with the best mean; ties go to today's value, else the one nearest it."""
    top = max(means.values())
    tied = [v for v, m in means.items() if m > top - _SAME]
    return min(tied, key=lambda v: (v != current, abs(v - current), v))


def fit_parameter(
    name: str,
    current: Number,
    grid: Sequence[GridPoint],
) -> ParameterFit:
    """The choice and its nested CV gain over today's value, from every grid point's folds."""
    k = len(grid[0].folds)
    best = _choose({p.value: p.mean for p in grid}, current)
    today = next(p for p in grid if p.value == current)
    gains = []
    for held_out in range(k):
        others = {
            p.value: statistics.fmean(f for i, f in enumerate(p.folds) if i != held_out)
            for p in grid
        }
        chosen = next(p for p in grid if p.value == _choose(others, current))
        gains.append(chosen.folds[held_out] - today.folds[held_out])
    return ParameterFit(
        name=name,
        current=current,
        grid=tuple(grid),
        best=best,
        nested_gain=statistics.fmean(gains),
        nested_se=statistics.stdev(gains) / math.sqrt(k),
    )


def calibrate_grading(
    data: DevelopmentData,
    parameters: GradingParameters,
    *,
    folds: int = DEFAULT_FOLDS,
    grids: Mapping[str, Sequence[float]] = GRIDS,
    calibration: Calibration | None = None,
    on_parameter: Callable[[str, int], None] | None = None,
    today: datetime.date | None = None,
) -> CalibrationRun:
    """Run the procedure of the module doc over `grids` (parameter -> values)."""
    groups = topic_folds(data.answers, folds)
    fold_of = {topic: i for i, group in enumerate(groups) for topic in group}
    requests = [(a, request_for(a)) for a in data.answers]
    model = calibration if calibration is not None else load_default()

    def fold_scores(candidate: GradingParameters) -> tuple[float, ...]:
        grader = OfflineGrader(model, parameters=candidate)
        per_fold: list[dict[tuple[str, str], float]] = [{} for _ in groups]
        for answer, request in requests:
            key = (answer.question_id, answer.category)
            per_fold[fold_of[answer.topic]][key] = grader.grade(request).score
        return tuple(headline(scores) for scores in per_fold)

    fits = []
    for name, values in grids.items():
        current = parameters.value(name)
        points = []
        grid = sorted({*values, current})
        if on_parameter is not None:
            on_parameter(name, len(grid))
        for value in grid:
            typed = type(current)(value) if isinstance(current, int) else value
            points.append(GridPoint(typed, fold_scores(parameters.replaced({name: typed}))))
        fits.append(fit_parameter(name, current, points))
    baseline = fold_scores(parameters)
    adopted = {fit.name: fit.fitted for fit in fits if fit.adopted}
    return CalibrationRun(
        date=today or datetime.date.today(),
        data=data.description,
        folds=tuple(groups),
        fits=tuple(fits),
        today=baseline,
        together=fold_scores(parameters.replaced(adopted)) if adopted else baseline,
    )


def updated_provenance(
    run: CalibrationRun, current: ParameterFile[GradingParameters], *, results: str
) -> dict[str, tuple[Number, Provenance]]:
    """The file's new values and provenance: an adopted value, or today's when it alone is best,
    becomes `fitted` (dated today, the procedure named); a kept one keeps its provenance and
    gains the CV record."""
    changes: dict[str, tuple[Number, Provenance]] = {}
    for fit in run.fits:
        point = fit.point(fit.fitted)
        cv = CrossValidation(
            date=run.date,
            objective=OBJECTIVE,
            folds=len(run.folds),
            mean=round(point.mean, 4),
            se=round(point.se, 4),
            outcome=fit.outcome,
            results=results,
        )
        before = current.provenance[fit.name]
        if fit.decision != "keep":
            grid = [p.value for p in fit.grid]
            record = Provenance(
                source="fitted",
                date=run.date,
                procedure=(
                    f"`tutorgraph calibrate grading`: grouped {len(run.folds)}-fold "
                    f"cross-validation by topic, grid {grid[0]}..{grid[-1]} ({len(grid)} "
                    "points, the other parameters at their values); the best mean CV "
                    "objective, adopted only when its nested CV gain exceeds its standard "
                    "error."
                ),
                split=run.data,
                decision=before.decision,
                cv=cv,
            )
        else:
            record = before.model_copy(update={"cv": cv})
        changes[fit.name] = (fit.fitted, record)
    return changes


@dataclass(frozen=True)
class LexicalRefit:
    """The lexical model fitted again (`bench grading --fit`'s procedure) beside the shipped one."""

    fitted: Calibration
    shipped: Calibration
    path: Path

    @property
    def differs(self) -> bool:
        """Whether the model the grader reads (features, weights, bias) differs; the 2-way
        threshold is a benchmark's, which chooses it again on every run."""
        shipped, fitted = self.shipped, self.fitted
        return (shipped.feature_names, shipped.weights, shipped.bias, shipped.l2) != (
            fitted.feature_names,
            fitted.weights,
            fitted.bias,
            fitted.l2,
        )

    @property
    def summary(self) -> str:
        shipped, fitted = self.shipped, self.fitted
        model = "different weights or bias than" if self.differs else "the same weights and bias as"
        return (
            f"Lexical model refit on the {fitted.fitted_on}: {model} {self.path.name}; "
            f"2-way threshold {fitted.threshold} (shipped {shipped.threshold})."
        )


def refit_lexical_model(data: Path, path: Path = DEFAULT_PATH) -> LexicalRefit:
    """Fit the lexical model on the SemEval-2013 CSV's train split, as `bench grading --fit`."""
    from tutorgraph_bench._grading_data import load_items
    from tutorgraph_bench.grading import fit_from_items

    fitted = fit_from_items("semeval", load_items("semeval", data))
    return LexicalRefit(fitted=fitted, shipped=load_default(path), path=path)
