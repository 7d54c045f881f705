"""The assessment agents with a model: structured outputs over the wire (fake OpenAI-compatible
server), retries then the offline fallback, and the checks applied to what a model returns."""

from __future__ import annotations

import logging

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Fault
from tutorgraph.assessment import agents
from tutorgraph.assessment.bank import as_question_output
from tutorgraph.assessment.gaps import analyze_gaps
from tutorgraph.assessment.knowledge_map import empty_graph
from tutorgraph.assessment.planning import offline_plan
from tutorgraph.assessment.schemas import (
    EvaluationOutput,
    GapEnrichmentOutput,
    GapRecommendationOutput,
    PlanOutput,
    PlanRequest,
    QuestionOutput,
    QuestionRequest,
)
from tutorgraph.assessment.state import KnowledgeGraphState
from tutorgraph.engines import offline_engine
from tutorgraph.grading.types import RubricScores, Verdict
from tutorgraph.knowledge import BloomLevel, KnowledgeBase, get_domain
from tutorgraph.learner_model.evaluator import Evaluator
from tutorgraph.llm import ScriptedEngine, aclose_model, build_model
from tutorgraph.settings import LLMSettings

REQUEST = QuestionRequest(
    domain="python",
    topic_id="decorators-closures",
    bloom_level=BloomLevel.ANALYZE,
    target_level="senior",
    questions_on_topic=1,
    used_question_types=["conceptual"],
    recent_questions=["What is a closure?"],
    asked_question_ids=["decorators-closures-remember-1"],
)
GENERATED = QuestionOutput(
    text="A decorator loses the wrapped function's name in tracebacks. Why, and how to fix it?",
    question_type="debugging",
    bloom_level=BloomLevel.ANALYZE,
    reference_answer="The wrapper replaces the function; functools.wraps copies its metadata.",
    key_points=["the wrapper replaces the function", "functools.wraps copies metadata"],
)


def _settings(server: FakeOpenAIServer) -> LLMSettings:
    return LLMSettings(
        engine="openai", base_url=server.base_url, model="fake-model", backoff_seconds=0
    )


async def test_the_question_generator_asks_for_its_schema_with_the_spec_inputs(
    fake_openai: FakeOpenAIServer,
) -> None:
    fake_openai.enqueue(GENERATED)
    model = build_model(_settings(fake_openai), offline=offline_engine())
    try:
        question = await agents.generate_question(model, get_domain("python"), REQUEST)
    finally:
        await aclose_model(model)
    assert question == GENERATED
    [body] = fake_openai.requests
    assert body["response_format"]["json_schema"]["name"] == "QuestionOutput"
    prompt = body["messages"][1]["content"]
    for expected in (
        "Closures and decorators",
        '"analyze"',
        "senior",
        "conceptual",
        "What is a closure?",
    ):
        assert expected in prompt


