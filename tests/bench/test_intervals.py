"""95% intervals beside the reported figures: Wilson's for shares (checked against values worked
out by hand), a seeded bootstrap for the rest (the same on every run)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tutorgraph_bench import metrics


def test_wilson_by_hand() -> None:
    # 8 of 10, z = 1.96: centre (0.8 + 0.19208) / 1.38415 = 0.71678, half-width
    # 1.96 * sqrt(0.016 + 0.0096040) / 1.38415 = 0.22657
    interval = metrics.wilson(8, 10)
    assert interval.value == 0.8 and interval.n == 10
    assert interval.low == pytest.approx(0.4902, abs=1e-4)
    assert interval.high == pytest.approx(0.9433, abs=1e-4)
    assert metrics.wilson(10, 10).high == pytest.approx(1.0) and metrics.wilson(0, 10).low == 0.0
    assert math.isnan(metrics.wilson(0, 0).value)
    assert metrics.share([True, False, True, True]).percent() == "75% [30-95%]"


def test_the_bootstrap_is_seeded_and_brackets_the_figure() -> None:
    values = np.random.default_rng(1).normal(0.5, 0.1, 200)
    first, again = metrics.mean_interval(values), metrics.mean_interval(values)
    assert first == again  # deterministic: a report does not change between runs
    assert first.low < first.value < first.high and first.n == 200
    # the standard error of a mean of 200 draws with sd 0.1 is about 0.007: the 95% interval
    # is about 2 x 1.96 x 0.007 wide
    assert 0.02 < first.high - first.low < 0.035


def test_a_correlation_interval_narrows_with_more_pairs() -> None:
    rng = np.random.default_rng(2)
    x = rng.normal(size=400)
    y = x + rng.normal(size=400)
    small = metrics.paired_interval(metrics.pearson, x[:50], y[:50])
    large = metrics.paired_interval(metrics.pearson, x, y)
    assert large.high - large.low < small.high - small.low
    assert large.low < 1 / math.sqrt(2) < large.high  # the true r of x and x + noise


def test_the_vectorised_macro_f1_is_the_reference_one() -> None:
    truth = [True, True, False, False, True, False]
    predicted = [True, False, False, True, True, False]
    as_arrays = (np.asarray(truth, dtype=float), np.asarray(predicted, dtype=float))
    assert metrics.binary_macro_f1(*as_arrays) == pytest.approx(metrics.macro_f1(truth, predicted))
    only_true = np.ones(4)
    assert metrics.binary_macro_f1(only_true, only_true) == metrics.macro_f1([1] * 4, [1] * 4)
