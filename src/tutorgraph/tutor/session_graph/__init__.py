"""The tutor coordinator graph: welcome, intake, explainer, gap_analysis, quiz, grade_quiz,
summarize and end_turn, one pass per learner turn, on the durable checkpointer."""

from tutorgraph.tutor.session_graph.graph import build_session_graph, run_turn
from tutorgraph.tutor.session_graph.state import SessionState

__all__ = ["SessionState", "build_session_graph", "run_turn"]
