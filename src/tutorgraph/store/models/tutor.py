"""The tutor's conversations: lesson chats, explore chats and the quiz cards shown in them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, ForeignKey, Integer, String, Text, UniqueConstraint, false
from sqlalchemy.orm import Mapped, mapped_column

from tutorgraph.store.models.base import Base, new_uuid, utcnow


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
