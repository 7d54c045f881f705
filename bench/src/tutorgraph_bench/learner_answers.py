"""Grading learners' own words: answers written independently of the grader and the references.

Each answer set (`benchmarks/learner_answers*/*.yaml`) holds, for knowledge-base questions, one
correct, one partial and one wrong answer each, written by people who saw only the question text
and the topic's misconception descriptions, never the reference answers, the rubric, the cues or
the grader. Each answer has a voice (terse, verbose, confident, code, casual); partial and wrong
ones are labelled with an error type and the misconception they state (or none).

The topics are split in two by `benchmarks/splits.yaml` (`splits.py`): the development half (the
grader's rules and lexicon may be looked at against it; `tutorgraph bench answers` reports it)
and the sealed half (measured once per release, `sealed.py`). Targets (issue 11):
- ordering correct > partial > wrong on >= 90% of questions;
- correct answers score >= 0.6 in >= 80% of cases; wrong answers < 0.4 in >= 90%.
Also reported: error-type accuracy and misconception detection on the labelled answers, the
grader's certainty by category, and the length-score correlation within each category; every
quality figure with its 95% interval (Wilson for shares, a seeded bootstrap for the rest).

The knowledge base's graded example answers (written by other helpers, never from these sets)
are part of the grader. So that a near copy between the two cannot carry the figures, a half is
graded twice more: with every example at least NEAR_COPY similar to the graded answer withheld,
and with no examples at all (`ExampleUse`).
"""

from __future__ import annotations

import difflib
import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import yaml

from tutorgraph.errors import InputError
from tutorgraph.grading.offline import OfflineGrader
from tutorgraph.grading.types import (
    ErrorType,
    Grade,
    GradingRequest,
    KnownMisconception,
    Verdict,
)
from tutorgraph.knowledge import shipped_domains
from tutorgraph.knowledge.grading_context import enrich_request
from tutorgraph.knowledge.schema import Question, Topic
from tutorgraph_bench import metrics
from tutorgraph_bench.metrics import Interval
from tutorgraph_bench.splits import AnswerSet, TopicSplit

Category = Grade  # the grade a teacher gave the answer
# Which of the question's graded example answers the grader reads: all of them, those not near
# a copy of the graded answer, or none.
ExampleUse = Literal["all", "distant", "none"]
EXAMPLE_USES: tuple[ExampleUse, ...] = ("all", "distant", "none")
CATEGORIES: tuple[Category, ...] = ("correct", "partial", "wrong")
VOICES = ("terse", "verbose", "confident", "code", "casual")
ERROR_TYPES: tuple[ErrorType, ...] = ("CONCEPTUAL", "PROCEDURAL", "INCOMPLETE", "CARELESS")

ORDERING_TARGET = 0.90
CORRECT_PASS = 0.6
CORRECT_TARGET = 0.80
WRONG_FAIL = 0.4
WRONG_TARGET = 0.90
ERROR_TYPE_TARGET = 0.80  # the evaluator spec's error classification accuracy
MISCONCEPTION_TARGET = 0.75  # the evaluator spec's misconception detection rate
NEAR_COPY = 0.4  # difflib ratio from which an example counts as near the graded answer
UNSURE = 0.6  # certainty below which a verdict counts as flagged unsure

Grader = Callable[[GradingRequest], Verdict]


@dataclass(frozen=True)
class LearnerAnswer:
    question_id: str
    topic: str
    category: Category
    voice: str
    answer: str
    error_type: ErrorType | None
    misconception: str | None
    source: str  # the file it came from
    answer_set: str  # the set (folder) it belongs to


class AnswerSetError(InputError):
    """The answer files do not fit the knowledge base (unknown question, label, voice...)."""


def _questions() -> dict[str, tuple[Topic, Question]]:
    found: dict[str, tuple[Topic, Question]] = {}
    for kb in shipped_domains().values():
        for topic in kb.domain.topics:
            for question in topic.questions:
                found[question.id] = (topic, question)
    return found


def load_answers(directory: Path, answer_set: str | None = None) -> list[LearnerAnswer]:
    """Every answer file in `directory`, checked against the knowledge base."""
    files = sorted(directory.glob("*.yaml"))
    if not files:
        raise AnswerSetError(f"no answer files (*.yaml) in {directory}")
    questions = _questions()
    answers: list[LearnerAnswer] = []
    for path in files:
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for i, row in enumerate(raw.get("answers") or [], start=1):
            where = f"{path.name} answer {i}"
            answers.append(_answer(row, where, path.name, answer_set or directory.name, questions))
    return answers


