"""The coordinator graph's wiring and one-turn runner."""

from __future__ import annotations

from typing import Any, cast

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, StateGraph
from langgraph.graph.state import CompiledStateGraph

from tutorgraph import observability
from tutorgraph.store.checkpoints import DURABILITY
from tutorgraph.store.db import Database
from tutorgraph.tutor.session_graph import nodes
from tutorgraph.tutor.session_graph.router import (
    route_after_explainer,
    route_after_quiz,
    route_by_action,
)
from tutorgraph.tutor.session_graph.state import InputKind, SessionState

# a turn visits at most: welcome, intake, grade_quiz (or explainer), quiz, intake, end_turn
# (plus slack)
RECURSION_LIMIT = 16

Graph = CompiledStateGraph[SessionState, Any, SessionState, SessionState]


def build_session_graph(checkpointer: BaseCheckpointSaver[Any] | None) -> Graph:
    builder: StateGraph[SessionState, Any, SessionState, SessionState] = StateGraph(SessionState)
    builder.add_node("welcome", nodes.welcome)
    builder.add_node("intake", nodes.intake)
    builder.add_node("explainer", nodes.explainer)
    builder.add_node("gap_analysis", nodes.gap_analysis)
    builder.add_node("quiz", nodes.quiz)
    builder.add_node("grade_quiz", nodes.grade_quiz)
    builder.add_node("summarize", nodes.summarize)
    builder.add_node("end_turn", nodes.end_turn)
    builder.set_entry_point("welcome")
    builder.add_edge("welcome", "intake")
    builder.add_conditional_edges("intake", route_by_action)
    builder.add_conditional_edges("explainer", route_after_explainer)
    builder.add_edge("gap_analysis", "intake")
    builder.add_conditional_edges("quiz", route_after_quiz)
    builder.add_conditional_edges("grade_quiz", route_after_quiz)
    builder.add_edge("summarize", END)
    builder.add_edge("end_turn", END)
    return builder.compile(checkpointer=checkpointer)


def thread_id(session_id: str) -> str:
    """The checkpointer thread of a tutor session (a `TutorSession` id)."""
    return f"tutor-session:{session_id}"


async def session_state(graph: Graph, session_id: str) -> SessionState:
    """The session's checkpointed state (empty before its first turn)."""
    snapshot = await graph.aget_state({"configurable": {"thread_id": thread_id(session_id)}})
    return cast(SessionState, snapshot.values or {})


async def run_turn(
    graph: Graph,
    *,
    session_id: str,
    database: Database,
    user_id: int,
    lesson_id: int,
    text: str | None,
    kind: InputKind = "message",
    explain: nodes.Explain | None = None,
) -> SessionState:
    """One pass of the graph for one learner input (None: just the welcome)."""
    config: Any = observability.run_config(
        "tutor_session",
        thread_id(session_id),
        tags=["tutor"],
        metadata={"session_id": session_id, "lesson_id": lesson_id},
    )
    config["configurable"].update({"database": database, "explain": explain})
    config["recursion_limit"] = RECURSION_LIMIT
    update: SessionState = {
        "lesson_id": lesson_id,
        "user_id": user_id,
        "pending_input": text,
        "pending_kind": kind,
    }
    snapshot = await graph.aget_state(config)
    if snapshot.values.get("ended"):
        update["ended"] = False  # a new input after a summary starts the session again
        update["graded_cards"] = []
    result = await graph.ainvoke(update, config, durability=DURABILITY)
    return cast(SessionState, result)
