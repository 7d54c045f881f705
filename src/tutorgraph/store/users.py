"""User accounts, revoked tokens and rate-limit bookkeeping."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from tutorgraph.errors import ConflictError, InputError
from tutorgraph.password_policy import check_password
from tutorgraph.security import hash_password
from tutorgraph.store.models import ROLES, LoginAttempt, RevokedToken, User, utcnow

# Attempts older than this are deleted: no rate-limit window may be longer.
ATTEMPT_RETENTION = timedelta(hours=1)


def normalize_email(email: str) -> str:
    return email.strip().lower()


def check_email(email: str) -> None:
    """Raise InputError naming the problem unless `email` (normalized) is an address that can
    exist: email-validator's syntax rules (no control, bidirectional or other unsafe characters;
    a domain with a period; not a special-use name such as .test or .local). No DNS lookup."""
    from email_validator import EmailNotValidError, validate_email

    try:
        validate_email(email, check_deliverability=False)
    except EmailNotValidError as exc:
        reason = str(exc).rstrip(".")
        reason = reason[:1].lower() + reason[1:]
        raise InputError(f"email: enter a valid email address ({reason})") from None


def validate_new_account(*, email: str, password: str, name: str) -> None:
    email = normalize_email(email)
    check_email(email)
    if not name.strip() or len(name) > 200:
        raise InputError("name: enter a name of 1 to 200 characters")
    check_password(password=password, email=email)


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


def set_password(*, session: Session, user: User, password: str) -> None:
    """Change the password (under the password policy) and revoke every earlier token."""
    check_password(password=password, email=user.email)
    set_password_hash(session=session, user=user, password_hash=hash_password(password))


def set_password_hash(*, session: Session, user: User, password_hash: str) -> None:
    """Store a new password's hash (checked and computed beforehand, outside any transaction)
    and revoke every earlier token."""
    user.password_hash = password_hash
    user.token_version += 1
    session.flush()


def revoke_token(*, session: Session, token_id: str, expires_at: datetime) -> None:
    """Deny a token until it expires (then the row is pruned: the signature check refuses it)."""
    session.execute(delete(RevokedToken).where(RevokedToken.expires_at < utcnow()))
    if session.get(RevokedToken, token_id) is not None:
        return
    try:
        with session.begin_nested():
            session.add(RevokedToken(token_id=token_id, expires_at=expires_at))
    except IntegrityError:
        pass  # the same token logged out twice at once


def is_token_revoked(*, session: Session, token_id: str) -> bool:
    return session.get(RevokedToken, token_id) is not None


def record_login_attempt(*, session: Session, key: str) -> int:
    """Count one attempt under `key`; returns its id (see `forget_login_attempts`)."""
    attempt = LoginAttempt(key=key)
    session.add(attempt)
    session.flush()
    return attempt.id


def forget_login_attempts(*, session: Session, ids: list[int]) -> None:
    session.execute(delete(LoginAttempt).where(LoginAttempt.id.in_(ids)))


def count_recent_attempts(*, session: Session, key: str, window: timedelta) -> int:
    since = utcnow() - window
    if window > ATTEMPT_RETENTION:
        raise ValueError(f"rate-limit windows are at most {ATTEMPT_RETENTION}")
    session.execute(delete(LoginAttempt).where(LoginAttempt.at < utcnow() - ATTEMPT_RETENTION))
    total = session.scalar(
        select(func.count())
        .select_from(LoginAttempt)
        .where(LoginAttempt.key == key, LoginAttempt.at >= since)
    )
    return int(total or 0)


def clear_login_attempts(*, session: Session, key: str) -> None:
    session.execute(delete(LoginAttempt).where(LoginAttempt.key == key))
