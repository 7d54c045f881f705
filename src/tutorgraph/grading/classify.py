"""Phase 3: rule-based error classification, used when the judge gives no (valid) error type.

Rules, first match wins (only for scores below 0.8):
1. a known misconception was detected            -> CONCEPTUAL
2. no real attempt ("I don't know", < 4 words)   -> INCOMPLETE  (nothing to diagnose yet)
3. correctness below 0.4                         -> CONCEPTUAL  (the core idea is wrong)
4. a procedural question (fix / compute / write / debug / steps) -> PROCEDURAL
5. score at least 0.6 and nothing missing        -> CARELESS    (a slip in a right answer)
6. otherwise                                     -> INCOMPLETE  (right direction, points missing)
The numbers are parameters (`non_answers`, `model_verdicts` in `grading/parameters.yaml`).
"""

from __future__ import annotations

import re

from tutorgraph.grading.parameters import NonAnswerParameters, grading_parameters
from tutorgraph.grading.types import ERROR_CLASSIFICATION_BELOW, ErrorType, Verdict

_PROCEDURAL = re.compile(
    r"\b(fix|debug|compute|calculate|write|implement|steps?|trace|output of)\b", re.IGNORECASE
)
_HEDGE = re.compile(
    r"\b(no idea|not sure|don'?t know|do not know|no clue|unsure|idk)\b", re.IGNORECASE
)


def is_non_attempt(answer: str, parameters: NonAnswerParameters | None = None) -> bool:
    """A blank, a shrug or a few words: there is no reasoning to classify."""
    p = parameters or grading_parameters().non_answers
    words = len(answer.split())
    return words < p.attempt_words or (
        words < p.hedged_attempt_words and bool(_HEDGE.search(answer))
    )


def classify_error(
    verdict: Verdict, *, question: str, answer: str, misconceptions: list[str]
) -> ErrorType | None:
    if verdict.score >= ERROR_CLASSIFICATION_BELOW:
        return None
    parameters = grading_parameters()
    p = parameters.model_verdicts
    if misconceptions:
        return "CONCEPTUAL"
    if is_non_attempt(answer, parameters.non_answers):
        return "INCOMPLETE"
    if verdict.rubric.correctness < p.wrong_correctness_below:
        return "CONCEPTUAL"
    if _PROCEDURAL.search(question):
        return "PROCEDURAL"
    if verdict.score >= p.careless_score_from and not verdict.missing_key_points:
        return "CARELESS"
    return "INCOMPLETE"
