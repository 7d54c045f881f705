"""`decide`, row by row of its table (router.py's docstring), on structured signals alone."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tutorgraph.interview.router import DecisionContext, decide

BASE = DecisionContext(
    turn_count=3,
    phase="exploration",
    last_node="question",
    questions_asked=3,
    max_questions=14,
    anchors_total=9,
    anchors_explored=3,
    resume_left=True,
    technical_due=2,
    technical_left=True,
    active_request=None,
    request_confidence=0.0,
    last_answer_quality=0.8,
    followups_in_a_row=0,
    sandbox_active=False,
)


@pytest.mark.parametrize(
    ("changes", "action"),
    [
        ({"last_node": "initialize"}, "greeting"),
        (
            {"last_node": "initialize", "active_request": "stop", "request_confidence": 0.9},
            "evaluation",
        ),
        ({"active_request": "stop", "request_confidence": 0.9}, "evaluation"),
        ({"active_request": "technical_assessment", "request_confidence": 0.9}, "question"),
        ({"active_request": "change_topic", "request_confidence": 0.9}, "transition"),
        ({"active_request": "clarify", "request_confidence": 0.9}, "followup"),
        ({"active_request": "continue", "request_confidence": 0.9}, "transition"),
        (
            {"active_request": "continue", "request_confidence": 0.9, "last_node": "greeting"},
            "question",
        ),
        # at the threshold an intent is not obeyed (the spec: confidence > 0.7)
        ({"active_request": "stop", "request_confidence": 0.7}, "transition"),
        ({"sandbox_active": True, "sandbox_signals": ("struggling",)}, "followup"),
        ({"sandbox_active": True, "sandbox_signals": ("syntax_errors",)}, "followup"),
        (
            {"sandbox_active": True, "sandbox_signals": ("struggling",), "sandbox_nudged": True},
            "transition",
        ),
        ({"sandbox_active": True, "sandbox_signals": ("confident",)}, "transition"),
        ({"sandbox_active": False, "sandbox_signals": ("struggling",)}, "transition"),
        ({"anchors_explored": 8, "technical_due": 0}, "evaluation"),
        ({"anchors_explored": 8, "technical_due": 2}, "transition"),  # technical questions first
        ({"anchors_explored": 8, "technical_due": 2, "technical_left": False}, "evaluation"),
        ({"questions_asked": 14}, "evaluation"),
        ({"resume_left": False, "technical_due": 0}, "evaluation"),
        ({"last_node": "greeting"}, "question"),
        ({"last_node": "transition"}, "question"),
        ({"last_node": "followup", "followups_in_a_row": 1}, "transition"),
        ({"last_answer_quality": 0.1}, "followup"),
        ({"last_answer_quality": 0.1, "followups_in_a_row": 1}, "transition"),
        ({}, "transition"),
        ({"evaluated": True}, "closing"),
    ],
)
def test_decide(changes: dict[str, object], action: str) -> None:
    assert decide(replace(BASE, **changes)).action == action  # type: ignore[arg-type]


def test_every_decision_says_why() -> None:
    decision = decide(replace(BASE, anchors_explored=8, technical_due=0))
    assert decision.reason == "8 of 9 resume topics were explored"
