"""Grading learners' own words: answers written independently of the grader and the references.

The set (`benchmarks/learner_answers/*.yaml`) holds, for knowledge-base questions, one correct,
one partial and one wrong answer each, written by people (helpers) who saw only the question text
and the topic's misconception descriptions, never the reference answers, the rubric, the cues or
the grader. Each answer has a voice (terse, verbose, confident, code, casual); partial and wrong
ones are labelled with an error type and the misconception they state (or none).

Questions are split in two by a hash of their id: `dev` (what the grader's rules and lexicon may
be looked at against) and `test` (reported, never tuned on). Targets (issue 11):
- ordering correct > partial > wrong on >= 90% of questions;
- correct answers score >= 0.6 in >= 80% of cases; wrong answers < 0.4 in >= 90%.
Also reported: error-type accuracy and misconception detection on the labelled answers, the
grader's certainty by category, and the length-score correlation within each category.

The knowledge base's graded example answers (written by other helpers, never from this set)
are part of the grader. So that a near copy between the two sets cannot carry the figures, the
test split is graded twice more: with every example at least NEAR_COPY similar to the graded
answer withheld, and with no examples at all (`ExampleUse`).
"""

from __future__ import annotations

import difflib
import hashlib
import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import yaml

from tutorgraph.bench import metrics
from tutorgraph.errors import InputError
from tutorgraph.grading.context import enrich_request
from tutorgraph.grading.keypoints import stated_misconceptions
from tutorgraph.grading.offline import OfflineGrader
from tutorgraph.grading.types import (
    ErrorType,
    Grade,
    GradingRequest,
    KnownMisconception,
    Verdict,
)
from tutorgraph.knowledge import shipped_domains
from tutorgraph.knowledge.schema import Question, Topic

Category = Grade  # the grade a teacher gave the answer
Split = Literal["dev", "test", "all"]
# Which of the question's graded example answers the grader reads: all of them, those not near
# a copy of the graded answer, or none.
ExampleUse = Literal["all", "distant", "none"]
CATEGORIES: tuple[Category, ...] = ("correct", "partial", "wrong")
VOICES = ("terse", "verbose", "confident", "code", "casual")
ERROR_TYPES: tuple[ErrorType, ...] = ("CONCEPTUAL", "PROCEDURAL", "INCOMPLETE", "CARELESS")
DEFAULT_DIR = Path("benchmarks/learner_answers")

ORDERING_TARGET = 0.90
CORRECT_PASS = 0.6
CORRECT_TARGET = 0.80
WRONG_FAIL = 0.4
WRONG_TARGET = 0.90
ERROR_TYPE_TARGET = 0.80  # the evaluator spec's error classification accuracy
MISCONCEPTION_TARGET = 0.75  # the evaluator spec's misconception detection rate
NEAR_COPY = 0.4  # difflib ratio from which an example counts as near the graded answer

Grader = Callable[[GradingRequest], Verdict]


@dataclass(frozen=True)
class LearnerAnswer:
    question_id: str
    category: Category
    voice: str
    answer: str
    error_type: ErrorType | None
    misconception: str | None
    source: str


class AnswerSetError(InputError):
    """The answer files do not fit the knowledge base (unknown question, label, voice...)."""


def split_of(question_id: str) -> Literal["dev", "test"]:
    """A stable half of the questions: by the first byte of the id's SHA-256."""
    return "dev" if hashlib.sha256(question_id.encode()).digest()[0] % 2 == 0 else "test"


def _questions() -> dict[str, tuple[Topic, Question]]:
    found: dict[str, tuple[Topic, Question]] = {}
    for kb in shipped_domains().values():
        for topic in kb.domain.topics:
            for question in topic.questions:
                found[question.id] = (topic, question)
    return found


def load_answers(directory: Path = DEFAULT_DIR) -> list[LearnerAnswer]:
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
            answers.append(_answer(row, where, path.name, questions))
    return answers


