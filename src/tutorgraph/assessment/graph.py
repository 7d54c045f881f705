"""Assembly of the assessment graph: the spec's diagram, one line per node and edge."""

from __future__ import annotations

from collections.abc import Hashable

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from tutorgraph.assessment import nodes
from tutorgraph.assessment.context import AssessmentContext
from tutorgraph.assessment.router import route_after_answer, route_after_update
from tutorgraph.assessment.state import AssessmentInput, AssessmentState

AssessmentGraph = CompiledStateGraph[
    AssessmentState, AssessmentContext, AssessmentInput, AssessmentState
]


def build_graph() -> StateGraph[
    AssessmentState, AssessmentContext, AssessmentInput, AssessmentState
]:
    graph = StateGraph(
        AssessmentState, context_schema=AssessmentContext, input_schema=AssessmentInput
    )
    graph.add_node("build_agenda", nodes.build_agenda)
    graph.add_node("generate_question", nodes.generate_question)
    graph.add_node("await_response", nodes.await_response)
    graph.add_node("evaluate_response", nodes.evaluate_response)
    graph.add_node("update_graph", nodes.update_graph)
    graph.add_node("handle_deeper", nodes.handle_deeper)
    graph.add_node("probe_question", nodes.probe_question)
    graph.add_node("await_probe_response", nodes.await_probe_response)
    graph.add_node("handle_pivot", nodes.handle_pivot)
    graph.add_node("analyze_gaps", nodes.analyze_gaps)
    graph.add_node("enrich_gaps", nodes.enrich_gaps)
    graph.add_node("generate_plan", nodes.generate_plan)

    graph.add_edge(START, "build_agenda")
    graph.add_edge("build_agenda", "generate_question")
    graph.add_edge("generate_question", "await_response")
    # A waiting question is answered, or the learner finishes now (router.route_after_answer).
    after_answer: dict[Hashable, str] = {
        "evaluate": "evaluate_response",
        "conclude": "analyze_gaps",
    }
    graph.add_conditional_edges("await_response", route_after_answer, after_answer)
    graph.add_edge("evaluate_response", "update_graph")
    graph.add_conditional_edges(
        "update_graph",
        route_after_update,
        {
            "deeper": "handle_deeper",
            "probe": "probe_question",
            "pivot": "handle_pivot",
            "conclude": "analyze_gaps",
        },
    )
    graph.add_edge("handle_deeper", "generate_question")
    graph.add_edge("handle_pivot", "generate_question")
    graph.add_edge("probe_question", "await_probe_response")
    graph.add_conditional_edges("await_probe_response", route_after_answer, after_answer)
    graph.add_edge("analyze_gaps", "enrich_gaps")
    graph.add_edge("enrich_gaps", "generate_plan")
    graph.add_edge("generate_plan", END)
    return graph


def compile_graph(checkpointer: BaseCheckpointSaver[str]) -> AssessmentGraph:
    return build_graph().compile(checkpointer=checkpointer, name="assessment")
