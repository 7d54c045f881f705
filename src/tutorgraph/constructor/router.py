"""The coordinator's routing: pure functions of state (spec: route_by_phase, route_subagent,
should_continue) and the deterministic action choice `route_action` falls back to."""

from __future__ import annotations

import re
from typing import Literal

from tutorgraph.constructor.state import Action, ConstructorState, Phase

TURN_ENDING: frozenset[Action] = frozenset({"collect_info", "request_files", "respond"})
SUBAGENT_OF: dict[Action, str] = {
    "ingest": "ingestion",
    "build_structure": "structure",
    "generate_quiz": "quiz",
    "validate": "validation",
}

ALLOWED: dict[Phase, tuple[Action, ...]] = {
    "collecting": ("collect_info", "request_files", "respond", "ingest"),
    "ingested": ("build_structure", "ingest", "collect_info", "request_files", "respond"),
    "structure_review": ("respond",),
    "structure_approved": ("generate_quiz", "build_structure", "ingest", "respond"),
    "quiz_review": ("respond",),
    "quiz_approved": ("validate", "generate_quiz", "build_structure", "ingest", "respond"),
    "validated": ("publish", "validate", "generate_quiz", "build_structure", "ingest", "respond"),
    "published": ("publish", "validate", "generate_quiz", "build_structure", "ingest", "respond"),
}

_INTENTS: tuple[tuple[Action, re.Pattern[str]], ...] = (
    ("publish", re.compile(r"\bpublish|\bgo live|\brelease\b", re.I)),
    ("validate", re.compile(r"\bvalidat|\bready\b|\breadiness|\bcheck\b", re.I)),
    ("generate_quiz", re.compile(r"\bquiz|\bquestions?\b|\bquestion bank|\bassessment", re.I)),
    ("build_structure", re.compile(r"\bstructur|\borgani[sz]|\boutline|\btopics?\b|\bbuild", re.I)),
    ("ingest", re.compile(r"\bingest|\bread (the|my) files|\bprocess\b", re.I)),
    ("request_files", re.compile(r"\bupload|\bfiles?\b|\bmaterial", re.I)),
)
_AFFIRMATIVE = re.compile(
    r"^\s*(yes|yep|ok(ay)?|sure|go( ahead)?|continue|next|do it|please)\b", re.I
)


_CONFIRMED = re.compile(r"\b(anyway|regardless|as it is|confirm(ed)?|even so|all the same)\b", re.I)


def confirms_publishing(message: str) -> bool:
    """The author's message confirms publishing a course below the bar ("publish anyway")."""
    return bool(_CONFIRMED.search(message))


def next_step(phase: Phase) -> Action | None:
    """The action that moves a phase forward when the author says "go on"."""
    return {
        "ingested": "build_structure",
        "structure_approved": "generate_quiz",
        "quiz_approved": "validate",
    }.get(phase)  # type: ignore[return-value]


def fallback_action(state: ConstructorState, message: str) -> Action:
    """The deterministic action for the author's message in the current phase: new uploads are
    read first; a named intent is honoured when the phase allows it; "yes / go on" takes the
    phase's next step; anything else gets a conversational reply."""
    phase = state.get("phase", "collecting")
    allowed = ALLOWED[phase]
    if state.get("pending_uploads") and "ingest" in allowed:
        return "ingest"
    for action, pattern in _INTENTS:
        if pattern.search(message) and action in allowed:
            return action
    step = next_step(phase)
    if step and (_AFFIRMATIVE.match(message) or not message.strip()):
        return step
    if phase == "collecting":
        return "request_files"
    return "respond"


def route_by_phase(state: ConstructorState) -> Literal["end_turn", "dispatch", "finalize"]:
    action = state.get("action", "respond")
    if action in TURN_ENDING:
        return "end_turn"
    if action == "publish":
        return "finalize"
    return "dispatch"


def route_subagent(
    state: ConstructorState,
) -> Literal["respond", "ingestion", "structure", "quiz", "validation"]:
    target = SUBAGENT_OF.get(state.get("action", "respond"), "respond")
    return target  # type: ignore[return-value]


def should_continue(state: ConstructorState) -> Literal["end_turn", "__end__"]:
    """Every turn is one pass: respond always ends it (END only once published, when there is
    nothing left to do this turn)."""
    return "__end__" if state.get("phase") == "published" else "end_turn"


def after_review(state: ConstructorState) -> Literal["review", "respond", "validation"]:
    """The review gate loops until the author approves; an approved quiz bank is validated
    at once."""
    phase = state.get("phase")
    if phase in ("structure_review", "quiz_review"):
        return "review"
    if phase == "quiz_approved":
        return "validation"
    return "respond"
