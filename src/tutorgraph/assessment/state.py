"""The assessment graph's state: JSON-shaped TypedDicts, so every checkpoint is plain data that
any checkpointer (SQLite, PostgreSQL) stores and restores without custom serialisers.
(`typing_extensions.TypedDict`: pydantic validates these inside agent inputs on Python 3.11.)"""

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict

from tutorgraph.knowledge import QuestionType, TargetLevel

QuestionSource = Literal["knowledge_base", "model"]
Priority = Literal["critical", "high", "medium", "low"]
Status = Literal["in_progress", "complete"]


class QuestionRecord(TypedDict):
    """One question put to the learner, with what the evaluator needs to grade it."""

    id: str
    topic: str
    bloom_level: str
    question_type: QuestionType
    text: str
    reference_answer: str
    key_points: list[str]
    probe: bool
    source: QuestionSource


class AskedQuestion(TypedDict):
    """The short form kept in the history: enough for 'last 5 questions' and no repeats."""

    id: str
    topic: str
    bloom_level: str
    question_type: QuestionType
    text: str


class EvaluationRecord(TypedDict):
    """What the evaluator concluded about one answer."""

    question_id: str
    topic: str
    confidence: float
    bloom_level: str
    evidence: list[str]


class ResponseRecord(TypedDict):
    question_id: str
    topic: str
    bloom_level: str
    answer: str
    confidence: float
    demonstrated_bloom: str
    # known misconception ids the answer showed (absent in assessments checkpointed before)
    misconceptions: NotRequired[list[str]]
    # The feedback on this answer (issue 35; absent in assessments checkpointed before): the
    # grading engine's score, the question's key points it made and missed, for each
    # misconception the sentence of the answer that states it, and the checks' results (a
    # `ChecksSummary` as JSON) when the answer's code or numbers were checked.
    score: NotRequired[float]
    covered: NotRequired[list[str]]
    missed: NotRequired[list[str]]
    misconception_quotes: NotRequired[dict[str, str]]
    checks: NotRequired[dict[str, object] | None]


class KnowledgeNodeState(TypedDict):
    topic_id: str
    confidence: float
    bloom_level: str
    evidence: list[str]
    prerequisites: list[str]


class KnowledgeEdgeState(TypedDict):
    """`source` is a prerequisite of `target`."""

    source: str
    target: str


class KnowledgeGraphState(TypedDict):
    nodes: dict[str, KnowledgeNodeState]
    edges: list[KnowledgeEdgeState]


class GapNode(TypedDict):
    """A topic where the learner's confidence is below the target level's."""

    topic_id: str
    title: str
    current_confidence: float
    target_confidence: float
    gap: float
    bloom_level: str | None
    prerequisites: list[str]
    assessed: bool


class EnrichedGap(GapNode):
    priority: Priority
    recommendation: str


class EnrichedGapAnalysis(TypedDict):
    overall_readiness: int
    summary: str
    gaps: list[EnrichedGap]


class PlanResourceState(TypedDict):
    title: str
    type: str
    url: str | None


class PlanPhaseState(TypedDict):
    title: str
    topics: list[str]
    resources: list[PlanResourceState]
    estimated_hours: float
    rationale: str


class LearningPlan(TypedDict):
    summary: str
    phases: list[PlanPhaseState]
    total_hours: float
    rationale: str


class QuestionPayload(TypedDict):
    """The question as the interrupt shows it: camelCase, as the spec's payload has it."""

    id: str
    topic: str
    bloomLevel: str
    text: str
    questionType: str


class AssessmentInterrupt(TypedDict):
    """What `await_response` and `await_probe_response` send out with `interrupt()`."""

    type: Literal["assessment"]
    question: QuestionPayload
    topics_evaluated: int
    total_questions: int
    max_questions: int


class FinishRequest(TypedDict, total=False):
    """What a waiting question is resumed with to end the assessment now: `finish` true, and
    optionally an answer to the question on screen, which is graded first."""

    finish: bool
    answer: str


class AssessmentInput(TypedDict):
    domain: str
    target_level: TargetLevel


class AssessmentState(TypedDict):
    domain: str
    target_level: TargetLevel
    agenda: list[str]
    max_questions: int
    current_topic: str
    current_bloom: str
    current_question: QuestionRecord | None
    pending_answer: str
    questions: list[AskedQuestion]
    responses: list[ResponseRecord]
    topic_questions: dict[str, int]
    evaluated_topics: list[str]
    last_evaluation: EvaluationRecord | None
    knowledge_graph: KnowledgeGraphState
    gap_analysis: list[GapNode]
    enriched_gap_analysis: EnrichedGapAnalysis | None
    learning_plan: LearningPlan | None
    # The learner asked to finish now (absent in assessments checkpointed before: False).
    finish_requested: NotRequired[bool]


def interrupt_payload(state: AssessmentState) -> AssessmentInterrupt:
    """The spec's assessment interrupt for the current question."""
    question = state["current_question"]
    if question is None:
        raise RuntimeError("no current question to ask")
    return {
        "type": "assessment",
        "question": {
            "id": question["id"],
            "topic": question["topic"],
            "bloomLevel": question["bloom_level"],
            "text": question["text"],
            "questionType": question["question_type"],
        },
        "topics_evaluated": len(state["evaluated_topics"]),
        "total_questions": len(state["questions"]),
        "max_questions": state["max_questions"],
    }


class AssessmentUpdate(TypedDict, total=False):
    """What a node returns: the state keys it changes."""

    agenda: list[str]
    max_questions: int
    current_topic: str
    current_bloom: str
    current_question: QuestionRecord | None
    pending_answer: str
    questions: list[AskedQuestion]
    responses: list[ResponseRecord]
    topic_questions: dict[str, int]
    evaluated_topics: list[str]
    last_evaluation: EvaluationRecord | None
    knowledge_graph: KnowledgeGraphState
    gap_analysis: list[GapNode]
    enriched_gap_analysis: EnrichedGapAnalysis | None
    learning_plan: LearningPlan | None
    finish_requested: bool
