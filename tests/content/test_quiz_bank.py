"""Every shipped quiz card (content/*/course.json): the right option cannot be spotted by its
length or by sounding like the lesson, and the distractors stand for the knowledge base's
misconceptions, each with its correction (decision record 0049)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from pydantic import ValidationError

from tutorgraph.content.manifest import LoadedLesson, QuizItem, load_course
from tutorgraph.knowledge import find_topic
from tutorgraph.text.meaning import Analysis, find

CONTENT = Path(__file__).resolve().parents[2] / "content"

# The right option may be at most this many times the mean length of the others. Options are
# one line of 10-75 characters; a quarter longer is within the spread of the distractors
# themselves (their own longest is often 1.2x their mean), while the bank as it was before
# (up to 4.5x: 205 characters against 45) put the answer in the one long line.
LENGTH_RATIO = 1.25
# Across the bank, the right option may be the strictly longest (or the one that shares most of
# the lesson's words) in at most chance (1 / number of options) plus this margin of the cards.
# Chance is 25% for four options; 10 points above it is what a bank of ~50 cards can show by
# accident (one standard deviation of a 25% share over 50 cards is 6 points), not a habit.
CHANCE_MARGIN = 0.10
# Misconceptions that no card of a concept draws on, with why (a concept whose topic has
# misconceptions must otherwise draw on at least one of them).
NO_FITTING_MISCONCEPTION = {
    "performance-profiling": "its one card is Amdahl's-law arithmetic; the topic's misconceptions "
    "are about measuring (profiling before optimising, cProfile overhead, getsizeof)",
}


@dataclass(frozen=True)
class Card:
    lesson: LoadedLesson
    item: QuizItem

    @property
    def right(self) -> str:
        return self.item.options[self.item.correct_index]

    @property
    def others(self) -> list[str]:
        return [o for i, o in enumerate(self.item.options) if i != self.item.correct_index]


def _cards() -> list[Card]:
    cards = []
    for path in sorted(CONTENT.glob("*/course.json")):
        for lesson in load_course(path.parent).lessons:
            cards += [Card(lesson, item) for item in lesson.manifest.quiz]
    return cards


CARDS = _cards()


def _chance(cards: list[Card]) -> float:
    return sum(1 / len(c.item.options) for c in cards) / len(cards)


def test_the_bank_is_the_shipped_one() -> None:
    assert len(CARDS) >= 50 and {c.lesson.manifest.slug for c in CARDS} >= {
        "self-attention",
        "python-data-model",
    }


def test_the_right_option_is_about_as_long_as_the_others() -> None:
    too_long = {
        c.item.id: round(len(c.right) / (sum(map(len, c.others)) / len(c.others)), 2) for c in CARDS
    }
    assert {k: v for k, v in too_long.items() if v > LENGTH_RATIO} == {}


def test_the_right_option_is_not_usually_the_longest() -> None:
    longest = [c.item.id for c in CARDS if len(c.right) > max(map(len, c.others))]
    assert len(longest) / len(CARDS) <= _chance(CARDS) + CHANCE_MARGIN, longest


def test_the_right_option_is_not_the_one_worded_like_the_lesson() -> None:
    """The option that shares most of the lesson's words (the text layer's reading, the
    question's own words aside) is the right one no more often than chance allows."""
    closest = []
    bodies: dict[str, Analysis] = {}
    for c in CARDS:
        slug = c.lesson.manifest.slug
        body = bodies.setdefault(slug, Analysis.of(c.lesson.content))
        ignore = Analysis.of(c.item.question).texts
        shares = [find(Analysis.of(o), body, ignore=ignore).share for o in c.item.options]
        others = [s for i, s in enumerate(shares) if i != c.item.correct_index]
        if shares[c.item.correct_index] > max(others):
            closest.append(c.item.id)
    assert len(closest) / len(CARDS) <= _chance(CARDS) + CHANCE_MARGIN, closest


def _misconceptions(concept: str) -> set[str]:
    found = find_topic(concept)
    if found is None:
        return set()
    kb, topic_id = found
    return {m.id for m in kb.topic(topic_id).misconceptions}


def test_each_distractor_has_a_correction_and_names_a_real_misconception() -> None:
    for c in CARDS:
        item = c.item
        assert len(item.why_wrong) == len(item.options), item.id
        assert len(item.misconceptions) == len(item.options), item.id
        topics = {item.concept, *c.lesson.manifest.concepts}
        known = set().union(*(_misconceptions(t) for t in topics if t))
        for index, misconception in enumerate(item.misconceptions):
            assert misconception is None or misconception in known, (item.id, misconception)
            note = item.why_wrong[index]
            # a correction never names the right option: the learner may still pick it
            mentioned = re.search(rf"(?<![\w.,]){re.escape(c.right)}(?![\w.,%])", note)
            assert mentioned is None, (item.id, index)


def test_every_concept_with_misconceptions_draws_its_distractors_from_them() -> None:
    drawn: dict[str, int] = {}
    for c in CARDS:
        concept = c.item.concept
        if not _misconceptions(concept):
            continue
        own = _misconceptions(concept)
        drawn.setdefault(concept, 0)
        drawn[concept] += sum(1 for m in c.item.misconceptions if m in own)
    missing = {concept for concept, count in drawn.items() if count == 0}
    assert missing == set(NO_FITTING_MISCONCEPTION), missing


ITEM = {
    "id": "q",
    "question": "Which one?",
    "options": ["a", "b", "c"],
    "correct_index": 1,
}


@pytest.mark.parametrize(
    "notes",
    [
        {"misconceptions": [None, None]},  # one per option
        {"misconceptions": ["m", "m2", None]},  # the right option stands for none
        {"misconceptions": ["", None, None]},  # an empty id
        {"why_wrong": ["x", "", ""]},  # a distractor without its correction
        {"why_wrong": ["x", "y", "z"]},  # the right option needs none
        {"why_wrong": ["x", ""]},
    ],
)
def test_option_notes_are_validated(notes: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        QuizItem.model_validate({**ITEM, **notes})


def test_option_notes_are_optional() -> None:
    assert QuizItem.model_validate(ITEM).why_wrong == []
    noted = QuizItem.model_validate(
        {**ITEM, "misconceptions": ["m", None, None], "why_wrong": ["x", "", "z"]}
    )
    assert noted.misconceptions == ["m", None, None]
