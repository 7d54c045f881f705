"""Agreement metrics for the benchmarks, by hand with numpy (no scipy, no scikit-learn)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tutorgraph.learner_model.ranking import auc, rank

FloatArray = npt.NDArray[np.float64]
__all__ = ["auc", "rank"]  # re-exported: the benchmarks' metrics in one module


def _array(values: Sequence[float] | FloatArray) -> FloatArray:
    return np.asarray(values, dtype=np.float64)


def pearson(x: Sequence[float] | FloatArray, y: Sequence[float] | FloatArray) -> float:
    """Pearson's r; NaN when either side is constant."""
    a, b = _array(x), _array(y)
    a, b = a - a.mean(), b - b.mean()
    denominator = math.sqrt(float(a @ a) * float(b @ b))
    return float(a @ b) / denominator if denominator > 0 else math.nan


def spearman(x: Sequence[float] | FloatArray, y: Sequence[float] | FloatArray) -> float:
    """Spearman's rho: Pearson's r of the tie-averaged ranks."""
    return pearson(rank(x), rank(y))


def rmse(predicted: Sequence[float] | FloatArray, actual: Sequence[float] | FloatArray) -> float:
    """Root mean squared error."""
    diff = _array(predicted) - _array(actual)
    return math.sqrt(float(np.mean(diff * diff)))


def accuracy(truth: Sequence[object], predicted: Sequence[object]) -> float:
    """Share of predictions equal to the truth."""
    return sum(t == p for t, p in zip(truth, predicted, strict=True)) / len(truth)


def f1_by_label(truth: Sequence[object], predicted: Sequence[object]) -> dict[object, float]:
    """F1 of every label present in the truth or the predictions (0 when never right)."""
    scores: dict[object, float] = {}
    for label in sorted(set(truth) | set(predicted), key=str):
        tp = sum(t == label and p == label for t, p in zip(truth, predicted, strict=True))
        fp = sum(t != label and p == label for t, p in zip(truth, predicted, strict=True))
        fn = sum(t == label and p != label for t, p in zip(truth, predicted, strict=True))
        scores[label] = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    return scores


def macro_f1(truth: Sequence[object], predicted: Sequence[object]) -> float:
    """Unweighted mean of the per-label F1."""
    scores = f1_by_label(truth, predicted)
    return sum(scores.values()) / len(scores)


def weighted_f1(truth: Sequence[object], predicted: Sequence[object]) -> float:
    """Per-label F1 weighted by the label's share of the truth."""
    scores = f1_by_label(truth, predicted)
    return sum(scores[label] * sum(t == label for t in truth) for label in scores) / len(truth)


def _candidates(scores: FloatArray, limit: int = 200) -> FloatArray:
    """Cut-offs between distinct scores (at most `limit`, spread over the quantiles)."""
    unique = np.unique(scores)
    cuts = np.concatenate([[unique[0]], (unique[1:] + unique[:-1]) / 2, [unique[-1] + 1e-9]])
    if len(cuts) > limit:
        cuts = np.unique(np.quantile(cuts, np.linspace(0.0, 1.0, limit)))
    return cuts


def best_threshold(scores: Sequence[float] | FloatArray, positive: Sequence[bool]) -> float:
    """The cut-off `t` (positive iff score >= t) with the best macro-F1; the lowest on ties."""
    data, truth = _array(scores), [bool(p) for p in positive]
    best, best_cut = -1.0, 0.5
    for cut in _candidates(data):
        value = macro_f1(truth, [bool(s >= cut) for s in data])
        if value > best + 1e-12:
            best, best_cut = value, float(cut)
    return best_cut


def three_way(scores: Sequence[float] | FloatArray, low: float, high: float) -> list[int]:
    """0 below `low`, 1 from `low`, 2 from `high`."""
    return [2 if s >= high else 1 if s >= low else 0 for s in _array(scores)]


