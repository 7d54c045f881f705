"""The knowledge-base YAML schema: domains of topics with misconceptions, resources, questions."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, HttpUrl, model_validator

from tutorgraph.grading.checks.spec import AnswerChecks
from tutorgraph.knowledge.bloom import BloomLevel, QuestionType, ResourceType, TargetLevel

ID_PATTERN = r"^[a-z0-9]+(?:[-_][a-z0-9]+)*$"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Misconception(_Strict):
    id: str = Field(pattern=ID_PATTERN)
    description: str = Field(min_length=3)
    cues: list[str] = Field(min_length=1)


class Resource(_Strict):
    title: str = Field(min_length=1)
    url: HttpUrl
    type: ResourceType
    why: str = Field(min_length=3)


class Analogy(_Strict):
    """A picture a tutor can teach one idea of the topic with, and build on in the next turn."""

    idea: str = Field(min_length=2)
    keywords: list[str] = Field(min_length=1)
    picture: str = Field(min_length=10)
    mapping: list[str] = Field(min_length=1)
    extension: str = ""
    breaks: str = ""


class GradedExample(_Strict):
    """A learner's answer to a question with the grade a teacher gave it. The offline grader
    reads a new answer against these as well as against the reference (grading/examples.py)."""

    answer: str = Field(min_length=1)
    grade: Literal["correct", "partial", "wrong"]
    misconception: str | None = None  # the topic misconception the answer states, if any


class Question(_Strict):
    id: str = Field(pattern=ID_PATTERN)
    bloom_level: BloomLevel
    type: QuestionType
    difficulty: int = Field(ge=1, le=5)
    text: str = Field(min_length=5)
    reference_answer: str = Field(min_length=5)
    rubric: list[str] = Field(min_length=1)
    # Other ways a learner says a rubric point, keyed by the point's text; the offline grader
    # credits the point when the answer says any of them (see grading/meaning.py).
    phrasings: dict[str, list[str]] = Field(default_factory=dict)
    misconceptions: list[str] = Field(default_factory=list)
    examples: list[GradedExample] = Field(default_factory=list)
    # Rubric points that elaborate beyond what the question asks: credited when said, never
    # capping a right answer's score (only the other, required points do).
    supporting: list[str] = Field(default_factory=list)
    checks: AnswerChecks | None = None

    @property
    def required_points(self) -> list[str]:
        return [p for p in self.rubric if p not in self.supporting]

    @model_validator(mode="after")
    def _phrasings_name_rubric_points(self) -> Question:
        strays = [p for p in self.supporting if p not in self.rubric]
        if checks := self.checks:
            strays += [p for p in checks.points if p not in self.rubric]
        if strays:
            raise ValueError(
                f"question {self.id}: supporting or checked points not in its rubric: "
                + "; ".join(repr(p) for p in strays)
            )
        if not self.required_points:
            raise ValueError(f"question {self.id}: every rubric point is supporting")
        unknown = [point for point in self.phrasings if point not in self.rubric]
        if unknown:
            raise ValueError(
                f"question {self.id}: phrasings name points not in its rubric: "
                + "; ".join(repr(p) for p in unknown)
            )
        empty = [p for alts in self.phrasings.values() for p in alts if len(p.strip()) < 2]
        if empty:
            raise ValueError(f"question {self.id}: a phrasing is empty")
        return self


class Topic(_Strict):
    id: str = Field(pattern=ID_PATTERN)
    title: str = Field(min_length=1)
    summary: str = Field(min_length=3)
    target_levels: list[TargetLevel] = Field(min_length=1)
    prerequisites: list[str] = Field(default_factory=list)
    target_confidence: dict[TargetLevel, float]
    difficulty: int = Field(ge=1, le=5)
    key_points: list[str] = Field(min_length=1)
    misconceptions: list[Misconception] = Field(default_factory=list)
    resources: list[Resource] = Field(default_factory=list)
    analogies: list[Analogy] = Field(default_factory=list)
    questions: list[Question] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> Topic:
        for level, value in self.target_confidence.items():
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"target_confidence.{level} must be between 0 and 1")
        missing = [lvl for lvl in self.target_levels if lvl not in self.target_confidence]
        if missing:
            raise ValueError(f"target_confidence has no value for {', '.join(missing)}")
        known = {m.id for m in self.misconceptions}
        for question in self.questions:
            named = [*question.misconceptions, *(e.misconception for e in question.examples)]
            unknown = list(dict.fromkeys(m for m in named if m is not None and m not in known))
            if unknown:
                raise ValueError(
                    f"question {question.id} names unknown misconception(s) {', '.join(unknown)}"
                )
        return self

    def misconception(self, misconception_id: str) -> Misconception | None:
        return next((m for m in self.misconceptions if m.id == misconception_id), None)

    def question(self, question_id: str) -> Question | None:
        return next((q for q in self.questions if q.id == question_id), None)


class Domain(_Strict):
    domain: str = Field(pattern=ID_PATTERN)
    title: str = Field(min_length=1)
    description: str = ""
    topics: list[Topic] = Field(min_length=1)
