"""The coordinator's state, checkpointed per thread: one thread per tutor session (the
learner's conversation about a lesson, `TutorSession`)."""

from __future__ import annotations

from typing import Any, Literal, TypedDict

Action = Literal["explain", "gap_analysis", "quiz", "quiz_answer", "summarize", "end_turn"]
# "end": the learner ends the session (it is summarized)
InputKind = Literal["message", "quiz_answer", "end"]


class SessionState(TypedDict, total=False):
    lesson_id: int
    user_id: int
    # the fresh input of this turn; intake consumes it (None afterwards)
    pending_input: str | None
    pending_kind: InputKind
    next_action: Action
    # the learner asked for a quiz after the explanation of this turn
    quiz_after: bool
    welcomed: bool
    messages: list[dict[str, str]]
    # events produced by this turn only (reset by welcome at the start of every turn)
    replies: list[dict[str, Any]]
    # quiz lifecycle
    current_quiz: list[dict[str, Any]]
    quiz_position: int
    quiz_completed: bool
    awaiting_quiz_answer: bool
    last_answer_correct: bool | None
    # cards answered in this session: only the first answer to a card moves mastery (the
    # feedback shows the right option, so a retake proves nothing); reset when a session restarts
    graded_cards: list[str]
    last_feedback: str
    # what the session covered, for gap analysis and the summary
    covered: list[str]
    review: list[str]
    ended: bool
    tutor_session_id: str | None