def best_two_thresholds(
    scores: Sequence[float] | FloatArray, labels: Sequence[int]
) -> tuple[float, float]:
    """Cut-offs (low, high) for labels 0 < 1 < 2 with the best macro-F1; the lowest on ties."""
    data = _array(scores)
    cuts = _candidates(data, limit=60)
    best, best_pair = -1.0, (float(cuts[0]), float(cuts[-1]))
    for i, low in enumerate(cuts):
        for high in cuts[i:]:
            value = macro_f1(list(labels), three_way(data, float(low), float(high)))
            if value > best + 1e-12:
                best, best_pair = value, (float(low), float(high))
    return best_pair


def percentile(values: list[float], share: float) -> float:
    """The nearest-rank value at `share` (0-1) of the sorted values; 0.0 when empty."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))] if ordered else 0.0


# 95% intervals beside the figures: Wilson's score interval for a share, a seeded percentile
# bootstrap for everything else (means, correlations, F1), so a report is the same on every run.
Z95 = 1.959963984540054
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20261129


@dataclass(frozen=True)
class Interval:
    """A figure, its 95% interval and the number of items it was computed over."""

    value: float
    low: float
    high: float
    n: int

    def percent(self) -> str:
        """`92% [85-96%]` (NaN: n/a)."""
        if math.isnan(self.value):
            return "n/a"
        return f"{self.value:.0%} [{self.low * 100:.0f}-{self.high:.0%}]"

    def number(self, digits: int = 3) -> str:
        """`0.725 [0.664, 0.779]` (NaN: n/a)."""
        if math.isnan(self.value):
            return "n/a"
        return f"{self.value:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"

    def as_record(self, digits: int = 4) -> dict[str, float | int]:
        return {
            "value": round(self.value, digits),
            "low": round(self.low, digits),
            "high": round(self.high, digits),
            "n": self.n,
        }


def wilson(successes: int, n: int, z: float = Z95) -> Interval:
    """Wilson's score interval of successes / n (NaN when n is 0)."""
    if n == 0:
        return Interval(math.nan, math.nan, math.nan, 0)
    share = successes / n
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return Interval(share, max(0.0, centre - half), min(1.0, centre + half), n)


def share(flags: Sequence[bool]) -> Interval:
    """The share of true flags with its Wilson interval."""
    return wilson(sum(bool(f) for f in flags), len(flags))


def bootstrap(
    statistic: Callable[[npt.NDArray[np.intp]], float],
    n: int,
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> Interval:
    """`statistic` of all n items, with the 2.5th and 97.5th percentiles of the statistic over
    `resamples` resamples of the item indices drawn with replacement (NaN resamples dropped)."""
    if n == 0:
        return Interval(math.nan, math.nan, math.nan, 0)
    value = statistic(np.arange(n))
    rng = np.random.default_rng(seed)
    draws = np.array([statistic(rng.integers(0, n, n)) for _ in range(resamples)])
    draws = draws[~np.isnan(draws)]
    if not len(draws):
        return Interval(value, math.nan, math.nan, n)
    low, high = np.percentile(draws, [2.5, 97.5])
    return Interval(value, float(low), float(high), n)


def mean_interval(values: Sequence[float] | FloatArray) -> Interval:
    """The mean with its bootstrap interval."""
    data = _array(values)
    return bootstrap(lambda ix: float(np.mean(data[ix])), len(data))


def paired_interval(
    statistic: Callable[[FloatArray, FloatArray], float],
    x: Sequence[float] | FloatArray,
    y: Sequence[float] | FloatArray,
) -> Interval:
    """A statistic of paired values (a correlation, RMSE, F1) with its bootstrap interval over
    the pairs."""
    a, b = _array(x), _array(y)
    return bootstrap(lambda ix: statistic(a[ix], b[ix]), len(a))


def binary_macro_f1(truth: FloatArray, predicted: FloatArray) -> float:
    """Macro-F1 of two labels (1.0 / 0.0 arrays), vectorised for the bootstrap; the labels are
    those present in either array, as `macro_f1` counts them."""
    scores = []
    for label in (0.0, 1.0):
        t, p = truth == label, predicted == label
        if not (t.any() or p.any()):
            continue
        tp = float(np.sum(t & p))
        fp, fn = float(np.sum(~t & p)), float(np.sum(t & ~p))
        scores.append(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
    return sum(scores) / len(scores)
