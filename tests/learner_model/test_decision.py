"""The 5-path decision, row by row of the spec's table, at the boundaries."""

from __future__ import annotations

import pytest

from tutorgraph.grading.types import ErrorType, PathDecision
from tutorgraph.learner_model.alerts import needs_alert
from tutorgraph.learner_model.decision import decide

ROWS: list[tuple[float, ErrorType | None, int, float, PathDecision]] = [
    # MASTERED >= 0.9; -0.05 for difficulty >= 4; -0.03 when mastery is already high (>= 0.8)
    (0.90, None, 3, 0.0, "MASTERED"),
    (0.8999, None, 3, 0.0, "PROCEED"),
    (0.85, None, 4, 0.0, "MASTERED"),
    (0.8499, None, 4, 0.0, "PROCEED"),
    (0.87, None, 3, 0.8, "MASTERED"),
    (0.8699, None, 3, 0.8, "PROCEED"),
    (0.87, None, 3, 0.7999, "PROCEED"),
    (0.82, None, 5, 0.95, "MASTERED"),
    (0.8199, None, 5, 0.95, "PROCEED"),
    # PROCEED >= 0.8; -0.05 for difficulty >= 4 (high mastery does not move it)
    (0.80, None, 3, 0.0, "PROCEED"),
    (0.7999, "INCOMPLETE", 3, 0.9, "ALTERNATE"),
    (0.75, "CARELESS", 4, 0.0, "PROCEED"),
    (0.7499, "CARELESS", 4, 0.0, "ALTERNATE"),
    # ALTERNATE >= 0.6; -0.05 for difficulty >= 4
    (0.60, "CONCEPTUAL", 3, 0.0, "ALTERNATE"),
    (0.55, "CONCEPTUAL", 4, 0.0, "ALTERNATE"),
    # below: REMEDIATE for conceptual errors, RETRY for any other
    (0.5999, "CONCEPTUAL", 3, 0.0, "REMEDIATE"),
    (0.5499, "CONCEPTUAL", 4, 0.0, "REMEDIATE"),
    (0.5999, "PROCEDURAL", 3, 0.0, "RETRY"),
    (0.30, "INCOMPLETE", 3, 0.0, "RETRY"),
    (0.30, "CARELESS", 3, 0.0, "RETRY"),
    (0.0, None, 1, 0.0, "RETRY"),
]


@pytest.mark.parametrize(("score", "error", "difficulty", "mastery", "expected"), ROWS)
def test_decision_table(
    score: float, error: ErrorType | None, difficulty: int, mastery: float, expected: PathDecision
) -> None:
    assert decide(score=score, error_type=error, difficulty=difficulty, mastery=mastery) == expected


def test_alert_threshold_is_strictly_below_0_4() -> None:
    assert needs_alert(0.3999) and not needs_alert(0.4)
