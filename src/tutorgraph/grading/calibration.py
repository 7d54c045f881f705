"""The offline grader's logistic model: weights over `features.FEATURE_NAMES`, fitted on train data.

`calibration.json` ships beside this module; `tutorgraph bench grading --fit` (or `tutorgraph
calibrate grading --lexical-model CSV --write`) rewrites it from the train split of a public
benchmark (never a test split). It holds weights, never data. The grader's other tunable values
are in `parameters.yaml` (`parameters.py`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field, model_validator

from tutorgraph.grading.features import FEATURE_NAMES

DEFAULT_PATH = Path(__file__).with_name("calibration.json")


class Calibration(BaseModel):
    """A fitted logistic model plus the score thresholds chosen on the same train split."""

    feature_names: list[str]
    weights: list[float]
    bias: float
    l2: float = 1.0
    threshold: float = Field(default=0.5, ge=0.0, le=1.0, description="2-way: correct at >=.")
    label_thresholds: tuple[float, float] | None = Field(
        default=None, description="3-way (partially correct, correct) score cut-offs, if fitted."
    )
    fitted_on: str = ""

    @model_validator(mode="after")
    def _aligned(self) -> Calibration:
        if len(self.feature_names) != len(self.weights):
            raise ValueError("feature_names and weights differ in length")
        return self

    def probability(self, features: Mapping[str, float]) -> float:
        """P(correct | features) under the logistic model."""
        z = self.bias + sum(
            w * features[n] for n, w in zip(self.feature_names, self.weights, strict=True)
        )
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def save(self, path: Path = DEFAULT_PATH) -> None:
        path.write_text(self.model_dump_json(indent=2) + "\n", encoding="utf-8")


def load_default(path: Path = DEFAULT_PATH) -> Calibration:
    """The shipped calibration (or the one at `path`)."""
    return Calibration.model_validate_json(path.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class TrainingRow:
    """One graded train answer: its features and the human grade in [0, 1]."""

    features: Mapping[str, float]
    target: float


def fit_calibration(
    rows: Sequence[TrainingRow],
    *,
    feature_names: Sequence[str] = FEATURE_NAMES,
    l2: float = 1.0,
    fitted_on: str = "",
    iterations: int = 100,
) -> Calibration:
    """L2-regularised logistic regression by Newton's method (IRLS): deterministic, no randomness.

    Targets may be soft (a SAF score of 0.625 is a 0.625 share of "correct"); the bias is not
    penalised. Thresholds are left at their defaults: the benchmark chooses them on the final
    verdict score of the same train split.
    """
    if not rows:
        raise ValueError("cannot fit a calibration on no rows")
    names = list(feature_names)
    x = np.array([[row.features[n] for n in names] for row in rows], dtype=float)
    y = np.array([row.target for row in rows], dtype=float)
    xb = np.hstack([x, np.ones((len(rows), 1))])
    penalty = np.full(len(names) + 1, l2)
    penalty[-1] = 0.0
    w = np.zeros(len(names) + 1)
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(xb @ w, -30.0, 30.0)))
        gradient = xb.T @ (p - y) + penalty * w
        hessian = (xb * (p * (1.0 - p))[:, None]).T @ xb + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if float(np.abs(step).max()) < 1e-10:
            break
    return Calibration(
        feature_names=names,
        weights=[round(float(v), 6) for v in w[:-1]],
        bias=round(float(w[-1]), 6),
        l2=l2,
        fitted_on=fitted_on,
    )
