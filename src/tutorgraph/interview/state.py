"""The interview's state: every concept a decision needs is a field here (the spec's
`InterviewState` with its nested QuestionRecord, UserIntent, ResumeExploration and SandboxState),
never something inferred from the conversation's raw text.

All of it is plain JSON-able data (TypedDicts of str, int, float, bool, lists and dicts), so the
LangGraph checkpointer stores it after every node without a custom serializer."""

from __future__ import annotations

import operator
from typing import Annotated, Literal, NotRequired, TypedDict

from tutorgraph.knowledge import TargetLevel

Intent = Literal["technical_assessment", "change_topic", "clarify", "stop", "continue", "no_intent"]
INTENTS: tuple[Intent, ...] = (
    "technical_assessment",
    "change_topic",
    "clarify",
    "stop",
    "continue",
    "no_intent",
)
Phase = Literal["intro", "exploration", "technical", "closing"]
AnchorType = Literal["project", "skill", "experience", "education"]
Aspect = Literal[
    "challenges", "impact", "design", "tools", "team", "results", "tradeoffs", "implementation"
]
ASPECTS: tuple[Aspect, ...] = (
    "challenges",
    "design",
    "impact",
    "tools",
    "tradeoffs",
    "implementation",
    "team",
    "results",
)
QuestionSource = Literal["resume", "knowledge_base", "followup", "clarification", "coding"]
Action = Literal["greeting", "question", "followup", "transition", "evaluation", "closing"]
Signal = Literal[
    "struggling", "confident", "refactoring", "idle", "syntax_errors", "rapid_iterations"
]
SIGNALS: tuple[Signal, ...] = (
    "struggling",
    "confident",
    "refactoring",
    "idle",
    "syntax_errors",
    "rapid_iterations",
)


class QuestionRecord(TypedDict):
    """Every question asked, with where it came from: what dedup and coverage are computed on."""

    id: str
    text: str
    source: QuestionSource
    resume_anchor: str | None
    aspect: Aspect | None
    asked_at_turn: int
    topic_id: NotRequired[str | None]  # a knowledge-base topic, for technical questions
    domain: NotRequired[str | None]
    kb_text: NotRequired[str]  # the knowledge-base question it was worded from
    topic_title: NotRequired[str]


class UserIntent(TypedDict):
    type: Intent
    confidence: float
    extracted_from: str
    turn: int
    metadata: dict[str, str]


class ResumeExploration(TypedDict):
    anchor_id: str
    anchor_type: AnchorType
    label: str
    aspects_covered: list[Aspect]  # a set, kept sorted as a list so the state stays JSON
    depth_score: int  # 0-10
    last_explored_turn: int | None


class Submission(TypedDict):
    code: str
    outcome: str
    stdout: str
    stderr: str
    duration_ms: int
    at: float  # seconds since the epoch
    turn: int


class SandboxState(TypedDict):
    is_active: bool
    last_activity_ts: float | None
    submissions: list[Submission]
    signals: list[Signal]


class Message(TypedDict):
    role: Literal["interviewer", "candidate"]
    text: str
    node: str | None
    turn: int


class Answer(TypedDict):
    """The candidate's answer to a question, with what the grader made of it when the question
    came from the knowledge base."""

    question_id: str
    text: str
    turn: int
    quality: float  # 0-1, the answer-quality signal `decide` reads
    score: NotRequired[float | None]  # the grading engine's score (technical questions)
    feedback: NotRequired[str]
    misconceptions: NotRequired[list[str]]
    intent: NotRequired[str]  # the turn also asked something of the interview


class ResumeProject(TypedDict):
    name: str
    text: str


class ResumeJob(TypedDict):
    title: str
    text: str


class ResumeStructured(TypedDict):
    name: str
    summary: str
    projects: list[ResumeProject]
    experience: list[ResumeJob]
    skills: list[str]
    education: list[str]


class Score(TypedDict):
    score: int | None  # 0-100; None: not assessed
    summary: str
    evidence: list[str]


class Scorecard(TypedDict):
    overall: Score
    communication: Score
    technical: Score
    problem_solving: Score
    code_quality: Score
    strengths: list[str]
    weaknesses: list[str]
    recommendations: list[str]
    topics_covered: list[str]
    questions_asked: int
    ended_because: str


class InterviewInput(TypedDict):
    interview_id: str
    user_id: int | None
    resume_id: str
    resume_structured: ResumeStructured
    role: str
    level: TargetLevel
    max_questions: int


class InterviewState(TypedDict):
    # Core
    interview_id: str
    user_id: int | None
    resume_id: str
    role: str
    level: TargetLevel
    max_questions: int
    # Conversation
    turn_count: int
    conversation_history: Annotated[list[Message], operator.add]
    answers: list[Answer]
    pending_grade: NotRequired[bool]  # the last answer waits for the grading engine
    # Questions (explicit tracking)
    questions_asked: list[QuestionRecord]
    current_question: str | None
    current_record: QuestionRecord | None
    followups_in_a_row: int
    # Resume (structured)
    resume_structured: ResumeStructured
    resume_exploration: dict[str, ResumeExploration]
    skipped_anchors: list[str]
    # User intent (first-class)
    detected_intents: list[UserIntent]
    active_user_request: UserIntent | None
    # Sandbox
    sandbox: SandboxState
    nudged_at_runs: int  # the runs the last sandbox nudge answered: no second nudge for them
    # Flow control
    phase: Phase
    last_node: str
    next_node: Action | None
    decision_reason: str
    # Outcome
    scorecard: Scorecard | None
    ended_because: str
    # System
    checkpoints: list[str]


def empty_sandbox() -> SandboxState:
    return {"is_active": False, "last_activity_ts": None, "submissions": [], "signals": []}
