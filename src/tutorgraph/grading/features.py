"""Lexical features of an answer against its reference(s): what the offline grader's model reads.

Every feature is computed against each reference answer and the features of the best-covered
reference are kept (most of the reference's new content, then most precise). "Novel" stems are
those absent from the question, so an answer earns nothing for repeating the question's words.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from tutorgraph.grading.parameters import NonAnswerParameters, grading_parameters
from tutorgraph.text.meaning import Analysis
from tutorgraph.text.negation import negated_stems
from tutorgraph.text.opposites import OPPOSITES
from tutorgraph.text.stemming import bigrams, content_stems, near, stem
from tutorgraph.text.tokens import normalise, words

FEATURE_NAMES: tuple[str, ...] = (
    "ref_recall",
    "ref_recall_novel",
    "precision",
    "precision_novel",
    "extra_words",
    "question_overlap",
    "bigram_recall",
    "novel_words",
    "length_ratio",
    "negation_mismatch",
    "opposite_swap",
    "char_recall",
)
"""The model's inputs, in the order of `Calibration.weights`."""


@dataclass(frozen=True)
class TextView:
    """One text, tokenised once: content stems (in order), all word stems, negations, char grams."""

    stems: list[str]
    stem_set: frozenset[str]
    all_stems: frozenset[str]
    negated: dict[str, bool]
    grams: frozenset[str]

    @classmethod
    def of(cls, text: str) -> TextView:
        return _view(text)

    @classmethod
    def build(cls, text: str) -> TextView:
        stems = content_stems(text)
        padded = f" {normalise(text)} "
        return cls(
            stems=stems,
            stem_set=frozenset(stems),
            all_stems=frozenset(stem(w) for w in words(text)),
            negated=negated_stems(text),
            grams=frozenset(padded[i : i + 4] for i in range(len(padded) - 3)),
        )


@dataclass(frozen=True)
class Features:
    """Feature values plus what the grader explains with: the reference used and its coverage."""

    values: dict[str, float]
    reference_index: int
    covered_stems: frozenset[str]
    missing_stems: frozenset[str]


@lru_cache(maxsize=16384)  # questions and references repeat across answers
def _view(text: str) -> TextView:
    return TextView.build(text)


def matches(stem: str, pool: Iterable[str]) -> bool:
    """Whether `stem` or a one-typo variant of it is in `pool`."""
    pool_set = pool if isinstance(pool, frozenset) else frozenset(pool)
    if stem in pool_set:
        return True
    return len(stem) >= 5 and _near_any(stem, pool_set)


@lru_cache(maxsize=262144)
def _near_any(stem: str, pool: frozenset[str]) -> bool:
    return any(near(stem, other) for other in pool)


def _share(items: Iterable[str], pool: frozenset[str]) -> float:
    listed = list(items)
    return sum(matches(s, pool) for s in listed) / len(listed) if listed else 0.0


def _opposite_swap(answer: TextView, reference: TextView) -> bool:
    """The answer uses the opposite of a reference word ("lower" for "higher") and not the word."""
    for word in reference.all_stems - answer.all_stems:
        for opposite in OPPOSITES.get(word, ()):
            if opposite in answer.all_stems and opposite not in reference.all_stems:
                return True
    return False


def _negation_flip(answer: TextView, reference: TextView) -> bool:
    """A word both texts use is negated in one and not in the other ("not a conductor")."""
    shared = answer.negated.keys() & reference.negated.keys()
    return any(answer.negated[s] != reference.negated[s] for s in shared)


def _against(question: TextView, reference: TextView, answer: TextView) -> dict[str, float]:
    ref = reference.stem_set
    ref_novel = ref - question.stem_set or ref
    ans_novel = answer.stem_set - question.stem_set
    ref_bigrams = bigrams(reference.stems)
    n_answer = len(answer.stem_set)
    return {
        "ref_recall": _share(ref, answer.stem_set),
        "ref_recall_novel": _share(ref_novel, answer.stem_set),
        "precision": _share(answer.stem_set, ref),
        "precision_novel": _share(ans_novel, ref),
        "extra_words": math.log1p(sum(not matches(s, ref) for s in ans_novel)),
        "question_overlap": len(answer.stem_set & question.stem_set) / n_answer
        if n_answer
        else 1.0,
        "bigram_recall": (
            len(ref_bigrams & bigrams(answer.stems)) / len(ref_bigrams) if ref_bigrams else 0.0
        ),
        "novel_words": math.log1p(len(ans_novel)),
        "length_ratio": math.log((len(answer.stems) + 1) / (len(reference.stems) + 1)),
        "negation_mismatch": float(_negation_flip(answer, reference)),
        "opposite_swap": float(_opposite_swap(answer, reference)),
        "char_recall": len(answer.grams & reference.grams) / len(reference.grams)
        if reference.grams
        else 0.0,
    }


def extract(question: str, references: Sequence[str], answer: str) -> Features:
    """Features of `answer` against the best-covered of `references` (at least one)."""
    if not references:
        raise ValueError("at least one reference answer is needed")
    q, a = TextView.of(question), TextView.of(answer)
    views = [TextView.of(r) for r in references]
    scored = [_against(q, view, a) for view in views]
    best = max(
        range(len(views)),
        key=lambda i: (scored[i]["ref_recall_novel"], scored[i]["precision_novel"], -i),
    )
    ref = views[best].stem_set
    covered = frozenset(s for s in ref if matches(s, a.stem_set))
    return Features(
        values=scored[best],
        reference_index=best,
        covered_stems=covered,
        missing_stems=ref - covered,
    )


def is_echo(question: str, answer: str, parameters: NonAnswerParameters | None = None) -> bool:
    """The answer only restates the question: all its content words come from the question (at
    least `echo_share` of them), and so do its numbers, code tokens and operators (`tags=None`
    is not in `tags=[]`)."""
    p = parameters or grading_parameters().non_answers
    q, a = TextView.of(question), TextView.of(answer)
    if not a.stem_set or not q.stem_set or not a.stem_set <= q.stem_set:
        return False
    if not Analysis.of(answer).texts <= Analysis.of(question).texts:
        return False
    return len(a.stem_set) / len(q.stem_set) >= p.echo_share
