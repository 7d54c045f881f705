"""The one stemmer: Snowball English, cached. Every reader (grader, tutor, search, course
builder) stems through here, so a word reduces the same way wherever it is compared."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from functools import lru_cache

import Stemmer

from tutorgraph.text.stopwords import ANSWER_STOPWORDS, NEGATIONS
from tutorgraph.text.tokens import words

_STEMMER = Stemmer.Stemmer("english")

# Irregular verb forms the stemmer leaves apart from their verb ("lost updates" is "lose
# updates"), when the form means nothing else in these domains ("left", "saw", "bound" and
# "found" do: left / right, a saw, a bound, to found; "broken" and "frozen" are states, and
# Python's `break` a statement).
_IRREGULAR = {
    form: verb
    for verb, forms in (
        ("lose", "lost"),
        ("run", "ran"),
        ("write", "wrote written"),
        ("overwrite", "overwrote overwritten"),
        ("rewrite", "rewrote rewritten"),
        ("choose", "chose chosen"),
        ("throw", "threw thrown"),
        ("keep", "kept"),
        ("hold", "held"),
        ("send", "sent"),
        ("spend", "spent"),
        ("catch", "caught"),
        ("teach", "taught"),
        ("bring", "brought"),
        ("know", "knew known"),
        ("begin", "began begun"),
        ("hide", "hid hidden"),
        ("show", "shown"),
        ("grow", "grew grown"),
        ("fall", "fell fallen"),
        ("rise", "rose risen"),
        ("draw", "drew drawn"),
        ("forget", "forgot forgotten"),
        ("understand", "understood"),
        ("give", "gave given"),
        ("feed", "fed"),
        ("lead", "led"),
        ("see", "seen"),
    )
    for form in forms.split()
}


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Snowball English stem of one lower-case word."""
    return str(_STEMMER.stemWord(word))


def idea_stem(word: str) -> str:
    """The stem `meaning` reads a word as: an irregular verb form's verb's. (The lexical model
    keeps plain stems: its calibration was fitted on them.)"""
    return stem(_IRREGULAR.get(word, word))


def content_stems(text: str) -> list[str]:
    """Stems of the content words of `text`, in order (stopwords and negations dropped)."""
    return [stem(w) for w in words(text) if w not in ANSWER_STOPWORDS and w not in NEGATIONS]


def bigrams(stems: list[str]) -> set[tuple[str, str]]:
    """Adjacent content-stem pairs, the key phrases of a text."""
    return set(itertools.pairwise(stems))


def near(a: str, b: str) -> bool:
    """Whether two stems are equal or one typo apart (both long enough to be safe)."""
    if a == b:
        return True
    if min(len(a), len(b)) < 5 or abs(len(a) - len(b)) > 1:
        return False
    return _within_one_edit(a, b)


def _within_one_edit(a: str, b: str) -> bool:
    if len(a) > len(b):
        a, b = b, a
    i = j = edits = 0
    while i < len(a) and j < len(b):
        if a[i] == b[j]:
            i += 1
            j += 1
            continue
        edits += 1
        if edits > 1:
            return False
        if len(a) == len(b):
            i += 1
        j += 1
    return edits + (len(b) - j) + (len(a) - i) <= 1


def stem_words(tokens: Iterable[str]) -> list[str]:
    """Stems of a list of words, in order: the callable bm25s's tokenizer takes."""
    return [stem(w) for w in tokens]
