"""The independently-written-answers benchmark: the files are checked against the knowledge base,
the split is stable, and the report counts what it says it counts."""

from __future__ import annotations

import difflib
import random
from pathlib import Path

import pytest

from tutorgraph.bench.learner_answers import (
    AnswerSetError,
    grade_all,
    load_answers,
    report,
    request_for,
    split_of,
)
from tutorgraph.bench.learners import SimulatedLearner
from tutorgraph.knowledge import get_domain

QUESTION = "python-data-model-understand-1"
ROWS = """answers:
- question: python-data-model-understand-1
  category: correct
  voice: terse
  answer: |-
    b = a makes no copy: both names are the same list, so append changes it for a too.
    y += 1 makes a new int because ints are immutable; x keeps 5.
- question: python-data-model-understand-1
  category: partial
  voice: casual
  error_type: INCOMPLETE
  misconception: null
  answer: |-
    a and b are the same list so append shows up in both
- question: python-data-model-understand-1
  category: wrong
  voice: confident
  error_type: CONCEPTUAL
  misconception: variables-are-boxes
  answer: |-
    Obviously b is a copy of a, and append writes the copy back into a afterwards.
"""


def write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "set.yaml").write_text(text, encoding="utf-8")
    return tmp_path


def test_a_small_set_is_graded_in_order(tmp_path: Path) -> None:
    answers = load_answers(write(tmp_path, ROWS))
    graded = grade_all(answers)
    scores = {g.answer.category: g.verdict.score for g in graded}
    assert scores["correct"] > scores["partial"] > scores["wrong"]
    result = report(graded, "all")
    assert result.answers == 3 and result.questions == 1 and result.ordering == 1.0
    assert result.misconception_n == 1 and result.misconception_recall == 1.0
    assert result.met == {"ordering": True, "correct": True, "wrong": True}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("python-data-model-understand-1", "no-such-question"), "unknown question"),
        (("category: partial", "category: halfway"), "category must be"),
        (("voice: casual", "voice: whisper"), "voice must be"),
        (("error_type: INCOMPLETE", "error_type: LAZY"), "error_type must be"),
        (("misconception: variables-are-boxes", "misconception: sort-returns-list"), "not one"),
    ],
)
def test_a_bad_row_is_refused_with_its_place(
    tmp_path: Path, change: tuple[str, str], message: str
) -> None:
    with pytest.raises(AnswerSetError, match=message):
        load_answers(write(tmp_path, ROWS.replace(*change, 1)))


def test_an_empty_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(AnswerSetError, match=r"no answer files"):
        load_answers(tmp_path)


def test_the_split_is_stable_and_uses_both_halves() -> None:
    ids = [q.id for t in get_domain("python").domain.topics for q in t.questions]
    assert [split_of(i) for i in ids] == [split_of(i) for i in ids]
    assert {split_of(i) for i in ids} == {"dev", "test"}


def test_pool_learners_answer_by_mastery_from_the_pool() -> None:
    kb = get_domain("python")
    pool = {QUESTION: {"correct": ["RIGHT"], "partial": ["HALF"], "wrong": ["WRONG"]}}
    learner = SimulatedLearner.generate(kb, "junior", random.Random(3), style="pool", pool=pool)
    topic = "python-data-model"
    learner.mastery[topic] = 1.0
    said = [learner.answer(QUESTION, topic) for _ in range(200)]
    assert said.count("RIGHT") > 150 and "WRONG" not in said  # slips go to partial only
    learner.mastery[topic] = 0.0
    assert [learner.answer(QUESTION, topic) for _ in range(50)].count("WRONG") > 35
    other = next(q.id for q in kb.topic(topic).questions if q.id != QUESTION)
    learner.answer(other, topic)  # no pool answers for it: another question's, counted
    assert learner.fallbacks == 1


def test_the_shipped_answer_set_covers_every_bank_question_three_ways() -> None:
    answers = load_answers(Path(__file__).resolve().parents[2] / "benchmarks" / "learner_answers")
    by_question: dict[str, list[str]] = {}
    for answer in answers:
        by_question.setdefault(answer.question_id, []).append(answer.category)
    bank = {
        q.id
        for d in ("python", "machine-learning")
        for t in get_domain(d).domain.topics
        for q in t.questions
    }
    assert set(by_question) == bank
    assert all(sorted(c) == ["correct", "partial", "wrong"] for c in by_question.values())
    assert sum(a.misconception is not None for a in answers) >= 100  # the labelled-set floor


def test_no_shipped_graded_example_is_a_copy_of_a_benchmark_answer() -> None:
    """The grader reads the knowledge base's graded examples; the benchmark measures it on
    answers written apart from them. A (near) copy would let the set grade itself."""
    answers = load_answers(Path(__file__).resolve().parents[2] / "benchmarks" / "learner_answers")
    copies = [
        (a.question_id, a.category)
        for a in answers
        for e in request_for(a).examples
        if difflib.SequenceMatcher(
            None, " ".join(e.answer.split()), " ".join(a.answer.split())
        ).ratio()
        >= 0.95
    ]
    assert copies == []
