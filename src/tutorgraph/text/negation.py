"""Negation: which words deny, and how far a denial reaches (`NEGATION_SCOPE` words)."""

from __future__ import annotations

from tutorgraph.text.parameters import text_parameters
from tutorgraph.text.stemming import stem
from tutorgraph.text.stopwords import ANSWER_STOPWORDS, NEGATIONS
from tutorgraph.text.tokens import words

# Words after a negation that it denies ("not really very fast"): `negation.scope` in
# text/parameters.yaml.
NEGATION_SCOPE = text_parameters().negation.scope


def is_negation(word: str) -> bool:
    """A negation word, contractions included ("doesn't")."""
    return word in NEGATIONS or word.endswith("n't")


def negated_stems(text: str, *, scope: int = NEGATION_SCOPE) -> dict[str, bool]:
    """Each content stem of `text`, True when a negation word precedes it within `scope` words."""
    negated: dict[str, bool] = {}
    last = -scope - 1
    for i, word in enumerate(words(text)):
        if is_negation(word):
            last = i
        elif word not in ANSWER_STOPWORDS:
            key = stem(word)
            negated[key] = negated.get(key, False) or i - last <= scope
    return negated
