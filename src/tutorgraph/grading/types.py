"""The grading vocabulary: requests, the judge's verdict, and the evaluator's full result."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from tutorgraph.grading.checks.spec import AnswerChecks
from tutorgraph.settings import RubricWeights

ErrorType = Literal["CONCEPTUAL", "PROCEDURAL", "INCOMPLETE", "CARELESS"]
PathDecision = Literal["MASTERED", "PROCEED", "ALTERNATE", "REMEDIATE", "RETRY"]
GraderName = Literal["llm", "offline"]

SPEC_WEIGHTS = RubricWeights()
ERROR_CLASSIFICATION_BELOW = 0.8


class KnownMisconception(BaseModel):
    """A misconception the knowledge base knows for a concept, with phrases that reveal it."""

    id: str
    description: str
    cues: list[str] = Field(default_factory=list)


Grade = Literal["correct", "partial", "wrong"]


class GradedAnswer(BaseModel):
    """Another learner's answer to the same question, with the grade a teacher gave it."""

    answer: str
    grade: Grade
    misconception: str | None = None


class GradingRequest(BaseModel):
    """Everything a grader may look at. Only question, reference and answer are required."""

    question: str
    reference_answer: str
    answer: str
    rubric: list[str] = Field(default_factory=list, description="Key points a full answer has.")
    phrasings: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Other ways to say a rubric point, by point (the knowledge base's).",
    )
    misconceptions: list[KnownMisconception] = Field(default_factory=list)
    difficulty: int = Field(default=3, ge=1, le=5)
    concept: str | None = None
    examples: list[GradedAnswer] = Field(
        default_factory=list,
        description="Graded answers to this question (the knowledge base's), read beside the "
        "reference by the offline grader.",
    )
    supporting: list[str] = Field(
        default_factory=list,
        description="Rubric points that elaborate beyond the question: credited when made, "
        "never capping the score.",
    )
    checks: AnswerChecks | None = Field(
        default=None,
        description="Cases the answer's code runs against, or values its numbers must reach "
        "(docs/answer-checks.md).",
    )

    @property
    def required_points(self) -> list[str]:
        return [p for p in self.rubric if p not in self.supporting]


class RubricScores(BaseModel):
    """Each criterion in [0, 1]; the score is their weighted sum (0.6 / 0.2 / 0.2)."""

    correctness: float = Field(ge=0.0, le=1.0)
    completeness: float = Field(ge=0.0, le=1.0)
    clarity: float = Field(ge=0.0, le=1.0)

    @property
    def score(self) -> float:
        """The weighted sum under the spec's weights."""
        return self.weighted(SPEC_WEIGHTS)

    def weighted(self, weights: RubricWeights) -> float:
        return round(
            weights.correctness * self.correctness
            + weights.completeness * self.completeness
            + weights.clarity * self.clarity,
            4,
        )


class CheckLine(BaseModel):
    """One case run or one value computed, as the learner is told about it."""

    name: str
    passed: bool
    message: str = ""
    slip: bool = False  # missed through a known slip, which `message` names
    credit: float = Field(default=0.0, ge=0.0, le=1.0)  # 1 passed, `slip_credit` for a slip
    points: list[str] = Field(default_factory=list)  # the rubric points it demonstrates


class ChecksSummary(BaseModel):
    """What running the answer's code, or computing with its numbers, found."""

    kind: Literal["code", "numbers", "code and numbers"]
    ran: bool = Field(description="Code: run in the sandbox (False: read statically or refused).")
    passed: int
    total: int
    share: float = Field(ge=0.0, le=1.0, description="The checks' credit, slips half-counted.")
    problem: str | None = None
    message: str = ""
    lines: list[CheckLine] = Field(default_factory=list)
    slips: list[str] = Field(default_factory=list)
    points: list[str] = Field(default_factory=list, description="Rubric points they decide.")
    duration_ms: int = 0


class Verdict(BaseModel):
    """What a judge (LLM or offline) concludes about one answer: phases 2-3 of the spec."""

    score: float = Field(ge=0.0, le=1.0)
    rubric: RubricScores
    error_type: ErrorType | None = None
    misconceptions: list[str] = Field(default_factory=list, description="Known misconception ids.")
    covered_key_points: list[str] = Field(default_factory=list)
    missing_key_points: list[str] = Field(default_factory=list)
    reasoning: str = ""
    grader: GraderName = "offline"
    certainty: float = Field(
        default=1.0,
        ge=0.0,
        le=1.0,
        description="How sure the grader is of this score (1 = certain); see `uncertainty`.",
    )
    judge_scores: list[float] = Field(
        default_factory=list, description="Each run's score when a model judged several times."
    )
    checks: ChecksSummary | None = None
