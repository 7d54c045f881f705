"""How sure the offline grader is of its own score: `Verdict.certainty`, from 0 to 1.

A score is doubtful when the grader's two readings disagree, or when it could not read much of
the answer. For a rubric question, doubt adds up from:
- disagreement: |key-point coverage - lexical P(correct)| (the answer looks right word for word
  but says no point, or the reverse);
- half-said points: the share of points only partly credited;
- unread content: the share of the answer's content tokens that appear nowhere in the question,
  reference, rubric or phrasings, beyond `unread_free` (the answer may say something right in
  words the grader does not know);
- a stated misconception or a denied point is clear evidence and removes the unread doubt.
The weights are parameters (`certainty` in `grading/parameters.yaml`; hand-set, decision 0009).

Below `unsure_below` the evaluator says so in its feedback and moves mastery less (by the
certainty), so an answer the grader could not read costs the learner little either way.
"""

from __future__ import annotations

from collections.abc import Sequence

from tutorgraph.grading.keypoints import PointResult
from tutorgraph.grading.parameters import CertaintyParameters, grading_parameters
from tutorgraph.grading.types import Verdict
from tutorgraph.text.meaning import Analysis


def of_key_points(
    *,
    results: Sequence[PointResult],
    probability: float,
    answer: str,
    vocabulary: frozenset[str],
    misconceptions: Sequence[str],
    parameters: CertaintyParameters | None = None,
) -> float:
    """Certainty of a rubric verdict (see the module doc)."""
    p = parameters or grading_parameters().certainty
    if not results:
        return of_reference(probability, p)
    coverage = sum(r.credit for r in results) / len(results)
    doubt = p.disagreement_weight * abs(coverage - probability)
    doubt += p.partial_weight * sum(0.0 < r.credit < 1.0 for r in results) / len(results)
    clear_evidence = bool(misconceptions) or any(r.contradicted for r in results)
    if not clear_evidence:
        tokens = Analysis.of(answer).tokens
        if tokens:
            unread = sum(t.text not in vocabulary for t in tokens) / len(tokens)
            doubt += p.unread_weight * max(0.0, unread - p.unread_free)
    return round(max(0.0, min(1.0, 1.0 - doubt)), 4)


def of_reference(probability: float, parameters: CertaintyParameters | None = None) -> float:
    """Without a rubric: sure near P = 0 or 1, least sure (`reference_base`) at the decision
    boundary."""
    p = parameters or grading_parameters().certainty
    return round(min(1.0, 2 * abs(probability - 0.5) + p.reference_base), 4)


UNSURE_PREFIX = "I'm not sure I understood your answer:"


def is_unsure(certainty: float) -> bool:
    return certainty < grading_parameters().certainty.unsure_below


def explain(verdict: Verdict) -> str:
    """Why the grade is doubtful, in the learner's terms, and what it means for them: one
    sentence that also says what was credited, so the feedback after it opens with no second,
    contradicting headline (the offline feedback leaves its own out when unsure)."""
    listed = grading_parameters().feedback.points_listed
    counts = "so this grade counts for less toward your mastery"
    if verdict.judge_scores:
        reason = f"repeated gradings of it disagreed, {counts}."
    elif verdict.covered_key_points:
        covered = "; ".join(verdict.covered_key_points[:listed])
        reason = (
            f"part of it matches what I was looking for ({covered}), but I could not match the "
            f"rest, {counts}."
        )
    else:
        reason = f"I could not match it to the points I was looking for, {counts}."
    return f"{reason} If you meant one of the points a full answer covers, say it more directly."
