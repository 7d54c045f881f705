"""SQLAlchemy 2 models: users and the content model of the tutor-platform spec.

Client-visible session ids are UUID strings; everything else uses integer keys. JSON columns hold
lists and small documents (concepts, sources, image metadata, quiz items)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any, ClassVar, Literal

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
    false,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

Role = Literal["learner", "instructor", "admin"]
Visibility = Literal["public", "private"]
ROLES: tuple[Role, ...] = ("learner", "instructor", "admin")

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    return datetime.now(UTC)


def new_uuid() -> str:
    return str(uuid.uuid4())


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp stored in UTC and always read back timezone-aware (SQLite keeps no offset),
    so every timestamp the API returns is ISO 8601 with its offset."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        # a naive value is taken to be UTC; SQLite then stores the UTC wall time
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map: ClassVar[dict[Any, Any]] = {
        dict[str, Any]: JSON,
        list[Any]: JSON,
        datetime: UTCDateTime(),
    }


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    email: Mapped[str] = mapped_column(String(320), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    password_hash: Mapped[str] = mapped_column(String(255))
    role: Mapped[str] = mapped_column(String(20), default="learner")
    is_active: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # Bumped by a password change: tokens issued under an earlier version stop working.
    token_version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class RevokedToken(Base):
    """An access token logged out before it expired; the row goes once the token expires."""

    __tablename__ = "revoked_tokens"

    token_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    expires_at: Mapped[datetime] = mapped_column(index=True)


class LoginAttempt(Base):
    """One rate-limited event (a failed login, a registration), kept briefly so every API
    process counts the same attempts."""

    __tablename__ = "login_attempts"
    __table_args__ = (Index("ix_login_attempts_key_at", "key", "at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    key: Mapped[str] = mapped_column(String(400))
    at: Mapped[datetime] = mapped_column(default=utcnow)


class LearningPath(Base):
    """A course."""

    __tablename__ = "learning_paths"

    id: Mapped[int] = mapped_column(primary_key=True)
    slug: Mapped[str] = mapped_column(String(200), unique=True)
    title: Mapped[str] = mapped_column(String(300))
    description: Mapped[str] = mapped_column(Text, default="")
    level: Mapped[str] = mapped_column(String(50), default="")
    domain: Mapped[str] = mapped_column(String(100), default="")
    order_index: Mapped[int] = mapped_column(Integer, default=0)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    visibility: Mapped[str] = mapped_column(String(20), default="private")
    share_token: Mapped[str | None] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)

    modules: Mapped[list[Module]] = relationship(
        back_populates="learning_path", order_by="Module.order_index", cascade="all, delete-orphan"
    )


class CourseShare(Base):
    __tablename__ = "course_shares"
    __table_args__ = (UniqueConstraint("learning_path_id", "user_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    learning_path_id: Mapped[int] = mapped_column(
        ForeignKey("learning_paths.id", ondelete="CASCADE")
    )
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class CourseEnrollment(Base):
    """A learner studying a course, or an instructor teaching it: the cohort an instructor's
    dashboard shows. Learners enrol by opening a lesson or joining by share link; the owner or
    an admin assigns instructors."""

    __tablename__ = "course_enrollments"
    __table_args__ = (UniqueConstraint("learning_path_id", "user_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    learning_path_id: Mapped[int] = mapped_column(
        ForeignKey("learning_paths.id", ondelete="CASCADE")
    )
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    role: Mapped[str] = mapped_column(String(20), default="learner")  # learner | instructor
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Module(Base):
    __tablename__ = "modules"

    id: Mapped[int] = mapped_column(primary_key=True)
    learning_path_id: Mapped[int] = mapped_column(
        ForeignKey("learning_paths.id", ondelete="CASCADE"), index=True
    )
    title: Mapped[str] = mapped_column(String(300))
    order_index: Mapped[int] = mapped_column(Integer, default=0)

    learning_path: Mapped[LearningPath] = relationship(back_populates="modules")
    lessons: Mapped[list[Lesson]] = relationship(
        back_populates="module", order_by="Lesson.order_index", cascade="all, delete-orphan"
    )


class Lesson(Base):
    __tablename__ = "lessons"

    id: Mapped[int] = mapped_column(primary_key=True)
    module_id: Mapped[int] = mapped_column(ForeignKey("modules.id", ondelete="CASCADE"), index=True)
    title: Mapped[str] = mapped_column(String(300))
    slug: Mapped[str] = mapped_column(String(200), index=True)
    order_index: Mapped[int] = mapped_column(Integer, default=0)
    content: Mapped[str] = mapped_column(Text, default="")
    summary: Mapped[str] = mapped_column(Text, default="")
    concepts: Mapped[list[Any]] = mapped_column(default=list)
    reference_kb: Mapped[str] = mapped_column(Text, default="")
    sources_used: Mapped[list[Any]] = mapped_column(default=list)
    image_metadata: Mapped[list[Any]] = mapped_column(default=list)
    quiz: Mapped[list[Any]] = mapped_column(default=list)
    youtube_id: Mapped[str | None] = mapped_column(String(50))
    video_title: Mapped[str | None] = mapped_column(String(300))
    transcript: Mapped[str | None] = mapped_column(Text)
    content_hash: Mapped[str] = mapped_column(String(64), default="")

    module: Mapped[Module] = relationship(back_populates="lessons")


class UserLessonProgress(Base):
    __tablename__ = "user_lesson_progress"
    __table_args__ = (UniqueConstraint("user_id", "lesson_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    lesson_id: Mapped[int] = mapped_column(ForeignKey("lessons.id", ondelete="CASCADE"))
    completed: Mapped[bool] = mapped_column(Boolean, default=False)
    completed_at: Mapped[datetime | None] = mapped_column()


class TutorSession(Base):
    __tablename__ = "tutor_sessions"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_uuid)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    lesson_id: Mapped[int] = mapped_column(ForeignKey("lessons.id", ondelete="CASCADE"))
    title: Mapped[str] = mapped_column(String(300), default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class ChatMessage(Base):
    __tablename__ = "chat_messages"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    lesson_id: Mapped[int] = mapped_column(ForeignKey("lessons.id", ondelete="CASCADE"))
    session_id: Mapped[str] = mapped_column(
        ForeignKey("tutor_sessions.id", ondelete="CASCADE"), index=True
    )
    role: Mapped[str] = mapped_column(String(20))
    content: Mapped[str] = mapped_column(Text)
    # an assistant reply still being written, or cut off by a crash: what was streamed so far
    interrupted: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class TutorQuizAnswer(Base):
    """A learner's first answer to an inline quiz card in one lesson conversation, so the
    conversation reopens with the card answered. What counts for mastery is `TutorQuizCard`."""

    __tablename__ = "tutor_quiz_answers"
    __table_args__ = (UniqueConstraint("session_id", "quiz_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    session_id: Mapped[str] = mapped_column(ForeignKey("tutor_sessions.id", ondelete="CASCADE"))
    quiz_id: Mapped[str] = mapped_column(String(200))
    selected_index: Mapped[int]
    correct: Mapped[bool] = mapped_column(Boolean)
    # the learner's short reason for their choice, shown back with the feedback
    why: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class TutorQuizCard(Base):
    """A quiz card the tutor showed a learner, and the one answer of theirs that counts: a card
    moves a learner's mastery once, whichever conversation it is answered in, and only once it
    has been shown to them. A lesson's own cards are looked up in the lesson; a card the tutor
    wrote itself is kept here whole (`card`, answer included: the browser never gets it), with
    the conversation that showed it (`session_id`) and no lesson in an explore chat."""

    __tablename__ = "tutor_quiz_cards"
    __table_args__ = (UniqueConstraint("user_id", "lesson_id", "quiz_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    lesson_id: Mapped[int | None] = mapped_column(ForeignKey("lessons.id", ondelete="CASCADE"))
    quiz_id: Mapped[str] = mapped_column(String(200))
    session_id: Mapped[str | None] = mapped_column(String(36), index=True)
    card: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    shown_at: Mapped[datetime] = mapped_column(default=utcnow)
    counted_index: Mapped[int | None] = mapped_column(Integer)
    counted_at: Mapped[datetime | None] = mapped_column()


class ExplorationSession(Base):
    __tablename__ = "exploration_sessions"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_uuid)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    title: Mapped[str] = mapped_column(String(300), default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class ExplorationMessage(Base):
    __tablename__ = "exploration_messages"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    session_id: Mapped[str] = mapped_column(
        ForeignKey("exploration_sessions.id", ondelete="CASCADE"), index=True
    )
    role: Mapped[str] = mapped_column(String(20))
    content: Mapped[str] = mapped_column(Text)
    interrupted: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class QuizSession(Base):
    """A practice thread: questions on one topic, answered one at a time."""

    __tablename__ = "quiz_sessions"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_uuid)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    domain: Mapped[str] = mapped_column(String(100), default="")
    topic: Mapped[str] = mapped_column(String(200), default="")
    lesson_id: Mapped[int | None] = mapped_column(ForeignKey("lessons.id", ondelete="SET NULL"))
    status: Mapped[str] = mapped_column(String(20), default="active")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class QuizQuestion(Base):
    __tablename__ = "quiz_questions"

    id: Mapped[int] = mapped_column(primary_key=True)
    quiz_session_id: Mapped[str] = mapped_column(
        ForeignKey("quiz_sessions.id", ondelete="CASCADE"), index=True
    )
    position: Mapped[int] = mapped_column(Integer, default=0)
    source_id: Mapped[str] = mapped_column(String(200), default="")
    text: Mapped[str] = mapped_column(Text)
    reference_answer: Mapped[str] = mapped_column(Text, default="")
    payload: Mapped[dict[str, Any]] = mapped_column(default=dict)


class QuizAnswer(Base):
    __tablename__ = "quiz_answers"

    id: Mapped[int] = mapped_column(primary_key=True)
    quiz_question_id: Mapped[int] = mapped_column(
        ForeignKey("quiz_questions.id", ondelete="CASCADE"), index=True
    )
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    answer: Mapped[str] = mapped_column(Text)
    score: Mapped[float | None] = mapped_column(Float)
    result: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class ConceptPage(Base):
    __tablename__ = "concept_pages"

    id: Mapped[int] = mapped_column(primary_key=True)
    topic: Mapped[str] = mapped_column(String(200), unique=True)
    body: Mapped[str] = mapped_column(Text)
    lesson_id: Mapped[int | None] = mapped_column(ForeignKey("lessons.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Project(Base):
    __tablename__ = "projects"

    id: Mapped[int] = mapped_column(primary_key=True)
    slug: Mapped[str] = mapped_column(String(200), unique=True)
    title: Mapped[str] = mapped_column(String(300))
    learning_path_id: Mapped[int | None] = mapped_column(
        ForeignKey("learning_paths.id", ondelete="SET NULL")
    )
    vision: Mapped[str] = mapped_column(Text, default="")
    outcomes: Mapped[list[Any]] = mapped_column(default=list)
    challenges: Mapped[list[Any]] = mapped_column(default=list)
    architecture_mermaid: Mapped[str] = mapped_column(Text, default="")
    demo_url: Mapped[str | None] = mapped_column(String(500))
    repo_url: Mapped[str | None] = mapped_column(String(500))


class ConceptMastery(Base):
    """A learner's mastery of one concept, tracked two ways side by side."""

    __tablename__ = "concept_mastery"
    __table_args__ = (UniqueConstraint("user_id", "concept"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    concept: Mapped[str] = mapped_column(String(200))
    wma: Mapped[float] = mapped_column(Float)
    bkt: Mapped[float] = mapped_column(Float)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class ConceptBKTParams(Base):
    """Per-concept BKT parameters refitted from stored answers (`tutorgraph mastery fit`)."""

    __tablename__ = "concept_bkt_params"

    concept: Mapped[str] = mapped_column(String(200), primary_key=True)
    p_init: Mapped[float] = mapped_column(Float)
    p_learn: Mapped[float] = mapped_column(Float)
    p_guess: Mapped[float] = mapped_column(Float)
    p_slip: Mapped[float] = mapped_column(Float)
    p_forget: Mapped[float] = mapped_column(Float, default=0.0)
    observations: Mapped[int] = mapped_column(Integer, default=0)
    fitted_at: Mapped[datetime] = mapped_column(default=utcnow)


class InstructorAlert(Base):
    """Raised when a learner's answer scores below the alert threshold."""

    __tablename__ = "instructor_alerts"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    concept: Mapped[str] = mapped_column(String(200), default="")
    score: Mapped[float] = mapped_column(Float)
    question: Mapped[str] = mapped_column(Text, default="")
    message: Mapped[str] = mapped_column(Text, default="")
    answer: Mapped[str] = mapped_column(Text, default="", server_default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    read_at: Mapped[datetime | None] = mapped_column()  # handled by an instructor
    handled_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))


class EvaluationEvent(Base):
    """A stored EVALUATION_COMPLETED event: the answer history mastery refits learn from."""

    __tablename__ = "evaluation_events"
    __table_args__ = (Index("ix_evaluation_events_concept_user", "concept", "user_id", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    concept: Mapped[str] = mapped_column(String(200), default="")
    score: Mapped[float] = mapped_column(Float)
    decision: Mapped[str] = mapped_column(String(20))
    payload: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # The event row is the path planner's outbox: set once the planner has acted on it.
    planned_at: Mapped[datetime | None] = mapped_column(index=True)


class NextStep(Base):
    """What the path planner decided a learner does next after one graded answer."""

    __tablename__ = "next_steps"
    __table_args__ = (Index("ix_next_steps_user_taken", "user_id", "taken_at", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    # One step per event: a second planner run on the same event fails on this key.
    event_id: Mapped[int] = mapped_column(
        ForeignKey("evaluation_events.id", ondelete="CASCADE"), unique=True
    )
    decision: Mapped[str] = mapped_column(String(20))
    kind: Mapped[str] = mapped_column(String(20))
    title: Mapped[str] = mapped_column(String(300))
    reason: Mapped[str] = mapped_column(Text, default="")
    target: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    taken_at: Mapped[datetime | None] = mapped_column()


class ConceptReview(Base):
    """A learner's FSRS card for one concept: every graded answer on it is a review."""

    __tablename__ = "concept_reviews"
    __table_args__ = (UniqueConstraint("user_id", "concept"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    concept: Mapped[str] = mapped_column(String(200))
    card: Mapped[dict[str, Any]] = mapped_column(default=dict)  # fsrs.Card.to_dict()
    due: Mapped[datetime] = mapped_column(index=True)
    reviews: Mapped[int] = mapped_column(Integer, default=0)
    lapses: Mapped[int] = mapped_column(Integer, default=0)
    last_rating: Mapped[int | None] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class XapiStatement(Base):
    """An xAPI statement waiting for (or delivered to) the configured LRS: the outbox that makes
    sure none is lost. The statement is composed when sent, from `data`; `id` is its statement
    id, derived from what it records, so a second enqueue of the same thing is the same row."""

    __tablename__ = "xapi_statements"
    __table_args__ = (Index("ix_xapi_statements_pending", "sent_at", "next_attempt_at"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    verb: Mapped[str] = mapped_column(String(20))  # answered | mastered | completed
    data: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_error: Mapped[str] = mapped_column(Text, default="")
    sent_at: Mapped[datetime | None] = mapped_column()


class LtiCache(Base):
    """LTI 1.3 launch state (nonces, state, launch data) shared by every API process."""

    __tablename__ = "lti_cache"

    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    value: Mapped[Any] = mapped_column(JSON)
    expires_at: Mapped[datetime] = mapped_column(index=True)


class LtiLink(Base):
    """A learner launched from an LMS into a course: who they are on that platform, and where
    their grade goes back (the AGS claim of the launch)."""

    __tablename__ = "lti_links"
    __table_args__ = (UniqueConstraint("issuer", "client_id", "subject", "resource_link_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    issuer: Mapped[str] = mapped_column(String(255))
    client_id: Mapped[str] = mapped_column(String(255))
    deployment_id: Mapped[str] = mapped_column(String(255))
    subject: Mapped[str] = mapped_column(String(255))
    resource_link_id: Mapped[str] = mapped_column(String(255))
    course_slug: Mapped[str] = mapped_column(String(200))
    ags: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class LtiScore(Base):
    """A grade waiting to go back to the LMS (one pending row per link: the latest score)."""

    __tablename__ = "lti_scores"

    id: Mapped[int] = mapped_column(primary_key=True)
    link_id: Mapped[int] = mapped_column(ForeignKey("lti_links.id", ondelete="CASCADE"), index=True)
    score: Mapped[float] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_error: Mapped[str] = mapped_column(Text, default="")
    sent_at: Mapped[datetime | None] = mapped_column(index=True)


class Assessment(Base):
    """An adaptive skill assessment; its progress lives in the LangGraph thread `thread_id`.
    Terminal assessments (`tutorgraph assess` without `--user`) have no owner."""

    __tablename__ = "assessments"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_uuid)
    user_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), index=True
    )
    domain: Mapped[str] = mapped_column(String(100))
    target_level: Mapped[str] = mapped_column(String(20))
    status: Mapped[str] = mapped_column(String(20), default="in_progress")
    thread_id: Mapped[str] = mapped_column(String(100), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    report: Mapped[dict[str, Any] | None] = mapped_column()


class ConstructorSession(Base):
    """One author's course build: its LangGraph thread id is `id`."""

    __tablename__ = "constructor_sessions"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    title: Mapped[str] = mapped_column(String(300), default="")
    phase: Mapped[str] = mapped_column(String(30), default="collecting")
    # idle | running (a turn is being worked on) | failed (the last turn raised: see error)
    status: Mapped[str] = mapped_column(String(20), default="idle")
    error: Mapped[str] = mapped_column(Text, default="")
    # The turn being worked on (its input or review decision), kept until it finishes.
    pending_turn: Mapped[dict[str, Any] | None] = mapped_column()
    course_slug: Mapped[str | None] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class ConstructorUpload(Base):
    """A file an author uploaded, kept until the build is deleted (ingestion reads it)."""

    __tablename__ = "constructor_uploads"
    __table_args__ = (UniqueConstraint("session_id", "sha256"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    session_id: Mapped[str] = mapped_column(
        ForeignKey("constructor_sessions.id", ondelete="CASCADE"), index=True
    )
    filename: Mapped[str] = mapped_column(String(300))
    size: Mapped[int] = mapped_column(Integer)
    sha256: Mapped[str] = mapped_column(String(64))
    data: Mapped[bytes] = mapped_column(LargeBinary)
    # pending (not read yet) | read | failed
    status: Mapped[str] = mapped_column(String(20), default="pending")
    kind: Mapped[str] = mapped_column(String(20), default="")
    title: Mapped[str] = mapped_column(String(300), default="")
    words: Mapped[int] = mapped_column(Integer, default=0)
    pages: Mapped[int] = mapped_column(Integer, default=0)
    error: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class ConstructorImage(Base):
    """An image extracted from an upload (served with its course once published)."""

    __tablename__ = "constructor_images"

    session_id: Mapped[str] = mapped_column(
        ForeignKey("constructor_sessions.id", ondelete="CASCADE"), primary_key=True
    )
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(300))
    media_type: Mapped[str] = mapped_column(String(100))
    caption: Mapped[str] = mapped_column(Text, default="")
    data: Mapped[bytes] = mapped_column(LargeBinary)


class ConstructorEvent(Base):
    """A progress event of a build, kept so a reloaded page replays what it missed (SSE ids)."""

    __tablename__ = "constructor_events"
    __table_args__ = (Index("ix_constructor_events_session", "session_id", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    session_id: Mapped[str] = mapped_column(
        ForeignKey("constructor_sessions.id", ondelete="CASCADE")
    )
    stage: Mapped[str] = mapped_column(String(40))
    message: Mapped[str] = mapped_column(Text)
    done: Mapped[int] = mapped_column(Integer, default=0)
    total: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class AuthoredDomain(Base):
    """The knowledge-base domain a published course brought (its YAML, validated on load)."""

    __tablename__ = "authored_domains"

    name: Mapped[str] = mapped_column(String(200), primary_key=True)
    learning_path_id: Mapped[int] = mapped_column(
        ForeignKey("learning_paths.id", ondelete="CASCADE"), unique=True
    )
    document: Mapped[str] = mapped_column(Text)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class Resume(Base):
    """A learner's resume: its text and the structure the interviewer read from it. Deleting it
    deletes its interviews."""

    __tablename__ = "resumes"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_uuid)
    user_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), index=True
    )
    filename: Mapped[str] = mapped_column(String(255))
    text: Mapped[str] = mapped_column(Text)
    structured: Mapped[dict[str, Any]] = mapped_column()
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Interview(Base):
    """A mock interview; its progress lives in the LangGraph thread `thread_id`. Terminal
    interviews (`tutorgraph interview`) have no owner."""

    __tablename__ = "interviews"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_uuid)
    user_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), index=True
    )
    resume_id: Mapped[str] = mapped_column(ForeignKey("resumes.id", ondelete="CASCADE"), index=True)
    role: Mapped[str] = mapped_column(String(120))
    level: Mapped[str] = mapped_column(String(20))
    status: Mapped[str] = mapped_column(String(20), default="in_progress")
    thread_id: Mapped[str] = mapped_column(String(100), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    scorecard: Mapped[dict[str, Any] | None] = mapped_column()
