"""Does a text give an answer away? Used by the evaluation checks (`no_reveal`, `reveals`) and at
run time by the offline tutor, which keeps a hint from stating the result the learner wants to
work out themselves.

A numeric answer ("8", "65,536", "36%") is stated when the same number appears as a number of its
own (not inside "64" or "0.8"; "36%" also as 0.36); any other answer when its words appear
together, ignoring case, spacing and markdown."""

from __future__ import annotations

import re

_NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?%?(?![\w])")
_MARKS = re.compile(r"[*_`$\\]")


def numbers(text: str) -> set[float]:
    """The numbers a text states (commas dropped, percentages also as fractions)."""
    found: set[float] = set()
    for raw in _NUMBER.findall(text):
        clean = raw.replace(",", "")
        try:
            if clean.endswith("%"):
                value = float(clean[:-1])
                found |= {value, round(value / 100, 10)}
            else:
                found.add(float(clean))
        except ValueError:
            continue
    return found


def _is_number(answer: str) -> bool:
    return bool(re.fullmatch(r"-?\d[\d,]*(?:\.\d+)?%?", answer.strip()))


def _plain(text: str) -> str:
    return " ".join(_MARKS.sub(" ", text).lower().split())


def states_answer(text: str, answer: str) -> bool:
    """Whether `text` states `answer` (see the module doc)."""
    if _is_number(answer):
        return bool(numbers(answer) & numbers(text))
    wanted = _plain(answer)
    return (
        bool(wanted) and re.search(rf"(?<!\w){re.escape(wanted)}(?!\w)", _plain(text)) is not None
    )


def new_numbers(sentence: str, known: str) -> set[float]:
    """Numbers a sentence states that `known` (the learner's question) does not: a result."""
    return numbers(sentence) - numbers(known)
