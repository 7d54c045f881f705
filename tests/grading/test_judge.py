"""Parsing the judge's `10.0 X` reply, its JSON fallback, clamping, and the prompt layout."""

from __future__ import annotations

import pytest

from tutorgraph.grading.judge import JudgeParseError, judge, judge_messages, parse_judge_reply
from tutorgraph.grading.types import GradingRequest, KnownMisconception
from tutorgraph.llm import ScriptedEngine
from tutorgraph.settings import RubricWeights

REQUEST = GradingRequest(question="Why?", reference_answer="Because.", answer="Since.")


def test_the_notation_line_is_the_score_and_the_json_rubric_is_shown() -> None:
    verdict = parse_judge_reply(
        '10.0 8.0\n{"correctness": 8, "completeness": 5, "clarity": 4, '
        '"error_type": "incomplete", "missing_key_points": ["scaling"], "reasoning": "ok"}'
    )
    assert verdict.score == pytest.approx(0.80)  # not the rubric's 0.66
    assert verdict.rubric.correctness == 0.8 and verdict.rubric.clarity == 0.4
    assert verdict.error_type == "INCOMPLETE"
    assert verdict.missing_key_points == ["scaling"] and verdict.grader == "llm"


def test_notation_without_json_uses_the_score_for_every_criterion() -> None:
    verdict = parse_judge_reply("10.0 6\nThe answer misses the scaling factor.")
    assert verdict.score == pytest.approx(0.6)
    assert verdict.rubric.clarity == pytest.approx(0.6)


def test_without_the_notation_the_json_criteria_are_weighted_as_configured() -> None:
    reply = '{"correctness": 10, "completeness": 0, "clarity": 5}'
    assert parse_judge_reply(reply).score == pytest.approx(0.6 + 0.1)
    weights = RubricWeights(correctness=0.2, completeness=0.4, clarity=0.4)
    assert parse_judge_reply(reply, weights).score == pytest.approx(0.2 + 0.2)


def test_rubric_weights_must_sum_to_one() -> None:
    with pytest.raises(ValueError, match="sum to 1"):
        RubricWeights(correctness=0.6, completeness=0.6, clarity=0.2)


async def test_the_median_of_the_runs_is_kept_and_their_spread_lowers_certainty() -> None:
    model = ScriptedEngine()
    model.enqueue_chat("10.0 9", "10.0 2", "10.0 7")
    verdict = await judge(model, REQUEST, runs=3)
    assert verdict.score == pytest.approx(0.7)
    assert verdict.judge_scores == [0.2, 0.7, 0.9]
    assert verdict.certainty < 0.5
    steady = ScriptedEngine()
    steady.enqueue_chat("10.0 7", "10.0 7", "10.0 7")
    assert (await judge(steady, REQUEST, runs=3)).certainty == 1.0


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
    swapped = judge_messages(request, reference_first=False)[1].content or ""
    assert swapped.index("LEARNER") < swapped.index("Assistant 2's Answer")
    assert swapped.index("Assistant 2's Answer") < swapped.index("REFERENCE")
    assert "Assistant 2's answer is the golden reference" in swapped


def test_learner_shown_first_reads_the_learners_score_from_the_first_position() -> None:
    assert parse_judge_reply("6.5 10.0", reference_first=False).score == pytest.approx(0.65)
    assert parse_judge_reply("10.0 6.5").score == pytest.approx(0.65)


async def test_offline_judge_answers_in_the_prompts_order() -> None:
    from tutorgraph.engines import offline_engine
    from tutorgraph.grading.judge import judge_once

    request = GradingRequest(
        question="What does a for loop call on an iterable first?",
        reference_answer="It calls iter() on the iterable to get an iterator.",
        answer="iter() to get an iterator",
    )
    engine = offline_engine()
    as_spec = await judge_once(engine, request)
    learner_first = await judge_once(engine, request, reference_first=False)
    assert 0.0 < as_spec.score < 1.0
    assert learner_first.score == as_spec.score
