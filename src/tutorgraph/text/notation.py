"""Notation that a word tokenizer would cut into a common word and a dropped letter: `pass^k`,
`pass@k`, `x^2`. Each also becomes one token of its own ("pass^k" -> "passhatk"), rare and so
decisive, wherever text is split into words for search or matching (the index, queries, and the
tutor's word overlap)."""

from __future__ import annotations

import re

_NOTATION = re.compile(r"\b([A-Za-z]+)([\^@])\{?([A-Za-z0-9]+)\}?")
_NOTATION_WORD = {"^": "hat", "@": "at"}


def with_notation(text: str) -> str:
    """`text` with a fused token added after each `word^k` / `word@k`."""
    return _NOTATION.sub(
        lambda m: f"{m.group(0)} {m.group(1)}{_NOTATION_WORD[m.group(2)]}{m.group(3)}", text
    )
