"""Misconception cues must not fire on right answers.

A cue is read in a learner's answer by `stated_misconceptions` (word for word after stemming,
lexicon synonyms allowed, with polarity). A cue that also matches a topic's reference answers or
its answers graded "correct" would mark a right answer as stating the misconception, so each cue,
alone, is checked against every such text of its topic.
"""

from __future__ import annotations

import pytest

from tutorgraph.grading.keypoints import stated_misconceptions
from tutorgraph.grading.types import KnownMisconception
from tutorgraph.knowledge.loader import shipped_domains
from tutorgraph.knowledge.schema import Topic

TOPICS = [
    pytest.param(topic, id=f"{name}/{topic.id}")
    for name, kb in sorted(shipped_domains().items())
    for topic in kb.domain.topics
]


def _right_answers(topic: Topic) -> list[tuple[str, str]]:
    """(where, text) of every reference answer and every example answer graded correct, where
    being the question id and which of its texts it is."""
    texts = []
    for question in topic.questions:
        texts.append((f"{question.id} (reference)", question.reference_answer))
        texts += [
            (f"{question.id} (example {i})", example.answer)
            for i, example in enumerate(question.examples)
            if example.grade == "correct"
        ]
    return texts


def _start(text: str, length: int = 80) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= length else flat[: length - 3] + "..."


@pytest.mark.parametrize("topic", TOPICS)
def test_no_cue_fires_on_a_right_answer(topic: Topic) -> None:
    texts = _right_answers(topic)
    fired = []
    for misconception in topic.misconceptions:
        for cue in misconception.cues:
            known = [
                KnownMisconception(
                    id=misconception.id, description=misconception.description, cues=[cue]
                )
            ]
            fired += [
                f"{where}: {misconception.id}: cue {cue!r} in {_start(text)!r}"
                for where, text in texts
                if stated_misconceptions(text, known)
            ]
    assert not fired, f"{len(fired)} cue(s) fire on right answers:\n" + "\n".join(fired)


def test_sorted_with_a_comment_on_sort_is_not_sort_returns_list() -> None:
    topic = next(
        t for t in shipped_domains()["python"].domain.topics if t.id == "builtin-data-structures"
    )
    misconception = topic.misconception("sort-returns-list")
    assert misconception is not None
    known = [
        KnownMisconception(
            id=misconception.id, description=misconception.description, cues=misconception.cues
        )
    ]
    answer = (
        "names = sorted(names, key=str.lower)\n"
        "print(names)  # sorted() returns a new list; list.sort() sorts in place and returns None"
    )
    assert stated_misconceptions(answer, known) == []
