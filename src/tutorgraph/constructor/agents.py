"""The constructor's model calls. Each asks `model.structured` for a schema; the offline engine
answers from `inputs` with the implementations registered by `register_offline_constructor`
(deterministic, grounded in the uploaded sources; also the fallback when a model call fails)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field, model_validator

from tutorgraph.constructor import analysis, prompts, questions
from tutorgraph.constructor.choices import SiblingTerm
from tutorgraph.constructor.commands import ShellCommand
from tutorgraph.constructor.parameters import constructor_parameters
from tutorgraph.constructor.state import (
    ACTIONS,
    Action,
    ItemAsks,
    QuizItem,
    SourceSection,
    Topic,
)
from tutorgraph.constructor.text import salient_terms
from tutorgraph.knowledge.bloom import BloomLevel, QuestionType
from tutorgraph.llm import Message, Model, OfflineEngine

STRUCTURE_AGENT = "course_structurer"
PREREQUISITE_AGENT = "prerequisite_finder"
QUIZ_AGENT = "quiz_writer"
COORDINATOR_AGENT = "constructor_coordinator"


class OutlineSection(BaseModel):
    section_id: str
    file_id: str
    file_title: str
    heading_path: list[str]
    words: int
    terms: list[str]


class TopicsRequest(BaseModel):
    course_title: str
    sections: list[OutlineSection]
    # The offline engine reads the files themselves; a model reads the outline.
    file_sections: dict[str, list[SourceSection]] = Field(default_factory=dict)
    file_titles: dict[str, str] = Field(default_factory=dict)


class ProposedTopic(BaseModel):
    title: str = Field(min_length=1, max_length=200)
    unit_title: str = Field(min_length=1, max_length=200)
    section_ids: list[str] = Field(min_length=1)


class TopicsOutput(BaseModel):
    topics: list[ProposedTopic]


class PrerequisiteRequest(BaseModel):
    topics: list[Topic]
    texts: list[str]
    limit: int = Field(
        default_factory=lambda: constructor_parameters().prerequisites.max_prerequisites
    )


class TopicPrerequisites(BaseModel):
    topic_id: str
    prerequisites: list[str] = Field(default_factory=list)


class PrerequisiteOutput(BaseModel):
    topics: list[TopicPrerequisites]


class CourseCommand(BaseModel):
    """A shell command of another topic, with the words that explain it: a wrong choice of a
    "which command" item."""

    command: str
    explanation: str = ""
    language: str = "shell"  # "shell", or "sql" for a query


class QuizRequest(BaseModel):
    topic: Topic
    text: str
    earlier: str = ""  # the text of the topic's file before it
    levels: list[BloomLevel]
    count: int
    # The course's other terms and commands: the wrong options of choice items.
    siblings: list[SiblingTerm] = Field(default_factory=list)
    commands: list[CourseCommand] = Field(default_factory=list)


class ProposedQuestion(BaseModel):
    bloom_level: BloomLevel
    type: QuestionType
    text: str = Field(min_length=5)
    reference_answer: str = Field(min_length=3)
    key_points: list[str] = Field(min_length=1, max_length=6)
    evidence: str = Field(min_length=3)
    asks: ItemAsks = "define"  # what it asks the learner to do (QuizItem.asks)
    options: list[str] = Field(default_factory=list, max_length=6)  # a multiple-choice form
    correct_index: int | None = None
    why_wrong: list[str] = Field(default_factory=list, max_length=6)

    @model_validator(mode="after")
    def _choice_form(self) -> ProposedQuestion:
        """Options come with the index of the right one, within them."""
        if self.options and (
            self.correct_index is None or not 0 <= self.correct_index < len(self.options)
        ):
            raise ValueError("correct_index must name one of the options")
        return self


class QuizOutput(BaseModel):
    questions: list[ProposedQuestion]
    notes: list[str] = Field(default_factory=list)  # what the writer left out, and why


class CoordinatorRequest(BaseModel):
    phase: str
    allowed: list[Action]
    message: str
    files: str
    structure: str
    quiz: str
    readiness: str
    fallback_action: Action
    fallback_reply: str


class CoordinatorOutput(BaseModel):
    action: str
    reply: str = ""


async def propose_topics(model: Model, request: TopicsRequest) -> TopicsOutput:
    outline = "\n".join(
        f"{s.section_id} | {' > '.join(s.heading_path) or s.file_title} | {s.words} | "
        + ", ".join(s.terms)
        for s in request.sections
    )
    user = prompts.STRUCTURE_USER.format(course_title=request.course_title, outline=outline)
    messages = [Message.system(prompts.STRUCTURE_SYSTEM), Message.user(user)]
    return await model.structured(TopicsOutput, messages, agent=STRUCTURE_AGENT, inputs=request)


async def find_prerequisites(model: Model, request: PrerequisiteRequest) -> PrerequisiteOutput:
    listing = "\n".join(
        f"{t.topic_id} | {t.title} | {', '.join(t.key_terms)} | {t.summary}" for t in request.topics
    )
    messages = [
        Message.system(prompts.PREREQUISITE_SYSTEM.format(limit=request.limit)),
        Message.user(prompts.PREREQUISITE_USER.format(topics=listing)),
    ]
    return await model.structured(
        PrerequisiteOutput, messages, agent=PREREQUISITE_AGENT, inputs=request
    )


async def write_questions(model: Model, request: QuizRequest) -> QuizOutput:
    user = prompts.QUIZ_USER.format(
        title=request.topic.title,
        terms=", ".join(request.topic.key_terms),
        levels=", ".join(level.value for level in request.levels),
        count=request.count,
        siblings=", ".join(s.term for s in request.siblings) or "(none)",
        commands=", ".join(f"`{c.command}`" for c in request.commands) or "(none)",
        text=request.text[: constructor_parameters().model_requests.source_chars],
    )
    messages = [Message.system(prompts.QUIZ_SYSTEM), Message.user(user)]
    return await model.structured(QuizOutput, messages, agent=QUIZ_AGENT, inputs=request)


async def coordinate(model: Model, request: CoordinatorRequest) -> CoordinatorOutput:
    system = prompts.COORDINATOR_SYSTEM.format(
        phase=request.phase, actions=", ".join(request.allowed)
    )
    user = prompts.COORDINATOR_USER.format(
        files=request.files,
        structure=request.structure,
        quiz=request.quiz,
        readiness=request.readiness,
        message=request.message,
    )
    messages = [Message.system(system), Message.user(user)]
    return await model.structured(
        CoordinatorOutput, messages, agent=COORDINATOR_AGENT, inputs=request
    )


# ---- offline implementations ---------------------------------------------------------------


def _offline_topics(_schema: type[BaseModel], _messages: Any, request: Any) -> TopicsOutput:
    assert isinstance(request, TopicsRequest)
    return offline_topics(request)


def offline_topics(request: TopicsRequest) -> TopicsOutput:
    """Topics from the files' headings (see `analysis`)."""
    topics = []
    for file_id, sections in request.file_sections.items():
        title = request.file_titles.get(file_id, file_id)
        file = _FileView(file_id=file_id, title=title)
        for draft in analysis.draft_topics(file, sections):
            topics.append(
                ProposedTopic(
                    title=draft.title,
                    unit_title=draft.unit_title,
                    section_ids=[s.section_id for s in draft.sections],
                )
            )
    return TopicsOutput(topics=topics)


