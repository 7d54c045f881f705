"""What a new password must be: 8 to 1024 characters, not only spaces, not one of the 30,000
most common passwords (zxcvbn's offline frequency list), and not built from the email."""

from __future__ import annotations

from functools import cache

from tutorgraph.errors import InputError

MIN_PASSWORD_LENGTH = 8
MAX_PASSWORD_LENGTH = 1024
# A local part shorter than this ("al@...") is too common a fragment to forbid in passwords.
MIN_LOCAL_PART_CHECKED = 3


@cache
def _common_passwords() -> frozenset[str]:
    from zxcvbn.frequency_lists import FREQUENCY_LISTS  # type: ignore[import-untyped]

    passwords: list[str] = FREQUENCY_LISTS["passwords"]
    return frozenset(passwords)


def check_password(*, password: str, email: str) -> None:
    """Raise InputError naming the problem when `password` may not be used by `email`."""
    if len(password) < MIN_PASSWORD_LENGTH:
        raise InputError(f"password: use at least {MIN_PASSWORD_LENGTH} characters")
    if len(password) > MAX_PASSWORD_LENGTH:
        raise InputError(f"password: use at most {MAX_PASSWORD_LENGTH} characters")
    if not password.strip():
        raise InputError("password: use more than spaces")
    folded = password.casefold()
    if folded in _common_passwords() or folded.strip() in _common_passwords():
        raise InputError("password: this is one of the most common passwords; choose another")
    email = email.strip().casefold()
    local = email.partition("@")[0]
    if (email and email in folded) or (len(local) >= MIN_LOCAL_PART_CHECKED and local in folded):
        raise InputError("password: do not build it from your email address")
