"""The offline question generator: the requested level and a fresh type, never a repeat, the
nearest level when the bank has none, key-point questions when the bank is exhausted."""

from __future__ import annotations

import pytest

from tutorgraph.assessment.bank import draw_question
from tutorgraph.assessment.schemas import QuestionRequest
from tutorgraph.knowledge import BloomLevel, Domain, KnowledgeBase, QuestionType, Topic, get_domain


def _request(
    level: BloomLevel,
    *,
    topic: str = "python-data-model",
    used: list[QuestionType] | None = None,
    asked: list[str] | None = None,
) -> QuestionRequest:
    return QuestionRequest(
        domain="python",
        topic_id=topic,
        bloom_level=level,
        target_level="mid",
        questions_on_topic=len(asked or []),
        used_question_types=used or [],
        asked_question_ids=asked or [],
    )


def test_draws_the_requested_level_and_rotates_types() -> None:
    kb = get_domain("python")
    # python-data-model has an analyze scenario and an analyze debugging question.
    after_scenario = draw_question(kb, _request(BloomLevel.ANALYZE, used=["scenario"]))
    after_debugging = draw_question(kb, _request(BloomLevel.ANALYZE, used=["debugging"]))
    assert (after_scenario.bloom_level, after_scenario.question_type) == ("analyze", "debugging")
    assert (after_debugging.bloom_level, after_debugging.question_type) == ("analyze", "scenario")
    least_recent = draw_question(kb, _request(BloomLevel.ANALYZE, used=["debugging", "scenario"]))
    assert least_recent.question_type == "debugging"
    assert after_scenario.source_id is not None
    found = kb.question(after_scenario.source_id)
    assert found is not None and found[1].reference_answer == after_scenario.reference_answer


def test_never_repeats_and_falls_back_to_the_nearest_level() -> None:
    kb = get_domain("python")
    analyze = [q.id for q in kb.topic("python-data-model").questions if q.bloom_level == "analyze"]
    fallback = draw_question(kb, _request(BloomLevel.ANALYZE, asked=analyze))
    assert fallback.source_id not in analyze
    assert fallback.bloom_level == "apply"  # one below beats one above on a tie
    create = [q.id for q in kb.topic("python-data-model").questions if q.bloom_level == "create"]
    assert draw_question(kb, _request(BloomLevel.CREATE, asked=create)).bloom_level == "evaluate"


def test_a_probe_stays_at_the_requested_level() -> None:
    kb = get_domain("python")
    analyze = [q.id for q in kb.topic("python-data-model").questions if q.bloom_level == "analyze"]
    request = _request(BloomLevel.ANALYZE, asked=analyze).model_copy(update={"probe": True})
    probe = draw_question(kb, request)
    assert probe.bloom_level == "analyze"  # a key-point question at the level, not an apply one
    assert probe.source_id is not None and probe.source_id not in analyze
    one_left = _request(BloomLevel.ANALYZE, asked=analyze[:1]).model_copy(update={"probe": True})
    assert draw_question(kb, one_left).source_id == analyze[1]  # the bank first when it can


def test_an_exhausted_bank_asks_about_key_points_without_repeating() -> None:
    kb = get_domain("python")
    topic = kb.topic("functions-and-scope")
    asked = [q.id for q in topic.questions]
    seen = set(asked)
    for _ in range(3):
        question = draw_question(kb, _request(BloomLevel.APPLY, topic=topic.id, asked=sorted(seen)))
        assert question.source_id is not None and question.source_id not in seen
        assert question.reference_answer in topic.key_points
        assert question.bloom_level == "apply"
        seen.add(question.source_id)


def test_a_topic_with_nothing_left_to_ask_says_so() -> None:
    tiny = KnowledgeBase(
        Domain(
            domain="tiny",
            title="Tiny",
            topics=[
                Topic(
                    id="only",
                    title="Only topic",
                    summary="One key point and no questions.",
                    target_levels=["mid"],
                    target_confidence={"mid": 0.7},
                    difficulty=1,
                    key_points=["Names are bound to objects."],
                )
            ],
        )
    )
    asked: list[str] = []
    for _ in range(len(BloomLevel)):
        question = draw_question(tiny, _request(BloomLevel.APPLY, topic="only", asked=asked))
        assert question.source_id is not None
        asked.append(question.source_id)
    assert len(set(asked)) == len(BloomLevel)
    with pytest.raises(LookupError, match="already asked"):
        draw_question(tiny, _request(BloomLevel.APPLY, topic="only", asked=asked))
