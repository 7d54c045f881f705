"""The quality floor: the offline grader on the development half of the learner answers (a few
seconds) may not fall below the figures it had when the floor was set, and every answer's
verdict is compared with a golden file, so a rule or lexicon edit shows its effect in review.

The floor is the development half's figures at the end of issue 33 (2026-11-29), minus nothing;
raise it when the grader gets better, never lower it to let a change through. After an intended
change of verdicts, rewrite the golden file (`.venv/bin/python -m tutorgraph_bench.golden`) and
commit the diff with the change."""

from __future__ import annotations

from pathlib import Path

import pytest

from tutorgraph_bench.golden import GOLDEN, development_graded, difference, render
from tutorgraph_bench.learner_answers import AnswerReport, Graded, report

ROOT = Path(__file__).resolve().parents[2]

# The development half's headline figures, 2026-11-29 (98 questions, 294 answers). At 3febead
# they were 90, 93, 91, 137 and 57; the lexicon's collision fixes of issue 33 (text/lexicon.yaml)
# moved them to these: two more questions ordered, one more correct answer passing, and one
# misconception no longer found (rlhf-alignment-understand-1's wrong answer), a stated change.
# Issue 34 (supporting points, cues made specific) raised correct_pass 94 -> 95 and error types
# 137 -> 138, and lowered false misconceptions on correct answers 3 -> 2.
FLOOR = {
    "ordering": 92 / 98,  # correct > partial > wrong on 92 of 98 questions
    "correct_pass": 95 / 98,  # correct answers scored >= 0.6
    "wrong_fail": 91 / 98,  # wrong answers scored < 0.4
    "error_type_accuracy": 138 / 191,  # labelled answers scored below 0.8
    "misconception_recall": 56 / 68,  # answers labelled with a misconception
}
CEILING = {"misconception_false_on_correct": 2 / 98}  # correct answers flagged with one


@pytest.fixture(scope="module")
def graded() -> list[Graded]:
    return development_graded(ROOT / "benchmarks" / "splits.yaml")


@pytest.fixture(scope="module")
def figures(graded: list[Graded]) -> AnswerReport:
    return report(graded, "dev")


def test_the_development_half_is_the_one_measured(figures: AnswerReport) -> None:
    assert (figures.answers, figures.questions) == (294, 98)


@pytest.mark.parametrize("name", sorted(FLOOR))
def test_no_headline_figure_falls_below_the_floor(figures: AnswerReport, name: str) -> None:
    value = getattr(figures, name)
    assert value.value >= FLOOR[name] - 1e-9, (
        f"{name} fell to {value.percent()} (n={value.n}) from the floor {FLOOR[name]:.1%}"
    )


@pytest.mark.parametrize("name", sorted(CEILING))
def test_no_error_rate_rises_above_the_ceiling(figures: AnswerReport, name: str) -> None:
    value = getattr(figures, name)
    assert value.value <= CEILING[name] + 1e-9, (
        f"{name} rose to {value.percent()} (n={value.n}) from {CEILING[name]:.1%}"
    )


def test_every_verdict_is_the_golden_one(graded: list[Graded]) -> None:
    today = render(graded)
    expected = GOLDEN.read_text(encoding="utf-8")
    assert today == expected, difference(expected, today) + (
        "\nIf the change is intended: .venv/bin/python -m tutorgraph_bench.golden (commit the diff)"
    )
