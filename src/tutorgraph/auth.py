"""Registering, logging in and out, changing passwords, and resolving a token to its user: the
rules shared by the API and the web pages.

Errors never reveal whether an email exists: registering a taken email answers like a success
(no account is changed, and the password is hashed anyway so both take as long), and a failed
login always says "invalid email or password".

Login rate limit. Only failures count, in a sliding window of `login_failure_window_minutes`,
under two keys with separate thresholds (all kept in the database, so every server process
counts the same):

- failures against one account from one client IP (`login_failures_per_account_per_ip`, small):
  stops guessing one person's password, and locks out only that IP for that account, so
  nobody can lock another person out by typing their email: the owner, from any other IP, still
  logs in;
- failures from one client IP across all accounts (`login_failures_per_ip`, generous): stops
  one IP from spraying guesses over many accounts, while a classroom behind one NAT, whose
  logins mostly succeed, never reaches it.

A successful login clears that account's failures from that IP (not the IP's total, or one
valid account would let an attacker reset it). Guessing one account from many IPs is not
limited per account, because that limit is exactly what would let anyone lock a victim out;
argon2 and the password policy (no common passwords) are the defence there. Registration is
limited to `registrations_per_hour_per_ip` per client IP."""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from sqlalchemy.orm import Session

from tutorgraph.errors import AuthenticationError, InputError, RateLimitedError
from tutorgraph.offload import run_blocking, run_cpu_bound
from tutorgraph.password_policy import check_password
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
REGISTRATION_WINDOW = timedelta(hours=1)

# No step below holds a database connection across a password hash: each database step is its
# own short transaction on a worker thread, and hashing runs under the CPU limiter in between.


async def register(
    *, session: Session, settings: Settings, email: str, password: str, name: str, client: str
) -> User | None:
    """Create a learner account; returns None (and changes nothing) when the email is taken.
    The password is hashed for a new and a taken email alike, so both take as long."""
    # The password's strength estimate takes milliseconds (zxcvbn): off the event loop.
    await run_cpu_bound(
        functools.partial(users.validate_new_account, email=email, password=password, name=name)
    )
    key = f"register:ip:{client}"
    limit = settings.limits.registrations_per_hour_per_ip

    def count() -> None:
        with _unit_of_work(session):  # committed: counts even if creating the account fails
            recent = users.count_recent_attempts(
                session=session, key=key, window=REGISTRATION_WINDOW
            )
            if recent >= limit:
                raise RateLimitedError(
                    "too many registrations from your network; try again in an hour"
                )
            users.record_login_attempt(session=session, key=key)

    await run_blocking(count)
    password_hash = await run_cpu_bound(hash_password, password)

    def store() -> User | None:
        with _unit_of_work(session):
            if users.get_user_by_email(session=session, email=email) is not None:
                log.info("registration for an existing email ignored")
                return None
            return users.create_user(
                session=session, email=email, password_hash=password_hash, name=name
            )

    return await run_blocking(store)


def _failure_keys(*, email: str, client: str) -> tuple[str, str]:
    return f"fail:account:{users.normalize_email(email)}:ip:{client}", f"fail:ip:{client}"


