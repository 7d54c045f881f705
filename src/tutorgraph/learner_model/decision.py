"""The 5-path decision of the evaluator spec, as a pure function of score, error and context.

| decision  | base condition                    | adjustment (lowers the threshold)       |
|-----------|-----------------------------------|-----------------------------------------|
| MASTERED  | score >= 0.90                     | -0.05 if difficulty >= 4;               |
|           |                                   | -0.03 if mastery is already high (0.8+) |
| PROCEED   | score >= 0.80                     | -0.05 if difficulty >= 4                |
| ALTERNATE | score >= 0.60                     | -0.05 if difficulty >= 4                |
| REMEDIATE | below ALTERNATE, error CONCEPTUAL | -                                       |
| RETRY     | below ALTERNATE, any other error  | -                                       |
"""

from __future__ import annotations

from tutorgraph.grading.types import ErrorType, PathDecision

MASTERED_THRESHOLD = 0.9
PROCEED_THRESHOLD = 0.8
ALTERNATE_THRESHOLD = 0.6
HARD_DIFFICULTY = 4
HARD_ADJUSTMENT = 0.05
HIGH_MASTERY = 0.8
HIGH_MASTERY_ADJUSTMENT = 0.03


def decide(
    *, score: float, error_type: ErrorType | None, difficulty: int, mastery: float
) -> PathDecision:
    """Pick the next step on the learning path."""
    hard = HARD_ADJUSTMENT if difficulty >= HARD_DIFFICULTY else 0.0
    high = HIGH_MASTERY_ADJUSTMENT if mastery >= HIGH_MASTERY else 0.0
    # Round to avoid 0.9 - 0.05 = 0.8500000000000001 style boundary surprises.
    if score >= round(MASTERED_THRESHOLD - hard - high, 6):
        return "MASTERED"
    if score >= round(PROCEED_THRESHOLD - hard, 6):
        return "PROCEED"
    if score >= round(ALTERNATE_THRESHOLD - hard, 6):
        return "ALTERNATE"
    return "REMEDIATE" if error_type == "CONCEPTUAL" else "RETRY"
