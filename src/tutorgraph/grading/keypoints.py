"""Which rubric points an answer makes, which it denies, and which misconceptions it states.

A point is credited when the answer says the point or one of its accepted phrasings (the
knowledge base's `phrasings`) - see `meaning.find` for what "says" means:
- full credit when at least `full_share` of a phrasing's tokens (beyond the question's) are there
  together and none is denied, unless the phrasing comes down to one ordinary word;
- partial credit (the share found) for a longer phrasing (`partial_min_tokens`+ tokens) of which
  at least `partial_share` is there;
- the reference sentence that says most of the point counts as one more phrasing (so restating
  the reference earns the point even where the point's own words differ);
- the point is *contradicted* when the answer talks about it (says at least `point_denial` of a
  phrasing's tokens there) but denies it ("strings are mutable" for "strings are immutable") and
  no phrasing is fully and cleanly met; one negated word the point shares ("you don't need to
  keep anything" for "keep a reference to the task") is not talking about it.

A misconception is stated when one of its cues appears word for word (articles aside, at most one
extra word between two of its words, the lexicon's synonyms allowed) with the cue's own polarity
("b is a copy of a", not "b is not a copy of a"), or, read only where the grader asks
(`described_misconceptions`), when the answer says most of the misconception's description in any
words, as `find` reads a key point, and none of its sentences denies it.

The thresholds are parameters (`grading/parameters.yaml`: `key_points`, `misconceptions`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from tutorgraph.grading.parameters import (
    KeyPointParameters,
    MisconceptionParameters,
    grading_parameters,
)
from tutorgraph.grading.types import KnownMisconception
from tutorgraph.text.meaning import Analysis, find


@dataclass(frozen=True)
class PointResult:
    point: str
    credit: float
    contradicted: bool

    @property
    def covered(self) -> bool:
        return self.credit >= 1.0


def assess_points(
    question: str,
    answer: str,
    points: Sequence[str],
    phrasings: Mapping[str, Sequence[str]] | None = None,
    *,
    reference: str = "",
    parameters: KeyPointParameters | None = None,
) -> list[PointResult]:
    """Credit and contradiction for each rubric point (see the module doc)."""
    p = parameters or grading_parameters().key_points
    phrasings = phrasings or {}
    said = Analysis.of(answer)
    ignore = Analysis.of(question).texts
    support = supporting_sentences(reference, tuple(points), p.support_share)
    results = []
    for point in points:
        credit = 0.0
        denied = False
        extra = (support[point],) if point in support else ()
        for phrasing in (point, *phrasings.get(point, ()), *extra):
            match = find(Analysis.of(phrasing), said, ignore=ignore, denial_share=p.point_denial)
            if match.needed == 0 or not match.specific:
                continue
            if match.contradicted:
                denied = True
                continue
            if match.share >= p.full_share:
                credit = 1.0
                break
            if match.needed >= p.partial_min_tokens and match.share >= p.partial_share:
                credit = max(credit, match.share)
        results.append(PointResult(point, credit, denied and credit < 1.0))
    return results


_SENTENCE = re.compile(r"(?<=[.;!?])\s+")


def split_sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE.split(text.strip()) if s.strip()]


def supporting_sentences(
    reference: str, points: tuple[str, ...], share: float | None = None
) -> dict[str, str]:
    """For each point, the reference sentence that says most of it (at least `share` of its
    words, by default `key_points.support_share`): an answer that restates that sentence makes
    the point too."""
    if share is None:
        share = grading_parameters().key_points.support_share
    return _supporting_sentences(reference, points, share)


@lru_cache(maxsize=4096)
def _supporting_sentences(reference: str, points: tuple[str, ...], share: float) -> dict[str, str]:
    sentences = split_sentences(reference)
    if not sentences:
        return {}
    analysed = [Analysis.of(s) for s in sentences]
    found: dict[str, str] = {}
    for point in points:
        wanted = Analysis.of(point)
        best = max(range(len(sentences)), key=lambda i: find(wanted, analysed[i]).share)
        if find(wanted, analysed[best]).share >= share:
            found[point] = sentences[best]
    return found


def stated_misconceptions(answer: str, known: Sequence[KnownMisconception]) -> list[str]:
    """Ids of the known misconceptions one of whose cues the answer states (see the module doc)."""
    said = Analysis.of(answer, verbatim=True)
    found = []
    for misconception in known:
        for cue in misconception.cues:
            match = find(Analysis.of(cue, verbatim=True), said, ordered=True)
            if match.share >= 1.0 and not match.contradicted:
                found.append(misconception.id)
                break
    return found


_BELIEVES = re.compile(r"^(believes|thinks|assumes|expects)( that)?\s+", re.IGNORECASE)


def described_misconceptions(
    answer: str,
    question: str,
    known: Sequence[KnownMisconception],
    *,
    parameters: MisconceptionParameters | None = None,
) -> list[str]:
    """Ids of the known misconceptions whose description the answer says in other words: at
    least `description_share` of the description's tokens beyond the question's (the idea without
    "Believes ..."), close together, none denied there, and no sentence of the answer denying
    it ("ridge never sets them exactly to zero" refutes "ridge sets coefficients exactly to
    zero", whatever the answer then says of lasso in the same words)."""
    p = parameters or grading_parameters().misconceptions
    said = Analysis.of(answer)
    ignore = Analysis.of(question).texts
    found = []
    for misconception in known:
        idea = Analysis.of(_BELIEVES.sub("", misconception.description.strip()))
        match = find(idea, said, ignore=ignore)
        if (
            match.needed >= p.description_min_tokens
            and match.share >= p.description_share
            and not match.contradicted
            and not _denied_in_a_sentence(idea, answer, ignore)
        ):
            found.append(misconception.id)
    return found


def _denied_in_a_sentence(idea: Analysis, answer: str, ignore: frozenset[str]) -> bool:
    return any(
        find(idea, Analysis.of(sentence), ignore=ignore).contradicted
        for sentence in split_sentences(answer)
    )
