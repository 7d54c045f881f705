"""What the interview nodes depend on (runtime context), and the spec's read-only context
builders: each node reads the state through one of these and writes its slice after its logic."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from tutorgraph.interview import planner
from tutorgraph.interview.embeddings import EmbeddingSimilarity
from tutorgraph.interview.router import DecisionContext
from tutorgraph.interview.state import InterviewState, Message, QuestionRecord
from tutorgraph.learner_model.evaluator import Evaluator
from tutorgraph.llm import Model

PRIMARY_SOURCES = ("resume", "knowledge_base", "coding")


@dataclass(frozen=True)
class InterviewContext:
    model: Model
    evaluator: Evaluator
    similarity: EmbeddingSimilarity | None = None  # when configured; word overlap otherwise
    clock: Callable[[], float] = field(default=time.time)

    @classmethod
    def for_model(
        cls, model: Model, *, similarity: EmbeddingSimilarity | None = None
    ) -> InterviewContext:
        return cls(model=model, evaluator=Evaluator(model), similarity=similarity)


def primary_questions(state: InterviewState) -> list[QuestionRecord]:
    return [q for q in state["questions_asked"] if q["source"] in PRIMARY_SOURCES]


def technical_asked(state: InterviewState) -> int:
    return sum(q["source"] == "knowledge_base" for q in state["questions_asked"])


def build_decision_context(state: InterviewState, *, now: float) -> DecisionContext:
    """The structured signals `decide` reads (never the raw conversation)."""
    exploration = state["resume_exploration"]
    request = state["active_user_request"]
    testable = planner.testable_skills(state["resume_structured"])
    due = max(0, planner.TECHNICAL_QUESTIONS - technical_asked(state)) if testable else 0
    technical_left = (
        next(
            planner.technical_targets(
                state["resume_structured"], state["level"], state["questions_asked"]
            ),
            None,
        )
        is not None
    )
    answers = state["answers"]
    last = answers[-1] if answers else None
    current = state["current_record"]
    quality = last["quality"] if last and current and last["question_id"] == current["id"] else None
    sandbox = state["sandbox"]
    active = sandbox["is_active"] and sandbox["last_activity_ts"] is not None
    nudged = (
        state["last_node"] in ("followup", "user_input")
        and current is not None
        and current["source"] == "clarification"
    )
    return DecisionContext(
        turn_count=state["turn_count"],
        phase=state["phase"],
        last_node=_last_speaker(state),
        questions_asked=len(primary_questions(state)),
        max_questions=state["max_questions"],
        anchors_total=len(exploration),
        anchors_explored=planner.explored_anchors(exploration),
        resume_left=planner.resume_left(exploration, state["skipped_anchors"]),
        technical_due=due,
        technical_left=technical_left,
        active_request=request["type"] if request else None,
        request_confidence=request["confidence"] if request else 0.0,
        last_answer_quality=quality,
        followups_in_a_row=state["followups_in_a_row"],
        sandbox_active=active and now - (sandbox["last_activity_ts"] or 0) < 600,
        sandbox_signals=tuple(sandbox["signals"]),
        evaluated=state["scorecard"] is not None,
        sandbox_nudged=nudged,
    )


def _last_speaker(state: InterviewState) -> str:
    """The last node that acted before the candidate's turn (input and intent nodes are not
    decisions' subjects)."""
    return state["last_node"] if state["last_node"] != "user_input" else "question"


def build_conversation_context(state: InterviewState, *, turns: int = 6) -> list[Message]:
    return state["conversation_history"][-turns:]
