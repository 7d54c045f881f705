"""LTI 1.3 as stored: launch state shared by every API process (LtiCache), the links between an
LMS's users and courses here (LtiLink), and grades waiting to go back (LtiScore)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Row, delete, select
from sqlalchemy.orm import Session

from tutorgraph.store.models import LtiCache, LtiLink, LtiScore, User, utcnow

# ---- launch state -------------------------------------------------------------------------------


def cached(session: Session, key: str) -> LtiCache | None:
    return session.get(LtiCache, key)


def cache(session: Session, *, key: str, value: Any, expires_at: datetime) -> None:
    """Keep a value until `expires_at`, dropping every expired one."""
    session.execute(delete(LtiCache).where(LtiCache.expires_at <= utcnow()))
    row = session.get(LtiCache, key)
    if row is None:
        session.add(LtiCache(key=key, value=value, expires_at=expires_at))
    else:
        row.value, row.expires_at = value, expires_at


# ---- launched users and their links -------------------------------------------------------------


def add_user(session: Session, *, email: str, name: str, password_hash: str, role: str) -> User:
    """An account for a user an LMS launched, flushed so its id is known."""
    user = User(email=email, name=name, password_hash=password_hash, role=role)
    session.add(user)
    session.flush()
    return user


def link_of_subject(
    session: Session, *, issuer: str, client_id: str, subject: str
) -> LtiLink | None:
    """A link of the platform's user (any of their resource links)."""
    return session.scalar(
        select(LtiLink).where(
            LtiLink.issuer == issuer, LtiLink.client_id == client_id, LtiLink.subject == subject
        )
    )


def link_of_resource(
    session: Session, *, issuer: str, client_id: str, subject: str, resource_link_id: str
) -> LtiLink | None:
    return session.scalar(
        select(LtiLink).where(
            LtiLink.issuer == issuer,
            LtiLink.client_id == client_id,
            LtiLink.subject == subject,
            LtiLink.resource_link_id == resource_link_id,
        )
    )


def add_link(
    session: Session,
    *,
    user_id: int,
    issuer: str,
    client_id: str,
    subject: str,
    resource_link_id: str,
    deployment_id: str,
    course_slug: str,
) -> LtiLink:
    """Queue a new link (written at the caller's next flush)."""
    link = LtiLink(
        user_id=user_id,
        issuer=issuer,
        client_id=client_id,
        subject=subject,
        resource_link_id=resource_link_id,
        deployment_id=deployment_id,
        course_slug=course_slug,
    )
    session.add(link)
    return link


def links_of(session: Session, user_id: int) -> Sequence[LtiLink]:
    return session.scalars(select(LtiLink).where(LtiLink.user_id == user_id)).all()


# ---- grades going back --------------------------------------------------------------------------


def pending_score(session: Session, link_id: int) -> LtiScore | None:
    """The link's grade not sent yet, if any (there is at most one: the latest)."""
    return session.scalar(
        select(LtiScore).where(LtiScore.link_id == link_id, LtiScore.sent_at.is_(None))
    )


def add_score(session: Session, *, link_id: int, score: float) -> None:
    session.add(LtiScore(link_id=link_id, score=score))


def due_scores(session: Session, *, now: datetime) -> Sequence[Row[LtiScore, LtiLink]]:
    """The unsent grades whose next attempt is due, with their links, oldest first, locked until
    the transaction ends: another process sending at once takes other grades, not these."""
    return session.execute(
        select(LtiScore, LtiLink)
        .join(LtiLink, LtiLink.id == LtiScore.link_id)
        .where(LtiScore.sent_at.is_(None), LtiScore.next_attempt_at <= now)
        .order_by(LtiScore.id)
        .with_for_update(of=LtiScore, skip_locked=True)
    ).all()
