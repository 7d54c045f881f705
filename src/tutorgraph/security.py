"""Passwords (argon2) and access tokens (JWT, HS256)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import jwt
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from tutorgraph.errors import AuthenticationError
from tutorgraph.settings import Settings
from tutorgraph.store.ids import is_db_id

_hasher = PasswordHasher()
# A real hash to verify against when the email is unknown, so both paths cost the same.
_DUMMY_HASH = _hasher.hash("tutorgraph-timing-equaliser")

MIN_PASSWORD_LENGTH = 8


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password_hash: str | None, password: str) -> bool:
    """Check a password; with no hash it still spends the time of a real check."""
    try:
        return _hasher.verify(password_hash or _DUMMY_HASH, password) and password_hash is not None
    except (VerificationError, InvalidHashError):
        return False


def create_access_token(settings: Settings, *, user_id: int, role: str) -> str:
    now = datetime.now(UTC)
    claims = {
        "sub": str(user_id),
        "role": role,
        "iat": now,
        "exp": now + timedelta(minutes=settings.access_token_minutes),
    }
    return jwt.encode(claims, settings.jwt_secret.get_secret_value(), algorithm="HS256")


def decode_access_token(settings: Settings, token: str) -> int:
    """Return the user id in a valid token, or raise AuthenticationError."""
    try:
        claims = jwt.decode(
            token,
            settings.jwt_secret.get_secret_value(),
            algorithms=["HS256"],
            options={"require": ["sub", "exp"]},
        )
        user_id = int(claims["sub"])
    except (jwt.PyJWTError, ValueError) as exc:
        raise AuthenticationError("invalid or expired token") from exc
    if not is_db_id(user_id):  # a signed but impossible subject names nobody
        raise AuthenticationError("invalid or expired token")
    return user_id
