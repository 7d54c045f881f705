"""How counts read in user-facing sentences: "1 gap", "3 gaps", never "3 gap(s)"."""

from __future__ import annotations


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """`number` and the noun in the right number (`plural` when adding "s" is wrong)."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"
