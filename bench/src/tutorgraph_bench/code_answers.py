"""Code, config and worked-number answers written by independent writers, graded as the platform
grades them: the text grader's verdict, then the question's checks (its code run in the
sandbox, its numbers computed).

The set (`benchmarks/code_answers/*.yaml`) was written by writers who saw only the questions:
never the references, the checks or the grader. Each answer is labelled `correct`, `slip` (the
right approach with one mistake) or `wrong`, and has a form: `code_only`, `code_with_prose`,
`worked` or `prose`. Halves follow `benchmarks/splits.yaml`'s topic split; the development half
is reported by `tutorgraph bench code-answers`, the sealed half only with `--sealed`, once per
release commit, appended to `benchmarks/sealed_code_answers.yaml`.

Figures, each with its 95% interval (Wilson):
- correct code-only >= 0.8: correct answers of form `code_only` scoring at least 0.8;
- slip between: a one-slip answer scoring above the mean of its question's wrong answers and
  below the mean of its correct ones;
- wrong < 0.4;
- slip named: a one-slip answer whose verdict names what failed (a failing case with the
  input, the value and the expectation, or a known slip's message), not only a score;
- false misconception on correct: correct answers with any misconception recorded;
- the text grader alone: the same shares without the checks (what the grader did before).
Sandbox cost: the wall time of the checks per code answer (median, p95)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

from tutorgraph.grading.checks.grade import apply_checks, run_checks
from tutorgraph.grading.offline import OfflineGrader
from tutorgraph.grading.types import GradingRequest, Verdict
from tutorgraph.knowledge.loader import shipped_domains
from tutorgraph.knowledge.schema import Question, Topic
from tutorgraph.sandbox import sandbox_available
from tutorgraph_bench import metrics
from tutorgraph_bench.learner_answers import bank_request
from tutorgraph_bench.metrics import Interval
from tutorgraph_bench.splits import TopicSplit

DEFAULT_FOLDER = Path("benchmarks/code_answers")
LABELS = ("correct", "slip", "wrong")
PASS, FAIL = 0.8, 0.4


@dataclass(frozen=True)
class CodeAnswer:
    writer: str
    question_id: str
    label: str
    form: str
    slip: str
    answer: str


@dataclass(frozen=True)
class Graded:
    answer: CodeAnswer
    topic: str
    verdict: Verdict  # with the checks
    text_only: Verdict  # the text grader alone
    checks_ms: float | None  # wall time of the checks (code answers)


@cache
def _questions() -> dict[str, tuple[Topic, Question]]:
    return {
        q.id: (t, q)
        for kb in shipped_domains().values()
        for t in kb.domain.topics
        for q in t.questions
    }


def load(folder: Path = DEFAULT_FOLDER) -> list[CodeAnswer]:
    """Every answer of every writer's file in `folder`."""
    answers = []
    for path in sorted(folder.glob("*.yaml")):
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for item in raw.get("answers") or []:
            answers.append(
                CodeAnswer(
                    writer=path.stem,
                    question_id=str(item["question"]),
                    label=str(item["label"]),
                    form=str(item.get("form") or ""),
                    slip=str(item.get("slip") or ""),
                    answer=str(item["answer"]),
                )
            )
    unknown = sorted({a.question_id for a in answers} - set(_questions()))
    if unknown:
        raise ValueError(f"{folder}: answers to unknown questions {', '.join(unknown)}")
    return answers


def request_for(answer: CodeAnswer) -> GradingRequest:
    return bank_request(*_questions()[answer.question_id], answer.answer)


def grade(answer: CodeAnswer, *, grader: OfflineGrader, run: bool = True) -> Graded:
    request = request_for(answer)
    text_only = grader.grade(request)
    verdict, elapsed = text_only, None
    if request.checks is not None and request.answer.strip():
        started = time.perf_counter()
        checked = run_checks(request.checks, request.answer, run=run, question=request.question)
        if request.checks.cases:
            elapsed = (time.perf_counter() - started) * 1000
        verdict = apply_checks(request, text_only, checked)
    topic, _ = _questions()[answer.question_id]
    return Graded(answer, topic.id, verdict, text_only, elapsed)


def grade_all(answers: Sequence[CodeAnswer], *, run: bool = True) -> list[Graded]:
    grader = OfflineGrader()
    return [grade(a, grader=grader, run=run) for a in answers]


def in_half(graded: Sequence[Graded], split: TopicSplit, half: str) -> list[Graded]:
    return [g for g in graded if split.half_of(g.topic) == half]


@dataclass(frozen=True)
class CodeReport:
    half: str
    answers: int
    questions: int
    correct_code_only_pass: Interval
    correct_pass: Interval
    slip_between: Interval
    wrong_fail: Interval
    slip_named: Interval
    false_misconception_on_correct: Interval
    text_only_correct_code_only_pass: Interval
    text_only_slip_between: Interval
    text_only_wrong_fail: Interval
    cost_median_ms: float
    cost_p95_ms: float
    code_answers_run: int
    ran_in_sandbox: bool


