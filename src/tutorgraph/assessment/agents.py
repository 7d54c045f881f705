"""The assessment's four agents. Each asks the model for its schema with `model.structured`
(an OpenAI-compatible server answers from the prompt; the offline engine answers from `inputs`
with the implementation registered by `register_offline_assessment`, which is also the fallback
when a model call fails).

Evaluator rule (offline, and what the LLM evaluator is asked to start from): confidence is the
share of the expected understanding the answer demonstrated, `demonstrated_understanding`: the
lower of the grading engine's correctness and its completeness (the share of the question's key
points the answer covers): an answer shows no more than it covered, and no more than was right.
The grading score is not used as is: it also credits clarity, and a judge may call a correct but
partial answer 0.8, which would tell the router a half-known topic is mastered. The
demonstrated Bloom level is the question's level when the confidence is >= 0.7, one level lower
when it is in [0.4, 0.7), and `remember` below 0.4; the evidence is the score, the key points
covered and missed, and any misconception shown."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

from tutorgraph.assessment import bank, gaps, planning, prompts
from tutorgraph.assessment.schemas import (
    EvaluationOutput,
    EvaluationRequest,
    GapEnrichmentOutput,
    GapEnrichmentRequest,
    GapRecommendationOutput,
    PlanOutput,
    PlanRequest,
    QuestionOutput,
    QuestionRequest,
)
from tutorgraph.assessment.state import EnrichedGapAnalysis, GapNode, KnowledgeGraphState
from tutorgraph.errors import StructuredOutputError
from tutorgraph.grading.types import GradingRequest, KnownMisconception, Verdict
from tutorgraph.knowledge import BloomLevel, KnowledgeBase, TargetLevel, Topic, get_domain
from tutorgraph.knowledge.grading_context import enrich_request
from tutorgraph.learner_model.evaluator import Evaluator
from tutorgraph.llm import Message, Model, OfflineEngine

log = logging.getLogger(__name__)

InputT = TypeVar("InputT", bound=BaseModel)

QUESTION_AGENT = "question_generator"
EVALUATION_AGENT = "response_evaluator"
GAP_AGENT = "gap_enricher"
PLAN_AGENT = "plan_generator"

DEMONSTRATED_FULL = 0.7
DEMONSTRATED_PARTIAL = 0.4
MAX_EVIDENCE = 6


def _bullets(items: Sequence[str]) -> str:
    return "\n".join(f"- {item}" for item in items) or "- (none)"


async def generate_question(
    model: Model, kb: KnowledgeBase, request: QuestionRequest
) -> QuestionOutput:
    topic = kb.topic(request.topic_id)
    user = prompts.QUESTION_USER.format(
        domain=kb.domain.title,
        topic_title=topic.title,
        topic_id=topic.id,
        summary=topic.summary,
        key_points=_bullets(topic.key_points),
        probe_kind=prompts.QUESTION_PROBE if request.probe else prompts.QUESTION_FRESH,
        bloom_level=request.bloom_level.value,
        target_level=request.target_level,
        count=request.questions_on_topic,
        used_types=", ".join(request.used_question_types) or "none",
        recent=_bullets(request.recent_questions),
    )
    messages = [Message.system(prompts.QUESTION_SYSTEM), Message.user(user)]
    return await model.structured(QuestionOutput, messages, agent=QUESTION_AGENT, inputs=request)


def grading_request(topic: Topic, question: QuestionOutput, answer: str) -> GradingRequest:
    return GradingRequest(
        question=question.text,
        reference_answer=question.reference_answer,
        answer=answer,
        rubric=list(question.key_points),
        misconceptions=[
            KnownMisconception(id=m.id, description=m.description, cues=list(m.cues))
            for m in topic.misconceptions
        ],
        concept=topic.id,
    )


async def evaluate_response(
    model: Model, evaluator: Evaluator, topic: Topic, question: QuestionOutput, answer: str
) -> EvaluationOutput:
    """Grade with the grading engine, then ask the evaluator agent for level and evidence."""
    output, _ = await evaluate_answer(model, evaluator, topic, question, answer)
    return output


async def evaluate_answer(
    model: Model, evaluator: Evaluator, topic: Topic, question: QuestionOutput, answer: str
) -> tuple[EvaluationOutput, Verdict]:
    """`evaluate_response`, and the grading engine's verdict on the answer (its misconception
    ids feed the learner's misconception ledger; its key points and checks the report's
    feedback on the answer)."""
    verdict, _warnings = await evaluator.verdict(  # the evaluator logs its own warnings
        enrich_request(grading_request(topic, question, answer))
    )
    request = EvaluationRequest(
        question_text=question.text,
        question_type=question.question_type,
        bloom_level=question.bloom_level,
        reference_answer=question.reference_answer,
        answer=answer,
        verdict=verdict,
        misconception_descriptions={m.id: m.description for m in topic.misconceptions},
    )
    names = request.misconception_descriptions
    user = prompts.EVALUATION_USER.format(
        question_type=question.question_type,
        bloom_level=question.bloom_level.value,
        question=question.text,
        reference=question.reference_answer,
        answer=answer,
        score=verdict.score,
        correctness=verdict.rubric.correctness,
        completeness=verdict.rubric.completeness,
        demonstrated=demonstrated_understanding(verdict),
        covered="; ".join(verdict.covered_key_points) or "none",
        missing="; ".join(verdict.missing_key_points) or "none",
        misconceptions="; ".join(names.get(m, m) for m in verdict.misconceptions) or "none",
    )
    messages = [Message.system(prompts.EVALUATION_SYSTEM), Message.user(user)]
    output = await model.structured(
        EvaluationOutput, messages, agent=EVALUATION_AGENT, inputs=request
    )
    trimmed = output.model_copy(update={"evidence": output.evidence[:MAX_EVIDENCE]})
    return trimmed, verdict


def demonstrated_understanding(verdict: Verdict) -> float:
    """min(correctness, completeness): no more than was right, no more than was covered."""
    return round(min(verdict.rubric.correctness, verdict.rubric.completeness), 4)


def offline_evaluation(request: EvaluationRequest) -> EvaluationOutput:
    """The module docstring's rule."""
    verdict, level = request.verdict, request.bloom_level
    confidence = demonstrated_understanding(verdict)
    if confidence >= DEMONSTRATED_FULL:
        shown = level
    elif confidence >= DEMONSTRATED_PARTIAL:
        shown = list(BloomLevel)[max(level.rank - 1, 0)]
    else:
        shown = BloomLevel.REMEMBER
    evidence = [
        f"scored {verdict.score:.2f} on a {request.question_type} question at the {level.value} "
        f"level; showed {confidence:.0%} of what it asked"
    ]
    evidence += [f"explained: {point}" for point in verdict.covered_key_points[:2]]
    evidence += [f"missed: {point}" for point in verdict.missing_key_points[:2]]
    evidence += [
        f"misconception: {request.misconception_descriptions.get(m, m)}"
        for m in verdict.misconceptions[:1]
    ]
    return EvaluationOutput(confidence=confidence, bloom_level=shown, evidence=evidence)


