"""Registering and logging in: the rules shared by the API and the web pages.

Errors never reveal whether an email exists: registering a taken email answers like a success
(no account is changed), and a failed login always says "invalid email or password"."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from sqlalchemy.orm import Session

from tutorgraph.errors import AuthenticationError, RateLimitedError
from tutorgraph.offload import run_cpu_bound
from tutorgraph.security import (
    create_access_token,
    decode_access_token,
    hash_password,
    verify_password,
)
from tutorgraph.settings import Settings
from tutorgraph.store import users
from tutorgraph.store.models import User

log = logging.getLogger(__name__)
LOGIN_WINDOW = timedelta(minutes=1)


async def register(*, session: Session, email: str, password: str, name: str) -> User | None:
    """Create a learner account; returns None (and changes nothing) when the email is taken.

    The password is hashed before the database is touched, for a new and a taken email alike,
    so no connection waits on the hash and both answers take the same time."""
    users.validate_new_account(email=email, password=password, name=name)
    password_hash = await run_cpu_bound(hash_password, password)

    def store() -> User | None:
        with _unit_of_work(session):
            if users.get_user_by_email(session=session, email=email) is not None:
                log.info("registration for an existing email ignored")
                return None
            return users.create_user(
                session=session, email=email, password_hash=password_hash, name=name
            )

    return await asyncio.to_thread(store)


async def login(
    *, session: Session, settings: Settings, email: str, password: str, client: str
) -> tuple[User, str]:
    """Check credentials under a per-email and per-client rate limit; return user and token.

    Three steps, none holding a connection across the password check: count and record the
    attempt (committed, so it counts even when this login fails), verify the hash, then clear
    the email's attempts on success."""
    keys = (f"email:{users.normalize_email(email)}", f"client:{client}")
    limit = settings.limits.login_attempts_per_minute

    def attempt() -> User | None:
        with _unit_of_work(session):
            for key in keys:
                recent = users.count_recent_attempts(session=session, key=key, window=LOGIN_WINDOW)
                if recent >= limit:
                    raise RateLimitedError("too many login attempts; wait a minute and try again")
            for key in keys:
                users.record_login_attempt(session=session, key=key)
            return users.get_user_by_email(session=session, email=email)

    user = await asyncio.to_thread(attempt)
    valid = await run_cpu_bound(verify_password, user.password_hash if user else None, password)
    if user is None or not valid or not user.is_active:
        raise AuthenticationError("invalid email or password")

    def succeeded() -> None:
        with _unit_of_work(session):
            users.clear_login_attempts(session=session, key=keys[0])

    await asyncio.to_thread(succeeded)
    return user, create_access_token(settings, user_id=user.id, role=user.role)


@contextmanager
def _unit_of_work(session: Session) -> Iterator[None]:
    """Commit what the block did (or roll it back), releasing the connection either way."""
    try:
        yield
        session.commit()
    except BaseException:
        session.rollback()
        raise


def user_for_token(*, session: Session, settings: Settings, token: str) -> User | None:
    """The active user a valid access token names, or None."""
    try:
        user_id = decode_access_token(settings, token)
    except AuthenticationError:
        return None
    user = users.get_user(session=session, user_id=user_id)
    return user if user is not None and user.is_active else None
