"""Assembly of the four sub-agent pipelines (spec names), one line per node and edge. They run
inside the coordinator's wrapper nodes, which persist their results in the session's state."""

from __future__ import annotations

from typing import Literal

from langgraph.graph import END, START, StateGraph

from tutorgraph.constructor import pipelines as p
from tutorgraph.constructor.context import ConstructorContext


def _ingestion() -> StateGraph[
    p.IngestionState, ConstructorContext, p.IngestionState, p.IngestionState
]:
    graph = StateGraph(p.IngestionState, context_schema=ConstructorContext)
    graph.add_node("detect_types", p.detect_types)
    graph.add_node("extract", p.extract)
    graph.add_node("chunk", p.chunk)
    graph.add_node("store", p.store)
    graph.add_node("report", p.report)
    graph.add_edge(START, "detect_types")
    graph.add_edge("detect_types", "extract")
    graph.add_edge("extract", "chunk")
    graph.add_edge("chunk", "store")
    graph.add_edge("store", "report")
    graph.add_edge("report", END)
    return graph


def _structure() -> StateGraph[
    p.StructureState, ConstructorContext, p.StructureState, p.StructureState
]:
    graph = StateGraph(p.StructureState, context_schema=ConstructorContext)
    graph.add_node("analyze_content", p.analyze_content)
    graph.add_node("detect_topics", p.detect_topics)
    graph.add_node("group_into_units", p.group_into_units)
    graph.add_node("identify_prerequisites", p.identify_prerequisites)
    graph.add_node("build_hierarchy", p.build_hierarchy)
    graph.add_node("validate_structure", p.validate_structure)
    graph.add_node("suggest_organization", p.suggest_organization)
    graph.add_node("finalize_structure", p.finalize_structure)
    graph.add_edge(START, "analyze_content")
    graph.add_edge("analyze_content", "detect_topics")
    graph.add_edge("detect_topics", "group_into_units")
    graph.add_edge("group_into_units", "identify_prerequisites")
    graph.add_edge("identify_prerequisites", "build_hierarchy")
    graph.add_edge("build_hierarchy", "validate_structure")
    graph.add_edge("validate_structure", "suggest_organization")
    graph.add_edge("suggest_organization", "finalize_structure")
    graph.add_edge("finalize_structure", END)
    return graph


def route_next_topic(state: p.QuizState) -> Literal["generate_questions", "finalize_quiz_bank"]:
    return "generate_questions" if state.get("current") else "finalize_quiz_bank"


def route_completion(state: p.QuizState) -> Literal["select_topic", "finalize_quiz_bank"]:
    return "select_topic" if state.get("queue") else "finalize_quiz_bank"


def _quiz() -> StateGraph[p.QuizState, ConstructorContext, p.QuizState, p.QuizState]:
    graph = StateGraph(p.QuizState, context_schema=ConstructorContext)
    graph.add_node("plan_quiz_generation", p.plan_quiz_generation)
    graph.add_node("select_topic", p.select_topic)
    graph.add_node("generate_questions", p.generate_questions)
    graph.add_node("validate_questions", p.validate_questions)
    graph.add_node("create_rubrics", p.create_rubrics)
    graph.add_node("check_completion", p.check_completion)
    graph.add_node("finalize_quiz_bank", p.finalize_quiz_bank)
    graph.add_edge(START, "plan_quiz_generation")
    graph.add_edge("plan_quiz_generation", "select_topic")
    graph.add_conditional_edges("select_topic", route_next_topic)
    graph.add_edge("generate_questions", "validate_questions")
    graph.add_edge("validate_questions", "create_rubrics")
    graph.add_edge("create_rubrics", "check_completion")
    graph.add_conditional_edges("check_completion", route_completion)
    graph.add_edge("finalize_quiz_bank", END)
    return graph


def _validation() -> StateGraph[
    p.ValidationState, ConstructorContext, p.ValidationState, p.ValidationState
]:
    graph = StateGraph(p.ValidationState, context_schema=ConstructorContext)
    graph.add_node("validate_content", p.validate_content)
    graph.add_node("validate_structure", p.validate_course_structure)
    graph.add_node("validate_quiz", p.validate_quiz)
    graph.add_node("calculate_readiness", p.calculate_readiness)
    graph.add_node("generate_report", p.generate_report)
    graph.add_edge(START, "validate_content")
    graph.add_edge("validate_content", "validate_structure")
    graph.add_edge("validate_structure", "validate_quiz")
    graph.add_edge("validate_quiz", "calculate_readiness")
    graph.add_edge("calculate_readiness", "generate_report")
    graph.add_edge("generate_report", END)
    return graph


# Compiled once; no checkpointer of their own (the coordinator's wrapper node is the unit that
# is checkpointed, and re-running a pipeline is idempotent).
INGESTION = _ingestion().compile(checkpointer=False, name="ingestion")
STRUCTURE = _structure().compile(checkpointer=False, name="structure")
QUIZ = _quiz().compile(checkpointer=False, name="quiz_generation")
VALIDATION = _validation().compile(checkpointer=False, name="validation")