async def test_server_errors_are_retried_then_the_offline_bank_answers(
    fake_openai: FakeOpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    fake_openai.enqueue(Fault.status(500), Fault.status(502), Fault.status(503))
    model = build_model(_settings(fake_openai), offline=offline_engine())
    caplog.set_level(logging.INFO, logger="tutorgraph.llm")
    try:
        question = await agents.generate_question(model, get_domain("python"), REQUEST)
    finally:
        await aclose_model(model)
    assert len(fake_openai.requests) == 3  # max_attempts
    assert question.source_id is not None  # drawn from the knowledge-base bank
    assert question.bloom_level == "analyze" and question.question_type != "conceptual"
    calls = [r for r in caplog.records if getattr(r, "agent", None) == agents.QUESTION_AGENT]
    assert [getattr(r, "outcome", None) for r in calls][:3] == ["retry", "retry", "error"]
    assert all(getattr(r, "schema", None) == "QuestionOutput" for r in calls[:3])


async def test_the_evaluator_grades_first_then_asks_for_level_and_evidence() -> None:
    model = ScriptedEngine()
    model.enqueue_chat(*['10.0 6.0\n{"reasoning": "partly right"}'] * 3)  # 3 judge runs
    model.enqueue_structured(
        EvaluationOutput(confidence=0.6, bloom_level=BloomLevel.APPLY, evidence=["e"] * 9)
    )
    topic = get_domain("python").topic("decorators-closures")
    output = await agents.evaluate_response(
        model, Evaluator(model), topic, GENERATED, "It replaces the function."
    )
    assert output.confidence == 0.6 and output.bloom_level == "apply"
    assert len(output.evidence) == agents.MAX_EVIDENCE
    *judges, evaluation = model.requests
    assert [r.agent for r in judges] == ["judge"] * 3  # the median of 3 runs
    assert evaluation.agent == agents.EVALUATION_AGENT
    assert evaluation.inputs.verdict.score == pytest.approx(0.6)
    prompt = evaluation.messages[1].content or ""
    assert "score 0.60" in prompt and "demonstrated share 0.60" in prompt


@pytest.mark.parametrize(
    ("correctness", "completeness", "confidence", "level"),
    [(1.0, 0.95, 0.95, "analyze"), (1.0, 0.7, 0.7, "analyze"), (0.92, 0.69, 0.69, "apply"),
     (0.8, 0.4, 0.4, "apply"), (0.39, 0.5, 0.39, "remember"), (0.4, 1.0, 0.4, "apply")],
)  # fmt: skip
async def test_the_offline_evaluator_rule(
    correctness: float, completeness: float, confidence: float, level: str
) -> None:
    rubric = RubricScores(correctness=correctness, completeness=completeness, clarity=1.0)
    verdict = Verdict(score=rubric.score, rubric=rubric, missing_key_points=["a", "b", "c"])
    output = await offline_engine().structured(
        EvaluationOutput, [], agent=agents.EVALUATION_AGENT, inputs=_evaluation_request(verdict)
    )
    assert (output.confidence, output.bloom_level) == (pytest.approx(confidence), level)
    assert output.evidence[0].startswith(f"scored {rubric.score:.2f}")
    assert output.evidence[1:] == ["missed: a", "missed: b"]


async def test_a_correct_but_partial_answer_is_partial_understanding() -> None:
    """The assessment wants what is known, not only what is right: the first sentence of a
    reference answer whose question asks for three key points (a fourth is supporting) shows a
    third of what was asked."""
    topic = get_domain("python").topic("decorators-closures")
    bank_question = next(q for q in topic.questions if q.id == "decorators-closures-evaluate-1")
    question = as_question_output(bank_question)
    evaluator = Evaluator(offline_engine())
    third = bank_question.reference_answer.split(". ")[0] + "."
    partial, _ = await evaluator.verdict(agents.grading_request(topic, question, third))
    assert partial.rubric.completeness == pytest.approx(1 / 3, abs=1e-3) and partial.score < 0.8
    output = await offline_engine().structured(
        EvaluationOutput, [], agent=agents.EVALUATION_AGENT, inputs=_evaluation_request(partial)
    )
    assert output.confidence == pytest.approx(1 / 3, abs=1e-3)  # the share explained
    assert output.bloom_level < BloomLevel.ANALYZE  # below the level _evaluation_request asks
    full, _ = await evaluator.verdict(
        agents.grading_request(topic, question, bank_question.reference_answer)
    )
    assert agents.demonstrated_understanding(full) > 0.9


def _evaluation_request(verdict: Verdict) -> agents.EvaluationRequest:
    return agents.EvaluationRequest(
        question_text=GENERATED.text,
        question_type=GENERATED.question_type,
        bloom_level=GENERATED.bloom_level,
        reference_answer=GENERATED.reference_answer,
        answer="x y z",
        verdict=verdict,
    )


def _all_wrong(kb: KnowledgeBase) -> KnowledgeGraphState:
    """Every junior topic assessed at 0."""
    graph = empty_graph()
    for topic in kb.agenda("junior"):
        graph["nodes"][topic] = {
            "topic_id": topic,
            "confidence": 0.0,
            "bloom_level": "remember",
            "evidence": [],
            "prerequisites": [],
        }
    return graph


async def test_missing_model_recommendations_are_filled_offline() -> None:
    kb = get_domain("machine-learning")
    graph = _all_wrong(kb)
    gaps = analyze_gaps(kb, "junior", graph)
    model = ScriptedEngine()
    model.enqueue_structured(
        GapEnrichmentOutput(
            summary="Start with the fundamentals.",
            recommendations=[
                GapRecommendationOutput(topic_id="linear-models", recommendation="Fit OLS by hand.")
            ],
        )
    )
    enriched = await agents.enrich_gaps(model, kb, "junior", gaps, graph)
    assert enriched["summary"] == "Start with the fundamentals."
    by_topic = {g["topic_id"]: g["recommendation"] for g in enriched["gaps"]}
    assert by_topic["linear-models"] == "Fit OLS by hand."
    assert "Supervised learning fundamentals" in by_topic["ml-fundamentals"]  # offline fill
    assert enriched["overall_readiness"] == 0


async def test_a_model_plan_out_of_prerequisite_order_is_replaced_by_the_offline_plan() -> None:
    kb = get_domain("machine-learning")
    gaps = analyze_gaps(kb, "junior", _all_wrong(kb))
    request = PlanRequest(
        domain=kb.name,
        target_level="junior",
        overall_readiness=0,
        gaps=[{**g, "priority": "critical", "recommendation": ""} for g in gaps],
    )
    good = offline_plan(request)
    backwards = PlanOutput.model_validate(
        {**good.model_dump(), "phases": list(reversed(good.model_dump()["phases"]))}
    )
    model = ScriptedEngine()
    model.enqueue_structured(backwards, good.model_copy(update={"summary": "model plan"}))
    assert await agents.generate_plan(model, kb, request) == good
    assert (await agents.generate_plan(model, kb, request)).summary == "model plan"
