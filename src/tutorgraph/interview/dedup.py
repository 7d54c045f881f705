"""The three layers that keep a question from being asked twice, checked before asking.

1. Exact: the same text once normalised (case, punctuation, spacing).
2. Aspect gate: the same resume anchor and aspect (a question about project_1's trade-offs is
   asked once, however it is worded).
3. Similarity: the share of content words two questions share (the overlap coefficient of their
   stems) at or above SIMILARITY_THRESHOLD offline; with an embeddings endpoint configured, the
   cosine of the two embeddings at or above EMBEDDING_THRESHOLD instead (the spec's 0.85).

Technical questions have no anchor; layers 1 and 3, and their knowledge-base question id, keep
them apart."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from tutorgraph.interview.state import Aspect, QuestionRecord

SIMILARITY_THRESHOLD = 0.8  # the spec's word overlap > 80%
EMBEDDING_THRESHOLD = 0.85

Layer = Literal["exact", "aspect", "similar"]

_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "of",
        "to",
        "in",
        "on",
        "for",
        "with",
        "about",
        "at",
        "by",
        "from",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "you",
        "your",
        "yours",
        "i",
        "me",
        "my",
        "we",
        "our",
        "us",
        "they",
        "their",
        "them",
        "he",
        "she",
        "his",
        "her",
        "what",
        "which",
        "who",
        "whom",
        "how",
        "why",
        "when",
        "where",
        "do",
        "does",
        "did",
        "can",
        "could",
        "would",
        "should",
        "will",
        "shall",
        "may",
        "might",
        "tell",
        "walk",
        "through",
        "talk",
        "more",
        "some",
        "any",
        "there",
        "here",
        "so",
        "if",
        "then",
        "than",
        "just",
        "also",
        "please",
    ]
)


@dataclass(frozen=True)
class Blocked:
    layer: Layer
    earlier: str  # the question it repeats


def normalise(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def content_words(text: str) -> set[str]:
    return {_stem(w) for w in normalise(text).split() if w not in _STOP and len(w) > 1}


def word_overlap(a: str, b: str) -> float:
    """How much of the shorter question the other one says (overlap coefficient)."""
    left, right = content_words(a), content_words(b)
    if not left or not right:
        return 0.0
    return len(left & right) / min(len(left), len(right))


def check(
    text: str,
    *,
    anchor: str | None,
    aspect: Aspect | None,
    asked: Sequence[QuestionRecord],
    embedding_scores: Sequence[float] | None = None,
    threshold: float = SIMILARITY_THRESHOLD,
) -> Blocked | None:
    """Why `text` may not be asked, or None when it is new. `embedding_scores` (the cosine to
    each of `asked`, in order) replace word overlap in the third layer when given."""
    wanted = normalise(text)
    for record in asked:
        if normalise(record["text"]) == wanted:
            return Blocked("exact", record["text"])
    if anchor is not None and aspect is not None:
        for record in asked:
            if record["resume_anchor"] == anchor and record["aspect"] == aspect:
                return Blocked("aspect", record["text"])
    for index, record in enumerate(asked):
        if embedding_scores is not None:
            similar = embedding_scores[index] >= EMBEDDING_THRESHOLD
        else:
            similar = word_overlap(text, record["text"]) >= threshold
        if similar:
            return Blocked("similar", record["text"])
    return None


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word
