"""The xAPI outbox."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from tutorgraph.store.models.base import Base, utcnow


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