def _answer(
    row: dict[str, object],
    where: str,
    source: str,
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
        category=category,
        voice=voice,
        answer=text,
        error_type=error_type,
        misconception=None if misconception is None else str(misconception),
        source=source,
    )


def request_for(answer: LearnerAnswer, examples: ExampleUse = "all") -> GradingRequest:
    """The request the platform builds for this bank question (enriched from the KB), with the
    question's graded examples as `examples` says."""
    topic, question = _questions()[answer.question_id]
    request = enrich_request(
        GradingRequest(
            question=question.text,
            reference_answer=question.reference_answer,
            answer=answer.answer,
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
    split: Split
    examples: ExampleUse
    answers: int
    questions: int
    ordering: float  # share of complete question triples ordered correct > partial > wrong
    correct_pass: float
    wrong_fail: float
    mean_score: dict[str, float]
    mean_certainty: dict[str, float]
    by_voice: dict[str, float]  # mean score of correct answers by voice
    error_type_accuracy: float
    error_type_n: int
    misconception_recall: float
    misconception_n: int
    misconception_false_on_correct: float
    length_rho: dict[str, float]
    unsure_share_of_misgraded: float

    @property
    def met(self) -> dict[str, bool]:
        return {
            "ordering": self.ordering >= ORDERING_TARGET,
            "correct": self.correct_pass >= CORRECT_TARGET,
            "wrong": self.wrong_fail >= WRONG_TARGET,
        }


def grade_all(
    answers: Sequence[LearnerAnswer], grader: Grader | None = None, examples: ExampleUse = "all"
) -> list[Graded]:
    grade = grader or OfflineGrader().grade
    return [Graded(a, grade(request_for(a, examples))) for a in answers]


def _mean(values: Iterable[float]) -> float:
    listed = list(values)
    return statistics.fmean(listed) if listed else float("nan")


def report(graded: Sequence[Graded], split: Split, examples: ExampleUse = "all") -> AnswerReport:
    chosen = [g for g in graded if split == "all" or split_of(g.answer.question_id) == split]
    by_question: dict[str, dict[str, float]] = defaultdict(dict)
    for g in chosen:
        by_question[g.answer.question_id][g.answer.category] = g.verdict.score
    triples = [s for s in by_question.values() if all(c in s for c in CATEGORIES)]
    ordered = [s["correct"] > s["partial"] > s["wrong"] for s in triples]
    scores = {c: [g.verdict.score for g in chosen if g.answer.category == c] for c in CATEGORIES}
    labelled = [g for g in chosen if g.answer.error_type is not None and g.verdict.score < 0.8]
    with_misconception = [g for g in chosen if g.answer.misconception is not None]
    correct = [g for g in chosen if g.answer.category == "correct"]
    misgraded = [
        g
        for g in chosen
        if (g.answer.category == "correct" and g.verdict.score < CORRECT_PASS)
        or (g.answer.category == "wrong" and g.verdict.score >= WRONG_FAIL)
    ]
    return AnswerReport(
        split=split,
        examples=examples,
        answers=len(chosen),
        questions=len(by_question),
        ordering=_mean(float(o) for o in ordered),
        correct_pass=_mean(float(s >= CORRECT_PASS) for s in scores["correct"]),
        wrong_fail=_mean(float(s < WRONG_FAIL) for s in scores["wrong"]),
        mean_score={c: _mean(scores[c]) for c in CATEGORIES},
        mean_certainty={
            c: _mean(g.verdict.certainty for g in chosen if g.answer.category == c)
            for c in CATEGORIES
        },
        by_voice={
            v: _mean(g.verdict.score for g in correct if g.answer.voice == v) for v in VOICES
        },
        error_type_accuracy=_mean(
            float(g.verdict.error_type == g.answer.error_type) for g in labelled
        ),
        error_type_n=len(labelled),
        misconception_recall=_mean(
            float(g.answer.misconception in g.verdict.misconceptions) for g in with_misconception
        ),
        misconception_n=len(with_misconception),
        misconception_false_on_correct=_mean(
            float(bool(g.verdict.misconceptions)) for g in correct
        ),
        length_rho={
            c: metrics.spearman(
                [len(g.answer.answer.split()) for g in chosen if g.answer.category == c],
                [g.verdict.score for g in chosen if g.answer.category == c],
            )
            for c in CATEGORIES
        },
        unsure_share_of_misgraded=_mean(float(g.verdict.certainty < 0.6) for g in misgraded),
    )


def misconception_detection(answers: Sequence[LearnerAnswer]) -> float:
    """Share of answers labelled with a misconception whose cues the detector finds."""
    hits = []
    for a in answers:
        if a.misconception is None:
            continue
        request = request_for(a)
        hits.append(a.misconception in stated_misconceptions(a.answer, request.misconceptions))
    return _mean(float(h) for h in hits)


def _pct(value: float) -> str:
    return "n/a" if value != value else f"{value:.0%}"  # NaN: nothing to measure


def row_label(r: AnswerReport) -> str:
    return {
        "all": r.split,
        "distant": f"{r.split}, examples near the answer withheld",
        "none": f"{r.split}, no graded examples",
    }[r.examples]


def _met(ok: bool) -> str:
    return "met" if ok else "NOT met"


def markdown(reports: Sequence[AnswerReport], command: str, *, total: int) -> str:
    """The BENCHMARKS.md section: one row per split, then the targets on the test split."""
    lines = [
        "## Grading learners' own words (independently written answers)",
        "",
        f"Command: `{command}`",
        "",
        f"{total} answers in `benchmarks/learner_answers/` to knowledge-base questions, one "
        "correct, one partial and one wrong per question, written by helpers who saw only the "
        "question and the topic's misconception descriptions (never a reference, rubric, cue or "
        "the grader), in five voices (terse, verbose, confident, code, casual). Questions are "
        "split by a hash of their id; the grader's lexicon, rules and constants may be checked "
        "against `dev`, `test` is only reported. The grader reads each question's graded "
        "example answers in the knowledge base (`knowledge/domains/examples/`, written by "
        "other helpers who never saw this set); the test split is also graded with every "
        f"example at least {NEAR_COPY} similar (difflib ratio) to the graded answer withheld, "
        "and with no examples, so a near copy between the two sets cannot carry the figures.",
        "",
        "| split | answers | ordering c > p > w | correct >= 0.6 | wrong < 0.4 | mean score "
        "c / p / w | certainty c / p / w | error type acc. (n) | misconception found (n) | "
        "false misconception on correct |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in reports:
        lines.append(
            f"| {row_label(r)} | {r.answers} | {_pct(r.ordering)} | {_pct(r.correct_pass)} | "
            f"{_pct(r.wrong_fail)} | "
            + " / ".join(f"{r.mean_score[c]:.2f}" for c in CATEGORIES)
            + " | "
            + " / ".join(f"{r.mean_certainty[c]:.2f}" for c in CATEGORIES)
            + f" | {_pct(r.error_type_accuracy)} ({r.error_type_n}) | "
            f"{_pct(r.misconception_recall)} ({r.misconception_n}) | "
            f"{_pct(r.misconception_false_on_correct)} |"
        )
    test = next((r for r in reports if r.split == "test" and r.examples == "all"), reports[-1])
    met = test.met
    lines += [
        "",
        f"Targets on the `{test.split}` split: ordering >= {ORDERING_TARGET:.0%}: "
        f"{_met(met['ordering'])}; correct >= {CORRECT_PASS} in >= {CORRECT_TARGET:.0%}: "
        f"{_met(met['correct'])}; wrong < {WRONG_FAIL} in >= {WRONG_TARGET:.0%}: "
        f"{_met(met['wrong'])}. The evaluator spec's error classification accuracy >= "
        f"{ERROR_TYPE_TARGET:.0%}: {_met(test.error_type_accuracy >= ERROR_TYPE_TARGET)}; "
        f"misconception detection >= {MISCONCEPTION_TARGET:.0%}: "
        f"{_met(test.misconception_recall >= MISCONCEPTION_TARGET)} (both on the labelled "
        "partial and wrong answers the grader scores below 0.8, and the answers labelled with a "
        "misconception, respectively).",
        "",
        "Mean score of the correct answers by voice ("
        + test.split
        + "): "
        + ", ".join(f"{v} {test.by_voice[v]:.2f}" for v in VOICES)
        + ". Length vs score within a category (Spearman rho): "
        + ", ".join(f"{c} {test.length_rho[c]:.2f}" for c in CATEGORIES)
        + f". Of the misgraded answers (correct < {CORRECT_PASS} or wrong >= {WRONG_FAIL}), "
        f"{_pct(test.unsure_share_of_misgraded)} were flagged unsure (certainty < 0.6).",
        "",
        _NOT_ADOPTED,
    ]
    return "\n".join(lines)


# What was measured on this set and not adopted (figures dev / test at the time), so the next
# attempt starts from them. The wrong answers use the topic's words and often its right steps;
# what is left to read is how the words are bound, which matching words cannot do.
_NOT_ADOPTED = (
    "Measured and not adopted (dev / test): the graded examples moving completeness both "
    "ways, as they move correctness (ordering 88% / 92%, correct >= 0.6 96% / 95%, wrong < "
    "0.4 90% / 86%; 2026-11-28), since the first half of a correct answer then read as nearly "
    "complete (half a reference answer scored 0.83); 41 settings of the examples' neighbours "
    "(1, 3, 5), share (0.7 to 1.0) and similarity range (from 0.1 to 0.2, full at 0.4 or "
    "0.6), measured that way before the examples' review, all gave dev ordering 85% to 88% "
    "and wrong < 0.4 84% to 90%; not reading the reference as one more correct example "
    "changed no dev figure by more than one answer. A wrong claim read sentence by sentence "
    "(an answer's sentence at least 0.3 like a wrong example's and 0.2 more than like any "
    "right one's, treated as a stated misconception) raised wrong < 0.4 to 93% / 90% and "
    "misconceptions found to 82% / 71%, but lowered correct >= 0.6 to 94% / 89%, left "
    "ordering at 88% on dev and lowered it to 84% on test, and flagged 3% / 8% of the correct "
    "answers (2026-11-28). Pairs of terms learners confuse (precision / recall, shallow / "
    "deep, bias / variance and 13 more, from general usage) read as opposites, so saying one "
    "where a point says the other denies it: dev ordering 87% -> 88%, test unchanged, with "
    "the examples near the answer withheld test ordering 88% -> 87%, and a correct "
    "computation listing precision and recall side by side fell from 0.80 to 0.63 "
    "(2026-11-28). An audit of the 2,304 accepted phrasings by four reviewers who saw "
    "only the questions, references, points, phrasings and misconception descriptions (502 "
    "judged not diagnostic: 2026-11-25) lowered ordering from 76% / 76% to 68% / 72% (its "
    "drops alone: 71% / 73%), partial answers losing more than wrong ones; misconception cues "
    "read stemmed found 53% / 57% of the labelled misconceptions but flagged 12% of the "
    "correct answers; a point's words bound to one sentence lowered ordering to 70% / 74%; a "
    "penalty for words found only in the topic's misconception texts helped no split without "
    "costing correct answers; static word embeddings (wordllama) found 33% / 43% of the "
    "misconceptions at 9% / 15% false on correct answers; 4,145 more phrasings in learners' "
    "words raised correct >= 0.6 to 92% / 93% but lowered wrong < 0.4 to 73% / 75% "
    "(2026-11-24). Code identifiers read as their words (snake_case split: dev ordering 91% "
    "-> 92%, with the near examples withheld 86% -> 88%, but a right partial answer fell from "
    "0.71 to 0.41; CamelCase split: dev wrong < 0.4 one answer worse) and every one-word "
    "accepted phrasing credited (dev ordering 91% -> 87%) (2026-11-28)."
)
