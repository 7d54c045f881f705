"""The course builder: an author's build, its uploads, extracted images and progress events."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, Integer, LargeBinary, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from tutorgraph.store.models.base import Base, utcnow


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