async def login(
    *, session: Session, settings: Settings, email: str, password: str, client: str
) -> tuple[User, str]:
    """Check credentials under the failure limits above; return the user and a token."""
    limits = settings.limits
    window = timedelta(minutes=limits.login_failure_window_minutes)
    account_key, ip_key = _failure_keys(email=email, client=client)

    def attempt() -> tuple[User | None, list[int]]:
        with _unit_of_work(session):
            for key, limit in (
                (account_key, limits.login_failures_per_account_per_ip),
                (ip_key, limits.login_failures_per_ip),
            ):
                if users.count_recent_attempts(session=session, key=key, window=window) >= limit:
                    minutes = limits.login_failure_window_minutes
                    raise RateLimitedError(
                        f"too many failed logins; wait {minutes} minutes and try again"
                    )
            # Counted as a failure before the check and forgotten if it succeeds, so that
            # guesses sent in parallel cannot all pass the limit before any is recorded.
            pending = [
                users.record_login_attempt(session=session, key=key)
                for key in (account_key, ip_key)
            ]
            return users.get_user_by_email(session=session, email=email), pending

    user, pending = await run_blocking(attempt)
    valid = await run_cpu_bound(verify_password, user.password_hash if user else None, password)
    if user is None or not valid or not user.is_active:
        raise AuthenticationError("invalid email or password")

    def succeeded() -> None:
        with _unit_of_work(session):
            users.forget_login_attempts(session=session, ids=pending)
            users.clear_login_attempts(session=session, key=account_key)

    await run_blocking(succeeded)
    return user, _token_for(settings, user)


def token_for_launch(settings: Settings, user: User) -> str:
    """A session token for a user an LTI platform vouched for (a signed, validated launch)."""
    return _token_for(settings, user)


def _token_for(settings: Settings, user: User) -> str:
    return create_access_token(
        settings, user_id=user.id, role=user.role, token_version=user.token_version
    )


def user_for_token(*, session: Session, settings: Settings, token: str) -> User | None:
    """The active user a token names, if its signature is valid, it has not expired, it was
    not logged out, and no password change came after it; otherwise None."""
    try:
        claims = decode_access_token(settings, token)
    except AuthenticationError:
        return None
    user = users.get_user(session=session, user_id=claims.user_id)
    if user is None or not user.is_active or user.token_version != claims.token_version:
        return None
    if users.is_token_revoked(session=session, token_id=claims.token_id):
        return None
    return user


def logout(*, session: Session, settings: Settings, token: str | None) -> None:
    """Revoke the token (if it is a valid one) so a copy of it stops working too."""
    if not token:
        return
    try:
        claims = decode_access_token(settings, token)
    except AuthenticationError:
        return
    users.revoke_token(session=session, token_id=claims.token_id, expires_at=claims.expires_at)


async def change_password(
    *,
    session: Session,
    settings: Settings,
    user_id: int,
    current_password: str,
    new_password: str,
    client: str,
) -> str:
    """Replace the password after checking the current one; every earlier token of the user
    stops working. Returns a fresh token for the caller. Wrong current passwords count as
    failed logins of that account from that client."""
    window = timedelta(minutes=settings.limits.login_failure_window_minutes)
    limit = settings.limits.login_failures_per_account_per_ip

    def load() -> tuple[User, str]:
        with _unit_of_work(session):
            user = users.get_user(session=session, user_id=user_id)
            if user is None:
                raise AuthenticationError("log in first")
            account_key, _ = _failure_keys(email=user.email, client=client)
            if users.count_recent_attempts(session=session, key=account_key, window=window) >= (
                limit
            ):
                raise RateLimitedError("too many wrong passwords; wait and try again")
            return user, account_key

    user, account_key = await run_blocking(load)
    if not await run_cpu_bound(verify_password, user.password_hash, current_password):

        def failed() -> None:
            with _unit_of_work(session):
                users.record_login_attempt(session=session, key=account_key)

        await run_blocking(failed)
        raise InputError("current_password: that is not your current password")
    await run_cpu_bound(functools.partial(check_password, password=new_password, email=user.email))
    new_hash = await run_cpu_bound(hash_password, new_password)

    def store() -> User:
        with _unit_of_work(session):
            fresh = users.get_user(session=session, user_id=user_id)
            assert fresh is not None
            users.set_password_hash(session=session, user=fresh, password_hash=new_hash)
            return fresh

    return _token_for(settings, await run_blocking(store))


@contextmanager
def _unit_of_work(session: Session) -> Iterator[None]:
    """Commit what the block did (or roll it back), releasing the connection either way."""
    try:
        yield
        session.commit()
    except BaseException:
        session.rollback()
        raise