class _FileView(BaseModel):
    """The two fields of a source file that topic drafting reads."""

    file_id: str
    title: str


def _offline_prerequisites(
    _schema: type[BaseModel], _messages: Any, request: Any
) -> PrerequisiteOutput:
    assert isinstance(request, PrerequisiteRequest)
    found = analysis.prerequisites(request.topics, request.texts)
    return PrerequisiteOutput(
        topics=[
            TopicPrerequisites(topic_id=t.topic_id, prerequisites=p)
            for t, p in zip(request.topics, found, strict=True)
        ]
    )


def _offline_questions(_schema: type[BaseModel], _messages: Any, request: Any) -> QuizOutput:
    assert isinstance(request, QuizRequest)
    written = questions.write_quiz(
        questions.TopicMaterial(
            request.topic,
            request.text,
            request.earlier,
            siblings=request.siblings,
            commands=[
                ShellCommand(c.command, c.explanation, "", "", language=c.language)
                for c in request.commands
            ],
        ),
        wanted=request.count,
    )
    return QuizOutput(
        questions=[
            ProposedQuestion(
                bloom_level=i.bloom_level,
                type=i.type,
                text=i.text,
                reference_answer=i.reference_answer,
                key_points=i.key_points[:6] or [i.reference_answer],
                evidence=i.evidence,
                asks=i.asks,
                options=i.options,
                correct_index=i.correct_index,
                why_wrong=i.why_wrong,
            )
            for i in written.items
        ],
        notes=written.notes,
    )


def _offline_coordinate(
    _schema: type[BaseModel], _messages: Any, request: Any
) -> CoordinatorOutput:
    assert isinstance(request, CoordinatorRequest)
    return CoordinatorOutput(action=request.fallback_action, reply=request.fallback_reply)


def register_offline_constructor(engine: OfflineEngine) -> None:
    engine.register_structured(STRUCTURE_AGENT, _offline_topics)
    engine.register_structured(PREREQUISITE_AGENT, _offline_prerequisites)
    engine.register_structured(QUIZ_AGENT, _offline_questions)
    engine.register_structured(COORDINATOR_AGENT, _offline_coordinate)


def outline(sections: Sequence[SourceSection], titles: dict[str, str]) -> list[OutlineSection]:
    top = constructor_parameters().model_requests.outline_terms
    terms = salient_terms([s.text for s in sections], top=top) if sections else []
    return [
        OutlineSection(
            section_id=s.section_id,
            file_id=s.file_id,
            file_title=titles.get(s.file_id, ""),
            heading_path=s.heading_path,
            words=s.words,
            terms=t,
        )
        for s, t in zip(sections, terms, strict=True)
    ]


def quiz_item(topic: Topic, index: int, proposed: ProposedQuestion) -> QuizItem:
    return QuizItem(
        item_id=f"{topic.topic_id}-q{index + 1}",
        topic_id=topic.topic_id,
        bloom_level=proposed.bloom_level,
        type=proposed.type,
        difficulty=min(5, proposed.bloom_level.rank + 1),
        text=proposed.text,
        reference_answer=proposed.reference_answer,
        key_points=proposed.key_points,
        evidence=proposed.evidence,
        asks=proposed.asks,
        options=proposed.options,
        correct_index=proposed.correct_index if proposed.options else None,
        why_wrong=proposed.why_wrong,
    )


def valid_action(proposed: str) -> Action | None:
    return next((a for a in ACTIONS if a == proposed), None)
