"""Words of a text as every reader compares them: lower-case ASCII, maths symbols spelled out,
accents dropped, one space between words."""

from __future__ import annotations

import re
import unicodedata

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def wordset(text: str) -> frozenset[str]:
    """The words of a whitespace-separated list, as a set: how word lists are written here."""
    return frozenset(text.split())


# Symbols learners type for maths, spelled the way references write them: without this, ASCII
# folding drops them ("−0.5" would read as 0.5, "σ(0)" as "(0)").
_SYMBOLS = str.maketrans(
    {
        "’": "'",
        "‘": "'",
        "“": '"',
        "”": '"',
        "−": "-",
        "–": "-",
        "—": " - ",
        "×": " x ",
        "·": " * ",
        "⋅": " * ",
        "∙": " * ",
        "÷": " / ",
        "≈": " ~ ",
        "≤": " <= ",
        "≥": " >= ",
        "≠": " != ",
        "≪": " << ",
        "≫": " >> ",
        "→": " -> ",
        "⇒": " -> ",
        "√": " sqrt ",
        "∑": " sum ",
        "Σ": " sum ",
        "∂": " d",
        "∇": " grad ",
        "∈": " in ",
        "ℝ": " R ",
        "α": "alpha",
        "β": "beta",
        "γ": "gamma",
        "δ": "delta",
        "ε": "epsilon",
        "η": "eta",
        "θ": "theta",
        "λ": "lambda",
        "μ": "mu",
        "π": "pi",
        "σ": "sigmoid",
        "τ": "tau",
        "φ": "phi",
        "ω": "omega",
    }
)


def ascii_fold(text: str) -> str:
    """Lower-case ASCII text with maths symbols spelled out and accents dropped."""
    folded = unicodedata.normalize("NFKD", text.translate(_SYMBOLS))
    return folded.encode("ascii", "ignore").decode("ascii").lower()


def normalise(text: str) -> str:
    """Lower-case, accent-free, single-spaced text: the form cues and answers are compared in."""
    return " ".join(_WORD.findall(ascii_fold(text)))


def words(text: str) -> list[str]:
    """Lower-case word tokens, apostrophes kept inside contractions."""
    return normalise(text).split()


def contains_phrase(text: str, phrase: str) -> bool:
    """Case- and accent-insensitive whole-word substring match of `phrase` in `text`."""
    needle = normalise(phrase)
    return bool(needle) and f" {needle} " in f" {normalise(text)} "
