"""Parsing the judge's `10.0 X` reply, its JSON fallback, clamping, and the prompt layout."""

from __future__ import annotations

import pytest

from tutorgraph.grading.judge import JudgeParseError, judge_messages, parse_judge_reply
from tutorgraph.grading.types import GradingRequest, KnownMisconception


def test_notation_line_then_json_rubric() -> None:
    verdict = parse_judge_reply(
        '10.0 7.5\n{"correctness": 8, "completeness": 5, "clarity": 10, '
        '"error_type": "incomplete", "missing_key_points": ["scaling"], "reasoning": "ok"}'
    )
    assert verdict.rubric.correctness == 0.8
    assert verdict.score == pytest.approx(0.6 * 0.8 + 0.2 * 0.5 + 0.2 * 1.0)
    assert verdict.error_type == "INCOMPLETE"
    assert verdict.missing_key_points == ["scaling"] and verdict.grader == "llm"


def test_notation_without_json_uses_the_score_for_every_criterion() -> None:
    verdict = parse_judge_reply("10.0 6\nThe answer misses the scaling factor.")
    assert verdict.score == pytest.approx(0.6)
    assert verdict.rubric.clarity == pytest.approx(0.6)


def test_json_fallback_and_clamping() -> None:
    assert parse_judge_reply('Here you go: {"score": 14}').score == pytest.approx(1.0)
    assert parse_judge_reply("10.0 -3").score == 0.0
    clamped = parse_judge_reply('10.0 9\n{"correctness": 42, "completeness": -1, "clarity": 5}')
    assert (clamped.rubric.correctness, clamped.rubric.completeness) == (1.0, 0.0)


@pytest.mark.parametrize("reply", ["", "I think it is fine.", "{not json", "ten out of ten"])
def test_unparseable_replies_raise_a_clear_error(reply: str) -> None:
    with pytest.raises(JudgeParseError, match=r"10\.0 X"):
        parse_judge_reply(reply)


def test_unknown_error_types_are_dropped_not_trusted() -> None:
    verdict = parse_judge_reply('10.0 3\n{"error_type": "LAZY"}')
    assert verdict.error_type is None


def test_prompt_puts_reference_as_assistant_1_and_swaps_on_request() -> None:
    request = GradingRequest(
        question="Why scale?",
        reference_answer="REFERENCE",
        answer="LEARNER",
        rubric=["divide by sqrt(d_k)"],
        misconceptions=[KnownMisconception(id="m1", description="thinks it is for speed")],
    )
    user = judge_messages(request)[1].content or ""
    assert user.index("REFERENCE") < user.index("Assistant 2's Answer") < user.index("LEARNER")
    assert "- divide by sqrt(d_k)" in user and "- m1: thinks it is for speed" in user
    swapped = judge_messages(request, swap=True)[1].content or ""
    assert swapped.index("LEARNER") < swapped.index("REFERENCE")