def _answer(
    row: dict[str, object],
    where: str,
    source: str,
    answer_set: str,
    questions: dict[str, tuple[Topic, Question]],
) -> LearnerAnswer:
    question_id = str(row.get("question", ""))
    if question_id not in questions:
        raise AnswerSetError(f"{where}: unknown question {question_id!r}")
    category = row.get("category")
    if category not in CATEGORIES:
        raise AnswerSetError(f"{where}: category must be one of {', '.join(CATEGORIES)}")
    voice = str(row.get("voice", ""))
    if voice not in VOICES:
        raise AnswerSetError(f"{where}: voice must be one of {', '.join(VOICES)}")
    text = str(row.get("answer") or "").strip()
    if not text:
        raise AnswerSetError(f"{where}: empty answer")
    error_type = row.get("error_type")
    if category == "correct":
        error_type = None
    elif error_type not in ERROR_TYPES:
        raise AnswerSetError(f"{where}: error_type must be one of {', '.join(ERROR_TYPES)}")
    misconception = row.get("misconception")
    topic, _ = questions[question_id]
    if misconception is not None and topic.misconception(str(misconception)) is None:
        raise AnswerSetError(
            f"{where}: misconception {misconception!r} is not one of topic {topic.id}'s"
        )
    return LearnerAnswer(
        question_id=question_id,
        topic=topic.id,
        category=category,
        voice=voice,
        answer=text,
        error_type=error_type,
        misconception=None if misconception is None else str(misconception),
        source=source,
        answer_set=answer_set,
    )


def load_set(answer_set: AnswerSet) -> list[LearnerAnswer]:
    return load_answers(answer_set.folder, answer_set.name)


def development_half(split: TopicSplit) -> list[LearnerAnswer]:
    """The answers the grader may be tuned on: the development topics of the sets that were
    read while it was tuned."""
    topics = split.topics("dev")
    return [a for s in split.present_sets() if s.tuned for a in load_set(s) if a.topic in topics]


def sealed_halves(split: TopicSplit) -> list[tuple[AnswerSet, list[LearnerAnswer]]]:
    """Each present set's answers on the sealed topics, set by set (a set read during tuning is
    reported apart, as not clean)."""
    topics = split.topics("sealed")
    halves = []
    for s in split.present_sets():
        answers = [a for a in load_set(s) if a.topic in topics]
        if answers:
            halves.append((s, answers))
    return halves


@dataclass(frozen=True)
class Untuned:
    """Answers the grader was not tuned on, and where they come from (for the reports)."""

    answers: list[LearnerAnswer]
    description: str


def untuned_answers(split: TopicSplit) -> Untuned:
    """The answers of the sets never read during tuning, all topics; while there is none, the
    sealed-topic answers of the others (never a development-topic answer)."""
    clean = [s for s in split.present_sets() if not s.tuned]
    if clean:
        answers = [a for s in clean for a in load_set(s)]
        names = ", ".join(f"`benchmarks/{s.name}/`" for s in clean)
        return Untuned(answers, f"the {len(answers)} answers of {names} (never read in tuning)")
    topics = split.topics("sealed")
    answers = [a for s in split.present_sets() for a in load_set(s) if a.topic in topics]
    names = ", ".join(f"`benchmarks/{s.name}/`" for s in split.present_sets())
    return Untuned(
        answers,
        f"the {len(answers)} sealed-topic answers of {names} (no set never read in tuning is "
        "present yet, so only the sealed topics answer from the pool; those answers were read "
        "before 2026-11-29, none since; no development-topic answer is used)",
    )


def bank_request(topic: Topic, question: Question, answer: str) -> GradingRequest:
    """The request the platform builds for an answer to a bank question, enriched from the KB
    (graded examples, supporting points, checks)."""
    return enrich_request(
        GradingRequest(
            question=question.text,
            reference_answer=question.reference_answer,
            answer=answer,
            rubric=list(question.rubric),
            phrasings={k: list(v) for k, v in question.phrasings.items()},
            misconceptions=[
                KnownMisconception(id=m.id, description=m.description, cues=list(m.cues))
                for m in topic.misconceptions
            ],
            difficulty=question.difficulty,
            concept=topic.id,
        )
    )


def request_for(answer: LearnerAnswer, examples: ExampleUse = "all") -> GradingRequest:
    """The request the platform builds for this bank question (enriched from the KB), with the
    question's graded examples as `examples` says."""
    request = bank_request(*_questions()[answer.question_id], answer.answer)
    if examples == "all":
        return request
    kept = [
        e for e in request.examples if examples == "distant" and not near_copy(e.answer, answer)
    ]
    return request.model_copy(update={"examples": kept})