async def enrich_gaps(
    model: Model,
    kb: KnowledgeBase,
    target_level: TargetLevel,
    gap_nodes: list[GapNode],
    graph: KnowledgeGraphState,
) -> EnrichedGapAnalysis:
    readiness = gaps.overall_readiness(kb.target_graph(target_level), graph)
    if not gap_nodes:
        summary = gaps.offline_summary(gap_nodes, readiness, target_level=target_level)
        return gaps.enrich([], recommendations={}, readiness=readiness, summary=summary)
    request = GapEnrichmentRequest(
        domain=kb.name, target_level=target_level, overall_readiness=readiness, gaps=gap_nodes
    )
    lines = []
    for gap in gap_nodes:
        topic = kb.topic(gap["topic_id"])
        resources = "; ".join(f"{r.title} ({r.type})" for r in topic.resources[:4])
        lines.append(
            f"- {gap['topic_id']}, {gap['title']}: {gap['current_confidence']:.2f} -> "
            f"{gap['target_confidence']:.2f}; key points: {'; '.join(topic.key_points[:3])}; "
            f"resources: {resources or 'none'}"
        )
    user = prompts.GAP_ENRICHMENT_USER.format(
        domain=kb.domain.title,
        target_level=target_level,
        readiness=readiness,
        gaps="\n".join(lines),
    )
    messages = [Message.system(prompts.GAP_ENRICHMENT_SYSTEM), Message.user(user)]
    output = await model.structured(GapEnrichmentOutput, messages, agent=GAP_AGENT, inputs=request)
    recommendations = {r.topic_id: r.recommendation.strip() for r in output.recommendations}
    for gap in gap_nodes:
        if not recommendations.get(gap["topic_id"]):
            log.info("no recommendation for gap %s; using the offline one", gap["topic_id"])
            recommendations[gap["topic_id"]] = gaps.offline_recommendation(
                kb.topic(gap["topic_id"]), gap
            )
    summary = output.summary.strip() or gaps.offline_summary(
        gap_nodes, readiness, target_level=target_level
    )
    return gaps.enrich(
        gap_nodes, recommendations=recommendations, readiness=readiness, summary=summary
    )


