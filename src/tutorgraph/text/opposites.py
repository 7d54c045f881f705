"""Opposites and comparatives, on stems: a swap that turns a right answer wrong."""

from __future__ import annotations

from tutorgraph.text.stemming import stem
from tutorgraph.text.tokens import wordset

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
