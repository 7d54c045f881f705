"""Pure routing functions of the coordinator graph (table-tested)."""

from __future__ import annotations

import re
from typing import Literal

from tutorgraph.tutor.session_graph.state import Action, SessionState

_SUMMARY = re.compile(r"\b(summar(y|ise|ize)|wrap up|end (the )?session|that'?s all|bye)\b", re.I)
_QUIZ = re.compile(r"\b(quiz|test me|check my understanding|question me)\b", re.I)
_GAPS = re.compile(r"\b(gaps?|weak(est)?|what should i (review|study)|my progress)\b", re.I)
_EXPLAIN = re.compile(
    r"\b(explain|teach me|tell me (about|how|why)|walk me through|describe|go over|"
    r"what (is|are|does)|why|how (do|does|is|are|can))\b",
    re.I,
)


def classify(text: str) -> Action:
    if _SUMMARY.search(text):
        return "summarize"
    if _QUIZ.search(text) and not quiz_after(text):
        return "quiz"
    if _GAPS.search(text):
        return "gap_analysis"
    return "explain"


def quiz_after(text: str) -> bool:
    """An explanation asked for together with a quiz ("explain X, then quiz me"): the
    explainer answers first and hands over to the quiz in the same turn."""
    return bool(_QUIZ.search(text) and _EXPLAIN.search(text))


def action_for(state: SessionState) -> Action:
    """What intake decides for this turn. Without fresh input the turn ends (no self-loops);
    ending the session summarizes it."""
    if state.get("pending_kind") == "end":
        return "summarize"
    text = state.get("pending_input")
    if text is None or not text.strip():
        return "end_turn"
    if state.get("awaiting_quiz_answer"):
        if state.get("pending_kind") == "quiz_answer":
            return "quiz_answer"
        action = classify(text)
        # a typed reply while a question is open is an answer unless it clearly asks for more
        return action if action in ("summarize", "gap_analysis") else "quiz_answer"
    return classify(text)


ByAction = Literal["explainer", "gap_analysis", "quiz", "grade_quiz", "summarize", "end_turn"]

_TARGET: dict[Action, ByAction] = {
    "explain": "explainer",
    "gap_analysis": "gap_analysis",
    "quiz": "quiz",
    "quiz_answer": "grade_quiz",
    "summarize": "summarize",
    "end_turn": "end_turn",
}


def route_by_action(state: SessionState) -> ByAction:
    return _TARGET[state.get("next_action", "end_turn")]


def route_after_explainer(state: SessionState) -> Literal["quiz", "intake"]:
    """To the quiz when the learner asked for one after the explanation (`quiz_after`)."""
    return "quiz" if state.get("next_action") == "quiz" else "intake"


def route_after_quiz(state: SessionState) -> Literal["quiz", "intake"]:
    """Send the next question after a graded answer; otherwise back to intake (which ends the
    turn because the input has been consumed)."""
    if state.get("awaiting_quiz_answer"):
        return "intake"
    cards = state.get("current_quiz") or []
    if not state.get("quiz_completed") and state.get("quiz_position", 0) < len(cards) and cards:
        return "quiz"
    return "intake"
