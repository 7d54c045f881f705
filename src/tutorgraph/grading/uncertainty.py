"""How sure the offline grader is of its own score: `Verdict.certainty`, from 0 to 1.

A score is doubtful when the grader's two readings disagree, or when it could not read much of
the answer. For a rubric question, doubt adds up from:
- disagreement: |key-point coverage - lexical P(correct)| (the answer looks right word for word
  but says no point, or the reverse);
- half-said points: the share of points only partly credited;
- unread content: the share of the answer's content tokens that appear nowhere in the question,
  reference, rubric or phrasings, beyond UNREAD_FREE (the answer may say something right in
  words the grader does not know);
- a stated misconception or a denied point is clear evidence and removes the unread doubt.

Below UNSURE_BELOW the evaluator says so in its feedback and moves mastery less (by the
certainty), so an answer the grader could not read costs the learner little either way.
"""

from __future__ import annotations

from collections.abc import Sequence

from tutorgraph.grading.keypoints import PointResult
from tutorgraph.grading.meaning import Analysis
from tutorgraph.grading.types import Verdict

UNSURE_BELOW = 0.6
DISAGREEMENT_WEIGHT = 0.6
PARTIAL_WEIGHT = 0.3
UNREAD_WEIGHT = 0.8
UNREAD_FREE = 0.35


def of_key_points(
    *,
    results: Sequence[PointResult],
    probability: float,
    answer: str,
    vocabulary: frozenset[str],
    misconceptions: Sequence[str],
) -> float:
    """Certainty of a rubric verdict (see the module doc)."""
    if not results:
        return of_reference(probability)
    coverage = sum(r.credit for r in results) / len(results)
    doubt = DISAGREEMENT_WEIGHT * abs(coverage - probability)
    doubt += PARTIAL_WEIGHT * sum(0.0 < r.credit < 1.0 for r in results) / len(results)
    clear_evidence = bool(misconceptions) or any(r.contradicted for r in results)
    if not clear_evidence:
        tokens = Analysis.of(answer).tokens
        if tokens:
            unread = sum(t.text not in vocabulary for t in tokens) / len(tokens)
            doubt += UNREAD_WEIGHT * max(0.0, unread - UNREAD_FREE)
    return round(max(0.0, min(1.0, 1.0 - doubt)), 4)


def of_reference(probability: float) -> float:
    """Without a rubric: sure near P = 0 or 1, least sure at the decision boundary."""
    return round(min(1.0, 2 * abs(probability - 0.5) + 0.3), 4)


UNSURE_PREFIX = "I'm not sure I understood your answer:"


def is_unsure(certainty: float) -> bool:
    return certainty < UNSURE_BELOW


def explain(verdict: Verdict) -> str:
    """Why the grade is doubtful, in the learner's terms, and what it means for them."""
    if verdict.judge_scores:
        reason = "repeated gradings of it disagreed"
    elif verdict.covered_key_points:
        reason = "I could match only part of it to what I was looking for"
    else:
        reason = "I could not match it to the points I was looking for"
    return (
        f"{reason}, so this grade counts for less toward your mastery. If you meant one of the "
        "points below, try saying it more directly."
    )
