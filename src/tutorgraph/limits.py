"""The configurable text limits, checked in one place for the API, the WebSocket and the web
pages alike: an answer longer than `limits.max_answer_chars`, or a chat message longer than
`limits.max_message_chars`, is an InputError (422) that names the field and the limit. A blank
or near-empty answer is refused the same way."""

from __future__ import annotations

from tutorgraph.errors import InputError
from tutorgraph.settings import Settings

MIN_ANSWER_SIGNS = 2


def check_length(*, field: str, text: str, limit: int) -> str:
    if len(text) > limit:
        raise InputError(
            f"{field}: at most {limit} characters (this one has {len(text)}); shorten it and "
            "send it again"
        )
    return text


def check_answer(*, settings: Settings, text: str, field: str = "answer") -> str:
    """An answer (or a question / reference answer given for grading) within the limit."""
    return check_length(field=field, text=text, limit=settings.limits.max_answer_chars)


def require_answer(text: str, *, field: str = "answer") -> str:
    """A learner's answer with something in it: blank or near-empty answers (fewer than two
    letters or digits) are refused, so they are neither graded as 0 nor use up the question."""
    if sum(ch.isalnum() for ch in text) < MIN_ANSWER_SIGNS:
        raise InputError(
            f'{field}: write an answer first (an honest "I don\'t know" is fine); '
            "nothing was graded and the question is still waiting"
        )
    return text


def check_message(*, settings: Settings, text: str, field: str = "message") -> str:
    """A chat message to the tutor within the limit."""
    return check_length(field=field, text=text, limit=settings.limits.max_message_chars)
