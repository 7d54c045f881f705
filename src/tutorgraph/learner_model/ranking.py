"""Rank statistics the server needs too (the mastery refit compares models by AUC); the
benchmarks' metrics (`tutorgraph_bench.metrics`) re-export them."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


def _array(values: Sequence[float] | FloatArray) -> FloatArray:
    return np.asarray(values, dtype=np.float64)


def rank(values: Sequence[float] | FloatArray) -> FloatArray:
    """1-based ranks, ties sharing their average rank."""
    data = _array(values)
    order = np.argsort(data, kind="stable")
    ranks = np.empty(len(data), dtype=np.float64)
    ranks[order] = np.arange(1, len(data) + 1, dtype=np.float64)
    _, inverse, counts = np.unique(data, return_inverse=True, return_counts=True)
    sums = np.bincount(inverse, weights=ranks)
    averaged: FloatArray = sums[inverse] / counts[inverse]
    return averaged


def auc(labels: Sequence[float] | FloatArray, scores: Sequence[float] | FloatArray) -> float:
    """ROC AUC by the rank-sum (Mann-Whitney) formula, tied scores sharing their average rank."""
    positive = _array(labels) > 0.5
    ranks = rank(scores)
    if positive.shape != ranks.shape:
        raise ValueError(f"{positive.size} labels but {ranks.size} scores")
    n_pos = int(positive.sum())
    n_neg = positive.size - n_pos
    if n_pos == 0 or n_neg == 0:
        raise ValueError("AUC needs both positive and negative labels")
    return (float(ranks[positive].sum()) - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg)
