"""Quiz cards leave the server without their answer. A tutor reply carries each card as a
`<quiz>{json}</quiz>` block whose JSON holds `correct_index` and `explanation`; the model
streams it in pieces. `QuizStream` passes the reply's text through as it comes, holds a block
back from its opening tag to its closing one, hands the parsed card to `register` (which keeps
the answer server-side and returns the card's id) and emits the card's public form instead:
id, question and options only. A block that never closes, or that is not a valid card, is
dropped: what is left of it could give the answer away."""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable

from pydantic import ValidationError

from tutorgraph.tutor.blocks import QuizBlock

log = logging.getLogger(__name__)

OPEN = "<quiz>"
CLOSE = "</quiz>"

Register = Callable[[QuizBlock], Awaitable[str]]


def public_block(card_id: str, block: QuizBlock) -> str:
    """The card as the learner may see it before answering."""
    shown = {"id": card_id, "question": block.question, "options": block.options}
    return f"{OPEN}{json.dumps(shown, ensure_ascii=False)}{CLOSE}"


class QuizStream:
    """Filters one reply's text deltas (see the module docstring)."""

    def __init__(self, register: Register) -> None:
        self._register = register
        self._held = ""

    async def feed(self, delta: str) -> str:
        """The text that can go out now."""
        text = self._held + delta
        self._held = ""
        out: list[str] = []
        while text:
            start = text.find(OPEN)
            if start < 0:
                keep = _partial_tag(text)
                out.append(text[: len(text) - keep])
                self._held = text[len(text) - keep :]
                break
            out.append(text[:start])
            end = text.find(CLOSE, start + len(OPEN))
            if end < 0:
                self._held = text[start:]
                break
            out.append(await self._card(text[start + len(OPEN) : end]))
            text = text[end + len(CLOSE) :]
        return "".join(out)

    def close(self) -> str:
        """What was held back at the end of the reply: an unfinished card is dropped."""
        held, self._held = self._held, ""
        if held.startswith(OPEN):
            log.info("a quiz card was cut off mid-stream and dropped")
            return ""
        return held

    async def _card(self, body: str) -> str:
        try:
            block = QuizBlock.model_validate_json(body.strip())
        except ValidationError:
            log.info("an invalid quiz card was dropped from a tutor reply")
            return ""
        return public_block(await self._register(block), block)


def _partial_tag(text: str) -> int:
    """How many characters at the end of `text` could be the start of an opening tag."""
    for size in range(min(len(OPEN) - 1, len(text)), 0, -1):
        if OPEN.startswith(text[-size:]):
            return size
    return 0
