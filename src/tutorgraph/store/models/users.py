"""Accounts, and the bookkeeping of signing in: revoked tokens, rate-limited attempts."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from sqlalchemy import Boolean, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from tutorgraph.store.models.base import Base, utcnow

Role = Literal["learner", "instructor", "admin"]
ROLES: tuple[Role, ...] = ("learner", "instructor", "admin")


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
