"""Feedback on one assessment answer, for the report: the misconceptions it showed, each in the
learner's own words.

A misconception the grading engine found is quoted with the sentence of the answer that states
it: the first sentence that says one of its cues word for word, else the first that says its
description in other words (the engine's own two readings, `stated_misconceptions` and
`described_misconceptions`, applied sentence by sentence). A misconception the engine read off
the whole answer and no single sentence states (the graded example nearest the answer, say) gets
no quote; the report then shows its description only."""

from __future__ import annotations

from collections.abc import Sequence

from tutorgraph.grading.keypoints import (
    described_misconceptions,
    split_sentences,
    stated_misconceptions,
)
from tutorgraph.grading.types import KnownMisconception
from tutorgraph.knowledge import Misconception

# A quote longer than this is cut (on a word boundary) so one run-on answer cannot fill the report.
QUOTE_CHARS = 240


def misconception_quotes(
    answer: str, known: Sequence[Misconception], found: Sequence[str]
) -> dict[str, str]:
    """For each misconception id in `found`, the sentence of `answer` that states it."""
    wanted = [
        KnownMisconception(id=m.id, description=m.description, cues=list(m.cues))
        for m in known
        if m.id in found
    ]
    sentences = split_sentences(answer)
    quotes: dict[str, str] = {}
    for misconception in wanted:
        for reading in (_by_cue, _by_description):
            sentence = next((s for s in sentences if reading(s, misconception)), None)
            if sentence is not None:
                quotes[misconception.id] = _cut(sentence)
                break
    return quotes


def _by_cue(sentence: str, misconception: KnownMisconception) -> bool:
    return bool(stated_misconceptions(sentence, [misconception]))


def _by_description(sentence: str, misconception: KnownMisconception) -> bool:
    return bool(described_misconceptions(sentence, "", [misconception]))


def _cut(sentence: str) -> str:
    text = " ".join(sentence.split())
    if len(text) <= QUOTE_CHARS:
        return text
    return text[: QUOTE_CHARS - 1].rsplit(" ", 1)[0] + "…"
