"""The independently-written-answers benchmark: the files are checked against the knowledge base,
the halves are split by topic as `benchmarks/splits.yaml` records, and the report counts what it
says it counts."""

from __future__ import annotations

import difflib
import random
from pathlib import Path

import pytest

from tutorgraph.knowledge import get_domain, shipped_domains
from tutorgraph_bench.learner_answers import (
    AnswerSetError,
    development_half,
    grade_all,
    load_answers,
    report,
    request_for,
    sealed_halves,
    untuned_answers,
)
from tutorgraph_bench.learners import SimulatedLearner
from tutorgraph_bench.splits import TOPICS_PER_HALF, SplitError, by_rule, load_split

ROOT = Path(__file__).resolve().parents[2]
SPLITS = ROOT / "benchmarks" / "splits.yaml"
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
    assert result.answers == 3 and result.questions == 1 and result.ordering.value == 1.0
    assert result.ordering.n == 1 and 0.0 < result.ordering.low < 1.0 == result.ordering.high
    assert result.misconception_recall.n == 1 and result.misconception_recall.value == 1.0
    assert result.met == {"ordering": True, "correct": True, "wrong": True}
    assert answers[0].topic == "python-data-model" and answers[0].answer_set == tmp_path.name


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


def test_the_recorded_split_is_the_documented_rule_seven_and_seven_per_domain() -> None:
    split = load_split(SPLITS)
    assert {d: (split.dev[d], split.sealed[d]) for d in split.dev} == by_rule()
    for domain, kb in shipped_domains().items():
        assert len(split.dev[domain]) == len(split.sealed[domain]) == TOPICS_PER_HALF
        topics = {t.id for t in kb.domain.topics}
        assert set(split.dev[domain]) | set(split.sealed[domain]) == topics
    assert not split.topics("dev") & split.topics("sealed")


def test_a_split_that_misses_or_repeats_a_topic_is_refused(tmp_path: Path) -> None:
    text = SPLITS.read_text(encoding="utf-8")
    path = tmp_path / "splits.yaml"
    path.write_text(text.replace("      - type-hints\n", "      - classes-and-oop\n"), "utf-8")
    with pytest.raises(SplitError, match=r"missing \['type-hints'\], twice \['classes-and-oop'\]"):
        load_split(path)


def _split_with_sets(tmp_path: Path, tuned: str | None, clean: str | None) -> Path:
    """A copy of the shipped split whose sets are `tuned` and `clean` folders under tmp_path."""
    text = SPLITS.read_text(encoding="utf-8")
    head = text[: text.index("  sets:\n")]
    rows = []
    for folder, is_tuned in ((tuned, True), (clean, False)):
        if folder is not None:
            rows.append(f"    - folder: {folder}\n      tuned: {str(is_tuned).lower()}\n")
    path = tmp_path / "splits.yaml"
    path.write_text(head + "  sets:\n" + "".join(rows), encoding="utf-8")
    return path


def _answer_rows(question: str, text: str) -> str:
    return f"- question: {question}\n  category: correct\n  voice: terse\n  answer: {text}\n"


def test_the_halves_never_mix_topics_and_the_pool_avoids_tuned_answers(tmp_path: Path) -> None:
    dev_q, sealed_q = "functions-and-scope-remember-1", "python-data-model-remember-1"
    for folder in ("old", "new"):
        (tmp_path / folder).mkdir()
        rows = _answer_rows(dev_q, f"{folder} dev") + _answer_rows(sealed_q, f"{folder} sealed")
        (tmp_path / folder / "a.yaml").write_text("answers:\n" + rows, encoding="utf-8")
    both = load_split(_split_with_sets(tmp_path, "old", "new"))
    assert [a.answer for a in development_half(both)] == ["old dev"]  # the tuned set's dev topics
    assert [(s.name, [a.answer for a in answers]) for s, answers in sealed_halves(both)] == [
        ("old", ["old sealed"]),
        ("new", ["new sealed"]),
    ]
    assert sorted(a.answer for a in untuned_answers(both).answers) == ["new dev", "new sealed"]
    old_only = load_split(_split_with_sets(tmp_path, "old", "absent"))
    pool = untuned_answers(old_only)
    assert [a.answer for a in pool.answers] == ["old sealed"]  # never a development topic's
    assert "sealed-topic answers" in pool.description


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


def test_pool_learners_answer_unpooled_topics_from_the_references_and_score_none_of_them() -> None:
    kb = get_domain("python")
    pool = {QUESTION: {"correct": ["RIGHT"], "partial": ["HALF"], "wrong": ["WRONG"]}}
    learner = SimulatedLearner.generate(kb, "junior", random.Random(3), style="pool", pool=pool)
    assert learner.scored_topics() == {"python-data-model"} & set(learner.mastery)
    outside = next(t for t in learner.mastery if t != "python-data-model")
    learner.mastery[outside] = 1.0  # mastered: the reference answer, as a consistent learner
    question = kb.topic(outside).questions[0]
    assert learner.answer(question.id, outside) == question.reference_answer
    assert learner.unpooled == 1 and learner.fallbacks == 0


def test_the_shipped_answer_set_covers_every_bank_question_three_ways() -> None:
    answers = load_answers(ROOT / "benchmarks" / "learner_answers")
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
    split = load_split(SPLITS)
    answers = [a for s in split.present_sets() for a in load_answers(s.folder, s.name)]
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
