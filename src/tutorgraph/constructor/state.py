"""The constructor's state: the records every pipeline reads and writes, and the coordinator's
graph state. Everything here is JSON-serialisable so the checkpointer can persist it."""

from __future__ import annotations

from typing import Any, Literal, TypedDict

from pydantic import BaseModel, Field

from tutorgraph.grading.checks.spec import AnswerChecks
from tutorgraph.knowledge.bloom import BloomLevel, QuestionType

Phase = Literal[
    "collecting",  # no material yet
    "ingested",  # files read, structure not proposed
    "structure_review",  # the author reviews the proposed structure (an interrupt)
    "structure_approved",
    "quiz_review",  # the author reviews the quiz bank (an interrupt)
    "quiz_approved",
    "validated",  # the readiness report is ready
    "published",
]

Action = Literal[
    "collect_info",
    "request_files",
    "respond",
    "ingest",
    "build_structure",
    "generate_quiz",
    "validate",
    "publish",
]
ACTIONS: tuple[Action, ...] = (
    "collect_info",
    "request_files",
    "respond",
    "ingest",
    "build_structure",
    "generate_quiz",
    "validate",
    "publish",
)


class ImageRef(BaseModel):
    """An image found in a source file; its bytes are stored with the session's uploads."""

    image_id: str
    name: str
    media_type: str
    caption: str
    location: str


class SourceFile(BaseModel):
    """One author file after extraction, as markdown."""

    file_id: str
    filename: str
    kind: str
    title: str
    markdown: str
    pages: int
    words: int
    images: list[ImageRef] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    # What the material says about itself: a Markdown file's YAML front matter (title,
    # description, order...), a PDF's or Word file's metadata. Values are plain strings.
    description: str = ""
    front_matter: dict[str, str] = Field(default_factory=dict)
    order: int = 0  # the author's order: CLI argument order, upload order, or front matter


class FileFailure(BaseModel):
    filename: str
    error: str


class SourceChunk(BaseModel):
    """A retrievable piece of a source file: the evidence quiz items are checked against."""

    chunk_id: str
    file_id: str
    heading_path: list[str]
    text: str


SectionRole = Literal["lesson", "exercises", "reading"]


class SourceSection(BaseModel):
    """A heading's own text (up to the next heading) in one source file."""

    section_id: str
    file_id: str
    level: int  # 0 for text before the first heading
    heading_path: list[str]
    text: str
    words: int
    has_code: bool
    # What the section is to its unit: taught text, or the unit's exercises or reading list
    # (kept with the unit; never a topic, never mined for questions or key points).
    role: SectionRole = "lesson"


class Topic(BaseModel):
    """A teachable topic: one lesson and one knowledge-base topic once published."""

    topic_id: str
    title: str
    unit_id: str
    section_ids: list[str]
    key_terms: list[str] = Field(default_factory=list)
    summary: str = ""
    key_points: list[str] = Field(default_factory=list)
    prerequisites: list[str] = Field(default_factory=list)
    words: int = 0
    has_code: bool = False


class Unit(BaseModel):
    """A group of topics: one module once published."""

    unit_id: str
    title: str
    topic_ids: list[str]
    file_ids: list[str] = Field(default_factory=list)  # the file(s) the unit comes from
    # The unit's own text before its first topic, and its exercises and reading list.
    intro_section_ids: list[str] = Field(default_factory=list)
    exercise_section_ids: list[str] = Field(default_factory=list)
    reading_section_ids: list[str] = Field(default_factory=list)


class Suggestion(BaseModel):
    kind: Literal["merge", "split", "reorder", "drop", "rename", "prerequisite"]
    topic_ids: list[str]
    reason: str


