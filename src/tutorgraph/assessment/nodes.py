"""The twelve nodes of the assessment graph. Each reads the state, asks its agent (through the
runtime context) when it needs one, and returns the keys it changes."""

from __future__ import annotations

import logging

from langgraph.runtime import Runtime
from langgraph.types import interrupt

from tutorgraph.assessment import agents, gaps
from tutorgraph.assessment.context import AssessmentContext
from tutorgraph.assessment.feedback import misconception_quotes
from tutorgraph.assessment.knowledge_map import empty_graph, merge_evaluation
from tutorgraph.assessment.router import max_total_questions, remaining_topics
from tutorgraph.assessment.schemas import PlanOutput, PlanRequest, QuestionOutput, QuestionRequest
from tutorgraph.assessment.state import (
    AskedQuestion,
    AssessmentState,
    AssessmentUpdate,
    EvaluationRecord,
    LearningPlan,
    QuestionRecord,
    ResponseRecord,
    interrupt_payload,
)
from tutorgraph.errors import InputError
from tutorgraph.knowledge import BloomLevel, get_domain, starting_bloom

log = logging.getLogger(__name__)

Ctx = Runtime[AssessmentContext]


# Phase 1: agenda


def build_agenda(state: AssessmentState) -> AssessmentUpdate:
    """The target level's topics in prerequisite order; the first one, at the starting level."""
    kb = get_domain(state["domain"])
    level = state["target_level"]
    agenda = kb.agenda(level)
    if not agenda:
        raise InputError(f"the {kb.name} domain has no topics for the {level} level")
    log.info("assessment agenda for %s/%s: %d topic(s)", kb.name, level, len(agenda))
    return {
        "agenda": agenda,
        "max_questions": max_total_questions(len(agenda)),
        "current_topic": agenda[0],
        "current_bloom": starting_bloom(level).value,
        "current_question": None,
        "pending_answer": "",
        "questions": [],
        "responses": [],
        "topic_questions": {},
        "evaluated_topics": [],
        "last_evaluation": None,
        "knowledge_graph": empty_graph(),
        "gap_analysis": [],
        "enriched_gap_analysis": None,
        "learning_plan": None,
    }


# Phase 2: the assessment loop


async def _ask(state: AssessmentState, runtime: Ctx, *, probe: bool) -> AssessmentUpdate:
    kb = get_domain(state["domain"])
    topic = state["current_topic"]
    on_topic = [q for q in state["questions"] if q["topic"] == topic]
    asked_ids = [q["id"] for q in state["questions"]]
    request = QuestionRequest(
        domain=state["domain"],
        topic_id=topic,
        bloom_level=BloomLevel(state["current_bloom"]),
        target_level=state["target_level"],
        questions_on_topic=state["topic_questions"].get(topic, 0),
        used_question_types=[q["question_type"] for q in on_topic],
        recent_questions=[q["text"] for q in state["questions"][-5:]],
        asked_question_ids=asked_ids,
        probe=probe,
    )
    output = await agents.generate_question(runtime.context.model, kb, request)
    question_id = output.source_id
    if not question_id or question_id in asked_ids:
        question_id = f"{topic}-q{len(asked_ids) + 1}"
    record: QuestionRecord = {
        "id": question_id,
        "topic": topic,
        "bloom_level": output.bloom_level.value,
        "question_type": output.question_type,
        "text": output.text,
        "reference_answer": output.reference_answer,
        "key_points": list(output.key_points),
        "probe": probe,
        "source": "model" if output.source_id is None else "knowledge_base",
    }
    asked: AskedQuestion = {
        "id": question_id,
        "topic": topic,
        "bloom_level": record["bloom_level"],
        "question_type": record["question_type"],
        "text": record["text"],
    }
    log.info(
        "assessment question %s on %s at %s (%s%s)",
        question_id,
        topic,
        record["bloom_level"],
        record["question_type"],
        ", probe" if probe else "",
    )
    return {
        "current_question": record,
        "questions": [*state["questions"], asked],
        "topic_questions": {**state["topic_questions"], topic: request.questions_on_topic + 1},
        "pending_answer": "",
    }


async def generate_question(state: AssessmentState, runtime: Ctx) -> AssessmentUpdate:
    return await _ask(state, runtime, probe=False)


def await_response(state: AssessmentState) -> AssessmentUpdate:
    """Stop until the learner answers; the answer is what the caller resumes with (or
    `{"finish": true}`, with or without an answer, to end the assessment now)."""
    return _resumed(interrupt(interrupt_payload(state)))


def _resumed(value: object) -> AssessmentUpdate:
    finish = False
    if isinstance(value, dict):
        finish = value.get("finish") is True
        value = value.get("answer", "")
    if not isinstance(value, str):
        raise InputError("an assessment is resumed with the answer text")
    return {"pending_answer": value, "finish_requested": finish}


