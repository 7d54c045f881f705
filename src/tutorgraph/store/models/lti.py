"""LTI 1.3: launch state, the links between LMS users and courses, and grades going back."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Float, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from tutorgraph.store.models.base import Base, utcnow


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
