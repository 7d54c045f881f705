"""The tutor coordinator graph: welcome, intake, explainer, gap_analysis, quiz, grade_quiz,
summarize and end_turn, one pass per learner turn, on the durable checkpointer."""

from tutorgraph.tutor.session_graph.graph import (
    Graph,
    build_session_graph,
    run_turn,
    session_state,
)
from tutorgraph.tutor.session_graph.state import InputKind, SessionState

__all__ = ["Graph", "InputKind", "SessionState", "build_session_graph", "run_turn", "session_state"]