def offline_gap_enrichment(request: GapEnrichmentRequest) -> GapEnrichmentOutput:
    kb = get_domain(request.domain)
    return GapEnrichmentOutput(
        summary=gaps.offline_summary(
            request.gaps, request.overall_readiness, target_level=request.target_level
        ),
        recommendations=[
            GapRecommendationOutput(
                topic_id=gap["topic_id"],
                recommendation=gaps.offline_recommendation(kb.topic(gap["topic_id"]), gap),
            )
            for gap in request.gaps
        ],
    )


async def generate_plan(model: Model, kb: KnowledgeBase, request: PlanRequest) -> PlanOutput:
    lines = []
    for gap in sorted(request.gaps, key=lambda g: kb.order.index(g["topic_id"])):
        topic = kb.topic(gap["topic_id"])
        resources = "; ".join(f"{r.title} [{r.type}] {r.url}" for r in topic.resources)
        lines.append(
            f"- {gap['topic_id']}, {gap['title']}: {gap['priority']}, gap {gap['gap']:.2f}, "
            f"prerequisites: {', '.join(gap['prerequisites']) or 'none'}; resources: {resources}"
        )
    user = prompts.PLAN_USER.format(
        domain=kb.domain.title,
        target_level=request.target_level,
        readiness=request.overall_readiness,
        gaps="\n".join(lines) or "- (no gaps: plan consolidation and stretch goals)",
    )
    messages = [Message.system(prompts.PLAN_SYSTEM), Message.user(user)]
    plan = await model.structured(PlanOutput, messages, agent=PLAN_AGENT, inputs=request)
    if not planning.plan_respects_prerequisites(kb, plan):
        log.warning("the model's plan puts a topic before its prerequisite; using the offline plan")
        return planning.offline_plan(request)
    return plan


def _inputs(inputs: Any, kind: type[InputT], agent: str) -> InputT:
    if not isinstance(inputs, kind):
        raise StructuredOutputError(f"the offline {agent} needs {kind.__name__} as inputs")
    return inputs


def register_offline_assessment(engine: OfflineEngine) -> None:
    """The offline implementations of the four assessment agents."""

    def question(schema: type[BaseModel], messages: Sequence[Message], inputs: Any) -> BaseModel:
        request = _inputs(inputs, QuestionRequest, QUESTION_AGENT)
        return bank.draw_question(get_domain(request.domain), request)

    def evaluation(schema: type[BaseModel], messages: Sequence[Message], inputs: Any) -> BaseModel:
        return offline_evaluation(_inputs(inputs, EvaluationRequest, EVALUATION_AGENT))

    def enrichment(schema: type[BaseModel], messages: Sequence[Message], inputs: Any) -> BaseModel:
        return offline_gap_enrichment(_inputs(inputs, GapEnrichmentRequest, GAP_AGENT))

    def plan(schema: type[BaseModel], messages: Sequence[Message], inputs: Any) -> BaseModel:
        return planning.offline_plan(_inputs(inputs, PlanRequest, PLAN_AGENT))

    engine.register_structured(QUESTION_AGENT, question)
    engine.register_structured(EVALUATION_AGENT, evaluation)
    engine.register_structured(GAP_AGENT, enrichment)
    engine.register_structured(PLAN_AGENT, plan)
