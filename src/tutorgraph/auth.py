"""Registering and logging in: the rules shared by the API and the web pages.

Errors never reveal whether an email exists: registering a taken email answers like a success
(no account is changed), and a failed login always says "invalid email or password"."""

from __future__ import annotations

import logging
from datetime import timedelta

from sqlalchemy.orm import Session

from tutorgraph.errors import AuthenticationError, RateLimitedError
from tutorgraph.security import create_access_token, decode_access_token, verify_password
from tutorgraph.settings import Settings
from tutorgraph.store import users
from tutorgraph.store.models import User

log = logging.getLogger(__name__)
LOGIN_WINDOW = timedelta(minutes=1)


def register(*, session: Session, email: str, password: str, name: str) -> User | None:
    """Create a learner account; returns None (and changes nothing) when the email is taken."""
    users.validate_new_account(email=email, password=password, name=name)
    if users.get_user_by_email(session=session, email=email) is not None:
        log.info("registration for an existing email ignored")
        return None
    return users.create_user(session=session, email=email, password=password, name=name)


def login(
    *, session: Session, settings: Settings, email: str, password: str, client: str
) -> tuple[User, str]:
    """Check credentials under a per-email and per-client rate limit; return user and token."""
    keys = (f"email:{users.normalize_email(email)}", f"client:{client}")
    limit = settings.limits.login_attempts_per_minute
    for key in keys:
        if users.count_recent_attempts(session=session, key=key, window=LOGIN_WINDOW) >= limit:
            raise RateLimitedError("too many login attempts; wait a minute and try again")
    for key in keys:
        users.record_login_attempt(session=session, key=key)
    session.commit()  # the attempt must count even when this login fails
    user = users.get_user_by_email(session=session, email=email)
    valid = verify_password(user.password_hash if user else None, password)
    if user is None or not valid or not user.is_active:
        raise AuthenticationError("invalid email or password")
    users.clear_login_attempts(session=session, key=keys[0])
    return user, create_access_token(settings, user_id=user.id, role=user.role)


def user_for_token(*, session: Session, settings: Settings, token: str) -> User | None:
    """The active user a valid access token names, or None."""
    try:
        user_id = decode_access_token(settings, token)
    except AuthenticationError:
        return None
    user = users.get_user(session=session, user_id=user_id)
    return user if user is not None and user.is_active else None
