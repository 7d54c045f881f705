"""Adaptive skill assessments."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from tutorgraph.store.models.base import Base, new_uuid, utcnow


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
