"""What the interview's agents are asked and what they answer (pydantic: structured outputs)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from tutorgraph.interview.state import Aspect, Intent

UtteranceKind = Literal[
    "greeting", "resume", "technical", "followup", "clarify", "nudge", "transition", "closing"
]


class UtteranceRequest(BaseModel):
    """One thing the interviewer says, with what it is about."""

    kind: UtteranceKind
    role: str
    level: str
    candidate_name: str = ""
    anchor_label: str = ""
    anchor_type: str = ""
    aspect: Aspect | None = None
    detail: str = ""  # a phrase from the resume about the anchor
    kb_question: str = ""  # the knowledge-base question a technical question is built on
    topic_title: str = ""
    previous_question: str = ""
    last_answer: str = ""
    answer_quality: float | None = None  # of the last answer, 0-1
    next_label: str = ""
    reason: str = ""  # why this is said (the decision's reason)
    signals: list[str] = Field(default_factory=list)
    last_run: str = ""  # the sandbox's last outcome and error line
    recent_questions: list[str] = Field(default_factory=list)
    conversation: list[str] = Field(default_factory=list)  # the last turns, "role: text"
    variant: int = 0  # the offline composer's choice among its wordings
    anchors_total: int = 0
    technical_planned: bool = False


class Utterance(BaseModel):
    text: str = Field(min_length=1, max_length=2000)


class IntentRequest(BaseModel):
    text: str
    last_question: str = ""


class IntentOutput(BaseModel):
    type: Intent
    confidence: float = Field(ge=0.0, le=1.0)
    cue: str = ""


class ScoreOutput(BaseModel):
    score: int | None = Field(default=None, ge=0, le=100)
    summary: str
    evidence: list[str] = Field(default_factory=list)


class ScorecardOutput(BaseModel):
    overall: ScoreOutput
    communication: ScoreOutput
    technical: ScoreOutput
    problem_solving: ScoreOutput
    code_quality: ScoreOutput
    strengths: list[str]
    weaknesses: list[str]
    recommendations: list[str]