class CourseStructure(BaseModel):
    title: str
    description: str = ""
    units: list[Unit]
    topics: list[Topic]
    issues: list[str] = Field(default_factory=list)
    suggestions: list[Suggestion] = Field(default_factory=list)

    def topic(self, topic_id: str) -> Topic:
        for topic in self.topics:
            if topic.topic_id == topic_id:
                return topic
        raise KeyError(topic_id)

    def ordered_topics(self) -> list[Topic]:
        """Topics in course order: unit by unit, in each unit's order."""
        by_id = {t.topic_id: t for t in self.topics}
        return [by_id[t] for unit in self.units for t in unit.topic_ids if t in by_id]


ItemAsks = Literal[
    "why", "how", "what_if", "compare", "predict", "apply", "debug", "command", "define", "blank"
]
UNDERSTANDING_ASKS: frozenset[str] = frozenset(
    {"why", "how", "what_if", "compare", "predict", "apply", "debug", "command"}
)


class QuizItem(BaseModel):
    """A free-text question with its reference answer and rubric key points, and where in the
    sources its answer is."""

    item_id: str
    topic_id: str
    bloom_level: BloomLevel
    type: QuestionType
    difficulty: int = Field(ge=1, le=5)
    text: str
    reference_answer: str
    key_points: list[str]
    evidence: str  # the source text the answer comes from
    problems: list[str] = Field(default_factory=list)  # why validation dropped it, if it did
    checks: AnswerChecks | None = None  # cases its code runs against (docs/answer-checks.md)
    # What the question asks the learner to do: "why", "how", "what_if", "compare", "predict",
    # "apply", "debug", "command" test understanding; "define" and "blank" test recall.
    asks: ItemAsks = "define"
    # A multiple-choice form (the tutor's quiz card): options, the right one, and for each
    # wrong option why it is wrong ("" where the text gives no reason).
    options: list[str] = Field(default_factory=list)
    correct_index: int | None = None
    why_wrong: list[str] = Field(default_factory=list)

    @property
    def kept(self) -> bool:
        return not self.problems


class QuizBank(BaseModel):
    items: list[QuizItem] = Field(default_factory=list)
    generated: int = 0  # before validation dropped any
    dropped: int = 0

    def kept(self) -> list[QuizItem]:
        return [item for item in self.items if item.kept]


class Check(BaseModel):
    name: str
    passed: bool
    score: float = Field(ge=0.0, le=1.0)
    weight: float
    detail: str


class ReadinessReport(BaseModel):
    readiness: int = Field(ge=0, le=100)
    ready: bool
    checks: list[Check]
    reasons: list[str]
    answerability: float
    items_per_topic: float


class ProgressEvent(BaseModel):
    """One line of progress for the page and the terminal."""

    stage: str
    message: str
    done: int = 0
    total: int = 0
    data: dict[str, Any] = Field(default_factory=dict)


class ConstructorState(TypedDict, total=False):
    session_id: str
    owner_id: int | None
    initialized: bool
    phase: Phase
    course_title: str
    course_description: str
    messages: list[dict[str, str]]
    pending_uploads: list[str]  # upload ids not ingested yet
    files: list[SourceFile]
    failures: list[FileFailure]
    chunks: list[SourceChunk]
    sections: list[SourceSection]
    structure: CourseStructure | None
    quiz_bank: QuizBank | None
    report: ReadinessReport | None
    action: Action
    review_note: str  # what the last review step did, for the reply
    reply: str
    request: dict[str, Any]  # this turn's input: {"message": str, "action": str | None}
    course_slug: str | None
    error: str


# The types a constructor checkpoint holds: the checkpointer deserialises these and nothing else
# beyond LangGraph's safe built-ins (a checkpoint row is never a way to run code).
CHECKPOINT_TYPES: tuple[type, ...] = (
    ImageRef,
    SourceFile,
    FileFailure,
    SourceChunk,
    SourceSection,
    Topic,
    Unit,
    Suggestion,
    CourseStructure,
    QuizItem,
    QuizBank,
    Check,
    ReadinessReport,
    BloomLevel,
)
