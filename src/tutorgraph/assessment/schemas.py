"""The structured outputs every assessment agent returns (LLM or offline), and their inputs."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from tutorgraph.assessment.state import EnrichedGap, GapNode
from tutorgraph.grading.types import Verdict
from tutorgraph.knowledge import BloomLevel, QuestionType, TargetLevel

PlanResourceType = Literal["article", "video", "project", "exercise", "book", "docs"]


class QuestionOutput(BaseModel):
    """Question Generator: one assessment question with what grading it needs."""

    text: str = Field(min_length=5, description="The question, as the learner will read it.")
    question_type: QuestionType
    bloom_level: BloomLevel = Field(description="The Bloom level the question targets.")
    reference_answer: str = Field(
        min_length=5, description="A complete, correct model answer the grader compares against."
    )
    key_points: list[str] = Field(
        default_factory=list, max_length=8, description="Points a full answer makes."
    )
    source_id: str | None = Field(
        default=None, description="Knowledge-base question id when drawn from the bank; else null."
    )


class EvaluationOutput(BaseModel):
    """Response Evaluator: how well the answer shows understanding, and at which Bloom level."""

    confidence: float = Field(ge=0.0, le=1.0)
    bloom_level: BloomLevel = Field(description="The Bloom level the answer demonstrates.")
    evidence: list[str] = Field(
        default_factory=list, description="Specific observations behind the score."
    )


class GapRecommendationOutput(BaseModel):
    """Gap Enricher: one actionable learning recommendation for one concept."""

    topic_id: str
    recommendation: str = Field(min_length=3)


class GapEnrichmentOutput(BaseModel):
    """Gap Enricher: a summary and a recommendation per gap."""

    summary: str
    recommendations: list[GapRecommendationOutput] = Field(default_factory=list)


class PlanResource(BaseModel):
    title: str = Field(min_length=1)
    type: PlanResourceType
    url: str | None = None


class PlanPhase(BaseModel):
    title: str = Field(min_length=1)
    topics: list[str] = Field(default_factory=list)
    resources: list[PlanResource] = Field(default_factory=list)
    estimated_hours: float = Field(gt=0, le=500)
    rationale: str = ""


class PlanOutput(BaseModel):
    """Plan Generator: 3-5 phases in prerequisite order, mixed resources, hours, rationale."""

    summary: str
    phases: list[PlanPhase] = Field(min_length=3, max_length=5)
    total_hours: float = Field(ge=0)
    rationale: str


class QuestionRequest(BaseModel):
    """What the question generator is told (spec: topic, level, target, counts, types, recent)."""

    domain: str
    topic_id: str
    bloom_level: BloomLevel
    target_level: TargetLevel
    questions_on_topic: int
    used_question_types: list[QuestionType] = Field(default_factory=list)
    recent_questions: list[str] = Field(default_factory=list, max_length=5)
    asked_question_ids: list[str] = Field(default_factory=list)
    probe: bool = False


class EvaluationRequest(BaseModel):
    """The question, the answer and the grading engine's verdict on it."""

    question_text: str
    question_type: QuestionType
    bloom_level: BloomLevel
    reference_answer: str
    answer: str
    verdict: Verdict
    misconception_descriptions: dict[str, str] = Field(default_factory=dict)


class GapEnrichmentRequest(BaseModel):
    domain: str
    target_level: TargetLevel
    overall_readiness: int
    gaps: list[GapNode]


class PlanRequest(BaseModel):
    domain: str
    target_level: TargetLevel
    overall_readiness: int
    gaps: list[EnrichedGap]
