"""Misconception detection: a known misconception is flagged when one of its cues appears."""

from __future__ import annotations

import re
from collections.abc import Sequence

from tutorgraph.grading.types import KnownMisconception

_SPACE = re.compile(r"[^a-z0-9+*/=<>%#.]+")


def normalise(text: str) -> str:
    """Lower-case, punctuation to spaces, single spaces, padded for whole-word matching."""
    return " " + _SPACE.sub(" ", text.lower()).strip() + " "


def detect_misconceptions(answer: str, known: Sequence[KnownMisconception]) -> list[str]:
    """Ids of the known misconceptions whose cues occur in the answer (whole words)."""
    text = normalise(answer)
    found = []
    for misconception in known:
        if any(normalise(cue) in text for cue in misconception.cues if cue.strip()):
            found.append(misconception.id)
    return found
