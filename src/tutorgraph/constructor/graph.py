"""Assembly of the constructor's coordinator graph: the spec's diagram plus the `review` gate
(an interrupt) after structure and quiz generation, one line per node and edge."""

from __future__ import annotations

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, StateGraph
from langgraph.graph.state import CompiledStateGraph

from tutorgraph.constructor import coordinator as c
from tutorgraph.constructor.context import ConstructorContext
from tutorgraph.constructor.router import (
    after_review,
    route_by_phase,
    route_subagent,
    should_continue,
)
from tutorgraph.constructor.state import ConstructorState

ConstructorGraph = CompiledStateGraph[
    ConstructorState, ConstructorContext, ConstructorState, ConstructorState
]


def build_graph() -> StateGraph[
    ConstructorState, ConstructorContext, ConstructorState, ConstructorState
]:
    graph = StateGraph(ConstructorState, context_schema=ConstructorContext)
    graph.add_node("welcome", c.welcome)
    graph.add_node("intake", c.intake)
    graph.add_node("route_action", c.route_action)
    graph.add_node("dispatch", c.dispatch)
    graph.add_node("ingestion", c.ingestion)
    graph.add_node("structure", c.structure)
    graph.add_node("quiz", c.quiz)
    graph.add_node("validation", c.validation)
    graph.add_node("review", c.review)
    graph.add_node("respond", c.respond)
    graph.add_node("finalize", c.finalize)
    graph.add_node("end_turn", c.end_turn)

    graph.set_entry_point("welcome")
    graph.add_edge("welcome", "intake")
    graph.add_edge("intake", "route_action")
    graph.add_conditional_edges("route_action", route_by_phase)
    graph.add_conditional_edges("dispatch", route_subagent)
    graph.add_edge("ingestion", "respond")
    graph.add_edge("structure", "review")
    graph.add_edge("quiz", "review")
    graph.add_conditional_edges("review", after_review)
    graph.add_edge("validation", "respond")
    graph.add_conditional_edges("respond", should_continue)
    graph.add_edge("finalize", END)
    graph.add_edge("end_turn", END)
    return graph


def compile_graph(checkpointer: BaseCheckpointSaver[str] | None) -> ConstructorGraph:
    return build_graph().compile(checkpointer=checkpointer, name="constructor")
