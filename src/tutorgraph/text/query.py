"""A learner's question read for search and matching: symbols and abbreviations spelled out,
identifiers split, content-word stems without the question's chat ("explain", "lesson")."""

from __future__ import annotations

import re

from tutorgraph.text.notation import with_notation
from tutorgraph.text.stemming import stem
from tutorgraph.text.stopwords import QUESTION_STOPWORDS

_WORD = re.compile(r"[a-z0-9]+")


# How learners write what the course spells out: expanded in search queries and matching.
_EXPANSIONS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), words)
    for pattern, words in (
        (r"==", " equality equal "),
        (r"!=", " not equal "),
        (r":=", " walrus assignment expression "),
        (r"\+=", " augmented assignment in-place "),
        (r"->", " return annotation "),
        (r"(?<![\w@])@(?=[a-z_])", " decorator "),
        (r"//", " floor division "),
        (r"\binit\b", " initialisation initialization init "),
        (r"\bparams?\b", " parameters "),
        (r"\bargs?\b", " arguments "),
        (r"\bkwargs\b", " keyword arguments "),
        (r"\bfuncs?\b", " function "),
        (r"\bvars?\b", " variable "),
        (r"\blr\b", " learning rate "),
        (r"\bnn\b", " neural network "),
        (r"\bml\b", " machine learning ml "),
        (
            r"\b(get|gets|getting|got) (\w+ )?wrong\b|\bmistakes?\b|\bgotchas?\b|\btrip(s)? up\b",
            " \\g<0> pitfalls misconceptions mistakes ",
        ),
        (r"\battn\b", " attention "),
        (r"\bbc\b", " because "),
        (r"\bw/", " with "),
        (r"\bsqrt\b", " square root sqrt "),
        (
            r"\bwith (open|statement|block|blocks|body)\b|\bwith with\b|\bworks with with\b",
            " with statement context manager \\g<0> ",
        ),
        (r"\byield\b", " yield generator "),
    )
)


def expand(text: str) -> str:
    """A learner's text with its symbols and abbreviations spelled out (`is vs ==` -> `is
    versus equality equal`) and identifiers also split (`lora_alpha` -> `lora_alpha lora
    alpha`): what search and matching read."""
    for pattern, words in _EXPANSIONS:
        text = pattern.sub(words, text)
    identifiers = re.findall(r"\b[a-z]+(?:_[a-z0-9]+)+\b", text, flags=re.IGNORECASE)
    return text + "".join(f" {i.replace('_', ' ')}" for i in identifiers)


def stems(text: str) -> list[str]:
    """Stems of the content words of `text` (stopwords and one-letter tokens dropped)."""
    words = _WORD.findall(with_notation(text).lower())
    return [stem(w) for w in words if w not in QUESTION_STOPWORDS and len(w) > 1]


def stem_set(text: str) -> set[str]:
    return set(stems(text))
