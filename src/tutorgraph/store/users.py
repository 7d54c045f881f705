"""User accounts and login-attempt bookkeeping."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from tutorgraph.errors import ConflictError, InputError
from tutorgraph.security import MIN_PASSWORD_LENGTH, hash_password
from tutorgraph.store.models import ROLES, LoginAttempt, User, utcnow


def normalize_email(email: str) -> str:
    return email.strip().lower()


def validate_new_account(*, email: str, password: str, name: str) -> None:
    email = normalize_email(email)
    local, _, domain = email.partition("@")
    if not local or "." not in domain or len(email) > 320 or " " in email:
        raise InputError("email: enter a valid email address")
    if len(password) < MIN_PASSWORD_LENGTH:
        raise InputError(f"password: use at least {MIN_PASSWORD_LENGTH} characters")
    if len(password) > 1024:
        raise InputError("password: use at most 1024 characters")
    if not name.strip() or len(name) > 200:
        raise InputError("name: enter a name of 1 to 200 characters")


def get_user_by_email(*, session: Session, email: str) -> User | None:
    return session.scalar(select(User).where(User.email == normalize_email(email)))


def get_user(*, session: Session, user_id: int) -> User | None:
    return session.get(User, user_id)


def create_user(
    *,
    session: Session,
    email: str,
    name: str,
    password: str | None = None,
    password_hash: str | None = None,
    role: str = "learner",
) -> User:
    """Add a user from a password, or from its hash computed beforehand (outside any
    transaction, so the connection is not held while hashing)."""
    if password_hash is None:
        if password is None:
            raise InputError("password: required")
        validate_new_account(email=email, password=password, name=name)
        password_hash = hash_password(password)
    if role not in ROLES:
        raise InputError(f"role: must be one of {', '.join(ROLES)}")
    if get_user_by_email(session=session, email=email) is not None:
        raise ConflictError("a user with this email already exists")
    user = User(
        email=normalize_email(email),
        name=name.strip(),
        password_hash=password_hash,
        role=role,
    )
    session.add(user)
    session.flush()
    return user


def record_login_attempt(*, session: Session, key: str) -> None:
    session.add(LoginAttempt(key=key))
    session.flush()


def count_recent_attempts(*, session: Session, key: str, window: timedelta) -> int:
    since = utcnow() - window
    session.execute(delete(LoginAttempt).where(LoginAttempt.at < utcnow() - timedelta(hours=1)))
    total = session.scalar(
        select(func.count())
        .select_from(LoginAttempt)
        .where(LoginAttempt.key == key, LoginAttempt.at >= since)
    )
    return int(total or 0)


def clear_login_attempts(*, session: Session, key: str) -> None:
    session.execute(delete(LoginAttempt).where(LoginAttempt.key == key))
