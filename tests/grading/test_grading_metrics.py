"""Agreement metrics against values worked out by hand."""

from __future__ import annotations

import math

import pytest

from tutorgraph_bench import metrics


def test_pearson_by_hand() -> None:
    # x - mean = (-1, 0, 1), y - mean = (-1, -1, 2): r = 3 / sqrt(2 * 6)
    assert metrics.pearson([1, 2, 3], [1, 1, 4]) == pytest.approx(3 / math.sqrt(12))
    assert metrics.pearson([1, 2, 3], [6, 4, 2]) == pytest.approx(-1.0)
    assert math.isnan(metrics.pearson([1, 1, 1], [1, 2, 3]))


def test_ranks_share_ties_and_spearman_uses_them() -> None:
    assert metrics.rank([10, 20, 20, 5]).tolist() == [2.0, 3.5, 3.5, 1.0]
    # Monotone but not linear: rho is 1 while r is not.
    assert metrics.spearman([1, 2, 3, 4], [1, 4, 9, 100]) == pytest.approx(1.0)
    # ranks x = (1, 2, 3), y = (1.5, 1.5, 3): r = 1.5 / sqrt(2 * 1.5)
    assert metrics.spearman([1, 2, 3], [0, 0, 1]) == pytest.approx(1.5 / math.sqrt(3))


def test_rmse_and_accuracy() -> None:
    assert metrics.rmse([0, 0, 0, 0], [1, 1, 1, 1]) == pytest.approx(1.0)
    assert metrics.rmse([0.5, 1.0], [0.0, 1.0]) == pytest.approx(math.sqrt(0.125))
    assert metrics.accuracy([1, 0, 1, 1], [1, 1, 1, 0]) == 0.5


def test_macro_and_weighted_f1_by_hand() -> None:
    truth = [1, 1, 1, 0, 0]
    predicted = [1, 1, 0, 0, 1]
    # label 1: tp 2, fp 1, fn 1 -> 4/6; label 0: tp 1, fp 1, fn 1 -> 2/4
    assert metrics.f1_by_label(truth, predicted) == {0: pytest.approx(0.5), 1: pytest.approx(2 / 3)}
    assert metrics.macro_f1(truth, predicted) == pytest.approx((2 / 3 + 0.5) / 2)
    assert metrics.weighted_f1(truth, predicted) == pytest.approx((3 * 2 / 3 + 2 * 0.5) / 5)
    assert metrics.macro_f1(["a", "a"], ["b", "b"]) == 0.0


def test_thresholds_are_chosen_to_separate_the_labels() -> None:
    scores = [0.1, 0.2, 0.3, 0.7, 0.8, 0.9]
    cut = metrics.best_threshold(scores, [False, False, False, True, True, True])
    assert 0.3 < cut <= 0.7
    low, high = metrics.best_two_thresholds([0.1, 0.15, 0.5, 0.55, 0.9, 0.95], [0, 0, 1, 1, 2, 2])
    assert 0.15 < low <= 0.5 and 0.55 < high <= 0.9
    assert metrics.three_way([0.1, 0.5, 0.9], low, high) == [0, 1, 2]