def _between(graded: Sequence[Graded], pick: str) -> list[bool]:
    by_question: dict[str, dict[str, list[float]]] = {}
    for g in graded:
        verdict = g.verdict if pick == "checked" else g.text_only
        by_question.setdefault(g.answer.question_id, {}).setdefault(g.answer.label, []).append(
            verdict.score
        )
    flags = []
    for scores in by_question.values():
        if not all(label in scores for label in LABELS):
            continue
        low, high = statistics.fmean(scores["wrong"]), statistics.fmean(scores["correct"])
        flags += [low < s < high for s in scores["slip"]]
    return flags


def named(verdict: Verdict) -> bool:
    """Whether the verdict says what failed: a known slip, or a failing case or value with a
    message of its own (not a refusal shared by every case, not 'not run')."""
    checks = verdict.checks
    if checks is None:
        return False
    if checks.slips:
        return True
    if not checks.ran or checks.problem is not None:
        return checks.problem in ("syntax", "timeout")
    return any(not line.passed and line.message for line in checks.lines)


def report(graded: Sequence[Graded], half: str) -> CodeReport:
    of = {label: [g for g in graded if g.answer.label == label] for label in LABELS}
    code_only = [g for g in of["correct"] if g.answer.form == "code_only"]
    costs = sorted(g.checks_ms for g in graded if g.checks_ms is not None)
    return CodeReport(
        half=half,
        answers=len(graded),
        questions=len({g.answer.question_id for g in graded}),
        correct_code_only_pass=metrics.share([g.verdict.score >= PASS for g in code_only]),
        correct_pass=metrics.share([g.verdict.score >= PASS for g in of["correct"]]),
        slip_between=metrics.share(_between(graded, "checked")),
        wrong_fail=metrics.share([g.verdict.score < FAIL for g in of["wrong"]]),
        slip_named=metrics.share([named(g.verdict) for g in of["slip"]]),
        false_misconception_on_correct=metrics.share(
            [bool(g.verdict.misconceptions) for g in of["correct"]]
        ),
        text_only_correct_code_only_pass=metrics.share(
            [g.text_only.score >= PASS for g in code_only]
        ),
        text_only_slip_between=metrics.share(_between(graded, "text")),
        text_only_wrong_fail=metrics.share([g.text_only.score < FAIL for g in of["wrong"]]),
        cost_median_ms=statistics.median(costs) if costs else float("nan"),
        cost_p95_ms=metrics.percentile(costs, 0.95) if costs else float("nan"),
        code_answers_run=len(costs),
        ran_in_sandbox=sandbox_available(),
    )


ROWS = (
    ("correct_code_only_pass", "correct code-only >= 0.8", ">= 95%"),
    ("correct_pass", "correct (any form) >= 0.8", ""),
    ("slip_between", "one slip between wrong and correct", ">= 90%"),
    ("wrong_fail", "wrong < 0.4", ">= 95%"),
    ("slip_named", "slip named", ">= 70%"),
    ("false_misconception_on_correct", "false misconception on correct", "<= 1%"),
)
TEXT_ONLY = {
    "correct_code_only_pass": "text_only_correct_code_only_pass",
    "slip_between": "text_only_slip_between",
    "wrong_fail": "text_only_wrong_fail",
}


def markdown(reports: Sequence[CodeReport], command: str) -> str:
    lines = [
        "## Code, config and worked answers: run, computed, read",
        "",
        f"Command: `{command}`",
        "",
        "Answers to the knowledge base's code, config and computation questions, written by "
        "three writers who saw only the questions (never the references, the checks or the "
        "grader): `benchmarks/code_answers/`. Graded as the platform grades them: the offline "
        "text grader, then the question's checks (code run in the bubblewrap sandbox against "
        "its cases; numbers compared with the expected values). 'Text alone' is the same "
        "answers graded without the checks, as before issue 34. Figures with 95% intervals "
        "(Wilson); n = answers (questions with all three labels for 'between').",
        "",
    ]
    for r in reports:
        lines += [
            f"### {r.half}: {r.answers} answers to {r.questions} questions"
            + ("" if r.ran_in_sandbox else " (sandbox NOT available: code read statically)"),
            "",
            "| figure | target | with checks | text alone |",
            "|---|---|---|---|",
        ]
        for key, label, target in ROWS:
            value: Interval = getattr(r, key)
            alone = getattr(r, TEXT_ONLY[key]).percent() if key in TEXT_ONLY else ""
            lines.append(f"| {label} | {target} | {value.percent()} (n={value.n}) | {alone} |")
        cost = (
            f"Sandbox cost per graded code answer ({r.code_answers_run} answers run): median "
            f"{r.cost_median_ms:.0f} ms, p95 {r.cost_p95_ms:.0f} ms (one sandbox run per "
            "answer, all cases in it)."
            if "statically" not in r.half
            else "Nothing runs: the code is parsed and checked for what `requires` names; the "
            "grade says so and its certainty is at most 0.5."
        )
        lines += ["", cost, ""]
    return "\n".join(lines)