def near_copy(text: str, answer: LearnerAnswer) -> bool:
    """Whether `text` is at least NEAR_COPY similar to the answer (difflib's ratio)."""
    return difflib.SequenceMatcher(None, text, answer.answer).ratio() >= NEAR_COPY


@dataclass(frozen=True)
class Graded:
    answer: LearnerAnswer
    verdict: Verdict


@dataclass(frozen=True)
class AnswerReport:
    """One half (or set) graded one way: every quality figure with its 95% interval and n."""

    half: str  # "dev", or the sealed half of one set
    examples: ExampleUse
    answers: int
    questions: int
    ordering: Interval  # share of complete question triples ordered correct > partial > wrong
    correct_pass: Interval
    wrong_fail: Interval
    error_type_accuracy: Interval  # labelled partial / wrong answers scored below 0.8
    misconception_recall: Interval  # answers labelled with a misconception
    misconception_false_on_correct: Interval
    unsure_share_of_misgraded: Interval
    mean_score: dict[str, Interval]
    mean_certainty: dict[str, float]
    length_rho: dict[str, Interval]  # words vs score within each category
    by_voice: dict[str, float]  # mean score of correct answers by voice

    @property
    def met(self) -> dict[str, bool]:
        return {
            "ordering": self.ordering.value >= ORDERING_TARGET,
            "correct": self.correct_pass.value >= CORRECT_TARGET,
            "wrong": self.wrong_fail.value >= WRONG_TARGET,
        }


def grade_all(
    answers: Sequence[LearnerAnswer], grader: Grader | None = None, examples: ExampleUse = "all"
) -> list[Graded]:
    grade = grader or OfflineGrader().grade
    return [Graded(a, grade(request_for(a, examples))) for a in answers]


def _mean(values: Iterable[float]) -> float:
    listed = list(values)
    return statistics.fmean(listed) if listed else float("nan")


def report(graded: Sequence[Graded], half: str, examples: ExampleUse = "all") -> AnswerReport:
    """The figures of `graded` (one half, already chosen)."""
    by_question: dict[str, dict[str, float]] = defaultdict(dict)
    for g in graded:
        by_question[g.answer.question_id][g.answer.category] = g.verdict.score
    triples = [s for s in by_question.values() if all(c in s for c in CATEGORIES)]
    in_category = {c: [g for g in graded if g.answer.category == c] for c in CATEGORIES}
    labelled = [g for g in graded if g.answer.error_type is not None and g.verdict.score < 0.8]
    with_misconception = [g for g in graded if g.answer.misconception is not None]
    misgraded = [
        g
        for g in graded
        if (g.answer.category == "correct" and g.verdict.score < CORRECT_PASS)
        or (g.answer.category == "wrong" and g.verdict.score >= WRONG_FAIL)
    ]
    return AnswerReport(
        half=half,
        examples=examples,
        answers=len(graded),
        questions=len(by_question),
        ordering=metrics.share([s["correct"] > s["partial"] > s["wrong"] for s in triples]),
        correct_pass=metrics.share(
            [g.verdict.score >= CORRECT_PASS for g in in_category["correct"]]
        ),
        wrong_fail=metrics.share([g.verdict.score < WRONG_FAIL for g in in_category["wrong"]]),
        error_type_accuracy=metrics.share(
            [g.verdict.error_type == g.answer.error_type for g in labelled]
        ),
        misconception_recall=metrics.share(
            [g.answer.misconception in g.verdict.misconceptions for g in with_misconception]
        ),
        misconception_false_on_correct=metrics.share(
            [bool(g.verdict.misconceptions) for g in in_category["correct"]]
        ),
        unsure_share_of_misgraded=metrics.share([g.verdict.certainty < UNSURE for g in misgraded]),
        mean_score={
            c: metrics.mean_interval([g.verdict.score for g in in_category[c]]) for c in CATEGORIES
        },
        mean_certainty={c: _mean(g.verdict.certainty for g in in_category[c]) for c in CATEGORIES},
        length_rho={
            c: metrics.paired_interval(
                metrics.spearman,
                [len(g.answer.answer.split()) for g in in_category[c]],
                [g.verdict.score for g in in_category[c]],
            )
            for c in CATEGORIES
        },
        by_voice={
            v: _mean(g.verdict.score for g in in_category["correct"] if g.answer.voice == v)
            for v in VOICES
        },
    )


def reports(answers: Sequence[LearnerAnswer], half: str) -> list[AnswerReport]:
    """`answers` graded three ways: with every graded example, with the examples near the graded
    answer withheld, and with none (a near copy between the two sets cannot carry the figures)."""
    return [report(grade_all(answers, examples=use), half, use) for use in EXAMPLE_USES]
