"""Graded example answers: the offline grader's second reading of an answer.

A question can carry answers other learners wrote, each with the grade a teacher gave it
(correct, partial, wrong) and the misconception it states (the knowledge base's `examples`;
the reference answer counts as one more correct example). A new answer is compared with each by
the ideas they share: the tokens `meaning` reads (stems, the lexicon's groups, numbers, complexity,
a negated token kept apart from the same token asserted), beyond the question's own, each weighted
by how rare it is among this question's examples (a word every example uses tells nothing apart),
as a cosine similarity. Then (`read_examples`):

- estimate: the grade of the `neighbours` nearest examples, weighted by similarity squared
  (correct 1, partial 0.5, wrong 0);
- weight: how much of correctness the estimate may replace: `example_share` x where the nearest
  similarity lies between `similar_from` (none) and `similar_at` (all of the share). Completeness is
  only ever lowered by it (`lower`): a fragment of a correct answer resembles that answer while
  giving less of what was asked, so how much is there stays the key points' reading;
- wrong idea: the nearest example is a wrong answer at least `misconception_similarity` close;
  the offline grader then caps correctness as for a stated misconception (what else the answer
  says stands on a wrong idea), whether or not the example names a known one;
- misconception: that example's, when it names one;
- vouches: the nearest example is a correct one at least `similar_at` close; the grader then does
  not read the known misconceptions' descriptions into the answer (words of a description
  scattered over a right answer are the weakest evidence of a wrong idea);
- partly right: when the examples weigh at all, whether their estimate is nearer partial than
  wrong; the offline grader's error type then tells a partial answer (INCOMPLETE) from a wrong
  one (CONCEPTUAL) by it.

What it can do: an answer that says what a graded answer said, in other words than the rubric's
(a wrong idea told with the right vocabulary, a right one in a learner's words), gets that grade's
pull. What it cannot: grade an idea no example or reference shows, or tell apart two answers that
use the same words bound differently beyond what their rarer words show. The values (parameters
`examples` in `grading/parameters.yaml`) were chosen on the dev split of
`benchmarks/learner_answers` against examples written by other helpers (decision 0032).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from tutorgraph.grading.parameters import ExampleParameters, grading_parameters
from tutorgraph.grading.types import Grade, GradedAnswer
from tutorgraph.text.meaning import Analysis

GRADE_VALUE: dict[Grade, float] = {"correct": 1.0, "partial": 0.5, "wrong": 0.0}
PARTLY_RIGHT_FROM = (GRADE_VALUE["wrong"] + GRADE_VALUE["partial"]) / 2


@dataclass(frozen=True)
class ExampleReading:
    """What the graded examples say about an answer (see the module doc)."""

    estimate: float
    weight: float
    nearest_grade: Grade
    nearest_similarity: float
    misconception: str | None
    parameters: ExampleParameters

    @property
    def wrong_idea(self) -> bool:
        """Whether the answer says what a graded wrong answer said: the nearest example is wrong
        and at least `misconception_similarity` close (named or not as a known misconception)."""
        close = self.nearest_similarity >= self.parameters.misconception_similarity
        return self.nearest_grade == "wrong" and close

    @property
    def vouches(self) -> bool:
        """Whether the answer is as close as the examples weigh (`similar_at`) to a correct one."""
        close = self.nearest_similarity >= self.parameters.similar_at
        return self.nearest_grade == "correct" and close

    @property
    def partly_right(self) -> bool | None:
        """Whether the examples near the answer read it as at least partly right (an estimate
        nearer partial than wrong: PARTLY_RIGHT_FROM); None when none is near enough to say."""
        return None if self.weight <= 0 else self.estimate >= PARTLY_RIGHT_FROM

    def blend(self, value: float) -> float:
        """`value` (a criterion in [0, 1]) moved towards the examples' estimate."""
        return (1 - self.weight) * value + self.weight * self.estimate

    def lower(self, value: float) -> float:
        """`value` moved towards the examples' estimate only when that is lower."""
        return min(value, self.blend(value))

    def adjust(self, correctness: float, completeness: float) -> tuple[float, float]:
        """The two criteria as the examples move them: correctness either way, completeness
        only down (see the module doc)."""
        return self.blend(correctness), self.lower(completeness)


def read_examples(
    question: str,
    reference: str,
    answer: str,
    examples: Sequence[GradedAnswer],
    *,
    parameters: ExampleParameters | None = None,
) -> ExampleReading | None:
    """The examples' reading of `answer`, or None without examples or shared ideas."""
    p = parameters or grading_parameters().examples
    if not examples:
        return None
    graded = [
        *((e.answer, e.grade, e.misconception) for e in examples),
        (reference, "correct", None),
    ]
    asked = Analysis.of(question).texts
    bags = [_ideas(text, asked) for text, _, _ in graded]
    said = _ideas(answer, asked)
    if not said:
        return None
    counts = Counter(token for bag in bags for token in bag)
    weight = {
        t: math.log((len(bags) + 1) / (counts.get(t, 0) + 1)) + 1 for t in said | counts.keys()
    }
    ranked = sorted(
        (
            (_cosine(said, bag, weight), grade, misconception)
            for bag, (_, grade, misconception) in zip(bags, graded, strict=True)
        ),
        key=lambda found: -found[0],
    )
    nearest = ranked[: p.neighbours]
    total = sum(similarity**2 for similarity, _, _ in nearest)
    if total == 0:
        return None
    estimate = sum(similarity**2 * GRADE_VALUE[grade] for similarity, grade, _ in nearest) / total
    top, grade, misconception = nearest[0]
    closeness = min(1.0, max(0.0, (top - p.similar_from) / (p.similar_at - p.similar_from)))
    stated = misconception if grade == "wrong" and top >= p.misconception_similarity else None
    return ExampleReading(
        estimate=round(estimate, 4),
        weight=round(p.example_share * closeness, 4),
        nearest_grade=grade,
        nearest_similarity=round(top, 4),
        misconception=stated,
        parameters=p,
    )


@lru_cache(maxsize=8192)
def _ideas(text: str, asked: frozenset[str]) -> frozenset[str]:
    """The tokens an answer says beyond the question's; a negated one is marked apart."""
    return frozenset(
        ("~" if token.negated else "") + token.text
        for token in Analysis.of(text).tokens
        if token.text not in asked
    )


def _cosine(a: frozenset[str], b: frozenset[str], weight: dict[str, float]) -> float:
    if not a or not b:
        return 0.0
    shared = sum(weight[t] ** 2 for t in a & b)
    return shared / math.sqrt(sum(weight[t] ** 2 for t in a) * sum(weight[t] ** 2 for t in b))
