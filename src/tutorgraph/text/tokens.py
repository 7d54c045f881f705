"""Text normalisation for the offline grader: tokens, content stems, negations, cue matching."""

from __future__ import annotations

import itertools
import re
import unicodedata
from functools import lru_cache

import Stemmer

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_STEMMER = Stemmer.Stemmer("english")


def wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Function words carry no answer content. Comparatives (more, less, same...) and negations are
# deliberately absent: in short science answers they often decide correctness.
STOPWORDS = wordset(
    """
    a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each either else
    for from further had has have having he her here hers herself him himself his how i if in
    into is it its itself just let me my myself of off on once only or other our ours ourselves
    out over own s she should so some such t than that the their theirs them themselves then
    there these they this those through thus to too under until up us very was we were what when
    where which while who whom why will with would you your yours yourself yourselves one ones
    get gets got may might must shall thing things way ways also therefore thats it's they're
    i'm because cause since well yes oh etc e g eg ie
    """
)

NEGATION_SCOPE = 3
NEGATIONS = wordset(
    """
    not no never none nothing nobody neither nor cannot cant can't don't dont doesn't doesnt
    didn't didnt isn't isnt aren't arent wasn't wasnt weren't werent won't wont wouldn't
    wouldnt shouldn't shouldnt couldn't couldnt hasn't hasnt haven't havent without
    """
)

# Opposites whose swap turns a right answer wrong ("higher" for "lower"); matched on stems.
_OPPOSITE_WORDS = """
more/less more/fewer most/least higher/lower high/low increase/decrease larger/smaller
bigger/smaller big/small faster/slower fast/slow hotter/colder warmer/cooler hot/cold
open/closed series/parallel positive/negative conductor/insulator absorb/reflect same/different
true/false stronger/weaker heavier/lighter longer/shorter many/few gain/lose attract/repel
connected/disconnected complete/incomplete on/off better/worse good/bad best/worst above/below
inside/outside before/after add/remove rise/fall push/pull north/south east/west input/output
valid/invalid correct/incorrect mutable/immutable synchronous/asynchronous sorted/unsorted
"""


def _opposites() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for pair in _OPPOSITE_WORDS.split():
        left, right = (stem(w) for w in pair.split("/"))
        table.setdefault(left, set()).add(right)
        table.setdefault(right, set()).add(left)
    return {key: frozenset(value) for key, value in table.items()}


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
    return [stem(w) for w in words(text) if w not in STOPWORDS and w not in NEGATIONS]


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
        elif word not in STOPWORDS:
            key = stem(word)
            negated[key] = negated.get(key, False) or i - last <= scope
    return negated


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


def contains_phrase(text: str, phrase: str) -> bool:
    """Case- and accent-insensitive whole-word substring match of `phrase` in `text`."""
    needle = normalise(phrase)
    return bool(needle) and f" {needle} " in f" {normalise(text)} "


OPPOSITES = _opposites()
# Comparatives among them say how two things compare, not what one is: "more tokens" denies
# "fewer tokens" only when both say of what (`meaning.find`).
COMPARATIVES = frozenset(
    stem(w)
    for w in wordset(
        """
        more less fewer higher lower larger smaller bigger faster slower longer shorter stronger
        weaker heavier lighter better worse hotter colder warmer cooler
        """
    )
)