async def evaluate_response(state: AssessmentState, runtime: Ctx) -> AssessmentUpdate:
    question = state["current_question"]
    if question is None:
        raise RuntimeError("evaluate_response reached without a question")
    topic = get_domain(state["domain"]).topic(question["topic"])
    output, verdict = await agents.evaluate_answer(
        runtime.context.model,
        runtime.context.evaluator,
        topic,
        QuestionOutput(
            text=question["text"],
            question_type=question["question_type"],
            bloom_level=BloomLevel(question["bloom_level"]),
            reference_answer=question["reference_answer"],
            key_points=question["key_points"],
        ),
        state["pending_answer"],
    )
    evaluation: EvaluationRecord = {
        "question_id": question["id"],
        "topic": topic.id,
        "confidence": round(output.confidence, 4),
        "bloom_level": output.bloom_level.value,
        "evidence": list(output.evidence),
    }
    response: ResponseRecord = {
        "question_id": question["id"],
        "topic": topic.id,
        "bloom_level": question["bloom_level"],
        "answer": state["pending_answer"],
        "confidence": evaluation["confidence"],
        "demonstrated_bloom": evaluation["bloom_level"],
        "misconceptions": list(verdict.misconceptions),
        "score": round(verdict.score, 4),
        "covered": list(verdict.covered_key_points),
        "missed": list(verdict.missing_key_points),
        "misconception_quotes": misconception_quotes(
            state["pending_answer"], topic.misconceptions, verdict.misconceptions
        ),
        "checks": verdict.checks.model_dump(mode="json") if verdict.checks else None,
    }
    log.info(
        "assessment answer to %s: confidence %.2f, demonstrated %s",
        question["id"],
        evaluation["confidence"],
        evaluation["bloom_level"],
    )
    return {"last_evaluation": evaluation, "responses": [*state["responses"], response]}


def update_graph(state: AssessmentState) -> AssessmentUpdate:
    evaluation = state["last_evaluation"]
    if evaluation is None:
        raise RuntimeError("update_graph reached without an evaluation")
    topic = get_domain(state["domain"]).topic(evaluation["topic"])
    agenda = set(state["agenda"])
    return {
        "knowledge_graph": merge_evaluation(
            state["knowledge_graph"],
            evaluation,
            prerequisites=[p for p in topic.prerequisites if p in agenda],
        )
    }


# Phase 3: routing targets


def handle_deeper(state: AssessmentState) -> AssessmentUpdate:
    """Same topic, one Bloom level up."""
    return {"current_bloom": BloomLevel(state["current_bloom"]).next().value}


async def probe_question(state: AssessmentState, runtime: Ctx) -> AssessmentUpdate:
    """A follow-up on the same topic at the same level."""
    return await _ask(state, runtime, probe=True)


def await_probe_response(state: AssessmentState) -> AssessmentUpdate:
    return _resumed(interrupt(interrupt_payload(state)))


def handle_pivot(state: AssessmentState) -> AssessmentUpdate:
    """Mark the topic evaluated; move to the first unevaluated agenda topic."""
    remaining = remaining_topics(state)
    if not remaining:
        raise RuntimeError("pivot with no topic left (the router concludes instead)")
    return {
        "evaluated_topics": [*state["evaluated_topics"], state["current_topic"]],
        "current_topic": remaining[0],
        "current_bloom": starting_bloom(state["target_level"]).value,
    }


# Conclusion


def analyze_gaps(state: AssessmentState) -> AssessmentUpdate:
    """Gaps of the topics with evidence. Finishing now leaves the question on screen without
    an answer: it is dropped from the questions asked (the report covers what was answered)."""
    answered = {response["question_id"] for response in state["responses"]}
    questions = [q for q in state["questions"] if q["id"] in answered]
    topic_questions: dict[str, int] = {}
    for question in questions:
        topic_questions[question["topic"]] = topic_questions.get(question["topic"], 0) + 1
    evaluated = list(state["evaluated_topics"])
    if state["current_topic"] in state["knowledge_graph"]["nodes"] and (
        state["current_topic"] not in evaluated
    ):
        evaluated.append(state["current_topic"])
    kb = get_domain(state["domain"])
    return {
        "questions": questions,
        "topic_questions": topic_questions,
        "evaluated_topics": evaluated,
        "current_question": None,
        "gap_analysis": gaps.analyze_gaps(kb, state["target_level"], state["knowledge_graph"]),
    }


async def enrich_gaps(state: AssessmentState, runtime: Ctx) -> AssessmentUpdate:
    kb = get_domain(state["domain"])
    enriched = await agents.enrich_gaps(
        runtime.context.model,
        kb,
        state["target_level"],
        state["gap_analysis"],
        state["knowledge_graph"],
    )
    return {"enriched_gap_analysis": enriched}


async def generate_plan(state: AssessmentState, runtime: Ctx) -> AssessmentUpdate:
    enriched = state["enriched_gap_analysis"]
    if enriched is None:
        raise RuntimeError("generate_plan reached without the enriched gap analysis")
    kb = get_domain(state["domain"])
    request = PlanRequest(
        domain=kb.name,
        target_level=state["target_level"],
        overall_readiness=enriched["overall_readiness"],
        gaps=enriched["gaps"],
    )
    plan = await agents.generate_plan(runtime.context.model, kb, request)
    return {"learning_plan": plan_state(plan)}


def plan_state(plan: PlanOutput) -> LearningPlan:
    return {
        "summary": plan.summary,
        "phases": [
            {
                "title": phase.title,
                "topics": list(phase.topics),
                "resources": [
                    {"title": r.title, "type": r.type, "url": r.url} for r in phase.resources
                ],
                "estimated_hours": phase.estimated_hours,
                "rationale": phase.rationale,
            }
            for phase in plan.phases
        ],
        "total_hours": plan.total_hours,
        "rationale": plan.rationale,
    }
