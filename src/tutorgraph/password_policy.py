"""What a new password must be: 8 to 1024 characters, not only spaces, not one of the 30,000
most common passwords (zxcvbn's offline frequency list), not built from the email, and hard to
guess: zxcvbn's estimate at least `MIN_SCORE` (3 of 4, "safely unguessable": about 10^8 guesses
or more, which a stolen argon2 hash makes slow enough). `aaaaaaaa`, `Password1!` and other
patterns, dates and keyboard walks fail; a few uncommon words (`tea and biscuits`) or 9+ random
characters pass. The refusal says what zxcvbn found and what would help."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from tutorgraph.errors import InputError

MIN_PASSWORD_LENGTH = 8
MAX_PASSWORD_LENGTH = 1024
# A local part shorter than this ("al@...") is too common a fragment to forbid in passwords.
MIN_LOCAL_PART_CHECKED = 3
MIN_SCORE = 3
# zxcvbn's own limit: its cost grows steeply with length (a 256-character password takes
# seconds), so a longer password is judged by its first 72 characters.
SCORED_CHARACTERS = 72
DEFAULT_ADVICE = "Add another word or two. Uncommon words are better."


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
    _check_strength(password, email)


def _check_strength(password: str, email: str) -> None:
    from zxcvbn import zxcvbn  # type: ignore[import-untyped]

    # The email's parts count as words an attacker knows ("ada", "example").
    known = [part for part in re.split(r"[@.+_-]", email) if len(part) >= MIN_LOCAL_PART_CHECKED]
    result: dict[str, Any] = zxcvbn(password[:SCORED_CHARACTERS], user_inputs=[email, *known])
    if result["score"] >= MIN_SCORE:
        return
    feedback = result["feedback"]
    advice = " ".join(feedback["suggestions"]) or DEFAULT_ADVICE
    found = f" {feedback['warning']}" if feedback["warning"] else ""
    raise InputError(f"password: too easy to guess.{found} {advice}")
