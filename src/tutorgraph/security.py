"""Passwords (argon2) and access tokens (JWT, HS256).

Every token carries a `jti` (so logout can revoke that one token) and the user's `ver` token
version (a password change bumps it, revoking every earlier token); `auth.user_for_token`
checks both."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import jwt
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from tutorgraph.errors import AuthenticationError
from tutorgraph.ids import is_db_id
from tutorgraph.settings import Settings
from tutorgraph.signing_secret import signing_secret

# OWASP's argon2id minimum (19 MiB, 2 passes, 1 lane): ~40 ms of one core, so a burst of
# logins does not take every core. Hashes made with other parameters still verify.
_hasher = PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1)
# A real hash to verify against when the email is unknown, so both paths cost the same.
_DUMMY_HASH = _hasher.hash("tutorgraph-timing-equaliser")


# The hash of an account that cannot log in with a password (LTI launches): no hash matches it.
NO_PASSWORD = "!no-password"


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password_hash: str | None, password: str) -> bool:
    """Check a password; with no hash it still spends the time of a real check."""
    try:
        return _hasher.verify(password_hash or _DUMMY_HASH, password) and password_hash is not None
    except (VerificationError, InvalidHashError):
        return False


@dataclass(frozen=True)
class TokenClaims:
    """What a valid access token says."""

    user_id: int
    token_id: str
    token_version: int
    expires_at: datetime


def create_access_token(settings: Settings, *, user_id: int, role: str, token_version: int) -> str:
    now = datetime.now(UTC)
    claims = {
        "sub": str(user_id),
        "role": role,
        "ver": token_version,
        "jti": secrets.token_urlsafe(16),
        "iat": now,
        "exp": now + timedelta(minutes=settings.access_token_minutes),
    }
    return jwt.encode(claims, signing_secret(settings), algorithm="HS256")


def decode_access_token(settings: Settings, token: str) -> TokenClaims:
    """Return the claims of a well-signed, unexpired token, or raise AuthenticationError."""
    try:
        claims = jwt.decode(
            token,
            signing_secret(settings),
            algorithms=["HS256"],
            options={"require": ["sub", "exp", "iat", "jti", "ver"]},
        )
        result = TokenClaims(
            user_id=int(claims["sub"]),
            token_id=str(claims["jti"]),
            token_version=int(claims["ver"]),
            expires_at=datetime.fromtimestamp(int(claims["exp"]), UTC),
        )
    except (jwt.PyJWTError, ValueError, TypeError) as exc:
        raise AuthenticationError("invalid or expired token") from exc
    if not is_db_id(result.user_id):  # a signed but impossible subject names nobody
        raise AuthenticationError("invalid or expired token")
    return result
