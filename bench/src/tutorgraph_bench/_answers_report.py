"""The `learner-answers` section of BENCHMARKS.md: the development half, every quality figure
with its 95% interval and n."""

from __future__ import annotations

from collections.abc import Sequence

from tutorgraph_bench.learner_answers import (
    CATEGORIES,
    CORRECT_PASS,
    CORRECT_TARGET,
    ERROR_TYPE_TARGET,
    MISCONCEPTION_TARGET,
    NEAR_COPY,
    ORDERING_TARGET,
    UNSURE,
    VOICES,
    WRONG_FAIL,
    WRONG_TARGET,
    AnswerReport,
)
from tutorgraph_bench.metrics import Interval
from tutorgraph_bench.splits import TopicSplit

DECISIONS = (
    "What was measured on this set and not adopted, and why each rule is there: the decision "
    "records in `docs/decisions/`."
)


def row_label(r: AnswerReport) -> str:
    return {
        "all": r.half,
        "distant": f"{r.half}, examples near the answer withheld",
        "none": f"{r.half}, no graded examples",
    }[r.examples]


def _with_n(value: Interval) -> str:
    return f"{value.percent()} (n={value.n})"


def _met(ok: bool) -> str:
    return "met" if ok else "NOT met"


def markdown(reports: Sequence[AnswerReport], command: str, *, split: TopicSplit, sets: str) -> str:
    """One row per way of grading the development half, then its scores by category."""
    dev = ", ".join(f"{d}: {', '.join(t)}" for d, t in split.dev.items())
    main = next(r for r in reports if r.examples == "all")
    lines = [
        "## Grading learners' own words: the development half",
        "",
        f"Command: `{command}`",
        "",
        f"{main.answers} answers from {sets} to the questions of the development topics, one "
        "correct, one partial and one wrong per question, written by helpers who saw only the "
        "question and the topic's misconception descriptions (never a reference, rubric, cue or "
        "the grader), in five voices (terse, verbose, confident, code, casual). The topics are "
        f"split in two by `benchmarks/splits.yaml` (decided {split.decided}). {split.method} The "
        f"development half ({dev}) is what the grader's lexicon, rules and constants may be "
        "looked at against, so these figures show fit, not generalisation; CI keeps them from "
        "falling (`tests/bench/test_quality_floor.py`). The sealed topics are measured only by "
        "`tutorgraph bench release` (the next section). The grader reads each question's graded "
        "example answers in the knowledge base (`knowledge/domains/examples/`, written by other "
        "helpers who never saw this set); the half is also graded with every example at least "
        f"{NEAR_COPY} similar (difflib ratio) to the graded answer withheld, and with no "
        "examples, so a near copy between the two sets cannot carry the figures.",
        "",
        "Every share with its 95% Wilson interval and n (questions for the ordering, answers "
        "otherwise).",
        "",
        "| half | answers | ordering c > p > w | correct >= 0.6 | wrong < 0.4 | error type acc. "
        "| misconception found | false misconception on correct |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in reports:
        lines.append(
            f"| {row_label(r)} | {r.answers} | {_with_n(r.ordering)} | "
            f"{_with_n(r.correct_pass)} | {_with_n(r.wrong_fail)} | "
            f"{_with_n(r.error_type_accuracy)} | {_with_n(r.misconception_recall)} | "
            f"{_with_n(r.misconception_false_on_correct)} |"
        )
    lines += [
        "",
        f"Scores by category ({main.half}; means and Spearman rho with 95% bootstrap intervals):",
        "",
        "| category | answers | mean score | mean certainty | length vs score (rho) |",
        "|---|---|---|---|---|",
    ]
    for c in CATEGORIES:
        lines.append(
            f"| {c} | {main.mean_score[c].n} | {main.mean_score[c].number(2)} | "
            f"{main.mean_certainty[c]:.2f} | {main.length_rho[c].number(2)} |"
        )
    met = main.met
    lines += [
        "",
        f"Targets on the development half (a floor for tuning, not a measure): ordering >= "
        f"{ORDERING_TARGET:.0%}: {_met(met['ordering'])}; correct >= {CORRECT_PASS} in >= "
        f"{CORRECT_TARGET:.0%}: {_met(met['correct'])}; wrong < {WRONG_FAIL} in >= "
        f"{WRONG_TARGET:.0%}: {_met(met['wrong'])}; the evaluator spec's error classification "
        f"accuracy >= {ERROR_TYPE_TARGET:.0%}: "
        f"{_met(main.error_type_accuracy.value >= ERROR_TYPE_TARGET)}; misconception detection "
        f">= {MISCONCEPTION_TARGET:.0%}: "
        f"{_met(main.misconception_recall.value >= MISCONCEPTION_TARGET)} (error types on the "
        "labelled partial and wrong answers the grader scores below 0.8; misconceptions on the "
        "answers labelled with one). A target is read on the point figure; the interval shows "
        "how far a figure on this many questions can move.",
        "",
        "Mean score of the correct answers by voice: "
        + ", ".join(f"{v} {main.by_voice[v]:.2f}" for v in VOICES)
        + f". Of the misgraded answers (correct < {CORRECT_PASS} or wrong >= {WRONG_FAIL}), "
        f"{_with_n(main.unsure_share_of_misgraded)} were flagged unsure (certainty < {UNSURE}).",
        "",
        DECISIONS,
    ]
    return "\n".join(lines)
