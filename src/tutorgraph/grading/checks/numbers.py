"""Worked answers: the learner's numbers, compared with the values the computation arrives at.

`read_numbers` finds every number an answer writes, in order: integers and decimals with
thousands separators (`1,024`), signs (including the Unicode minus), scientific notation
(`1.5e-3`, `3 x 10^-4`), integer powers (`2^20`, `2**20`; `0.95^20` is read as its two
operands, since the learner writes the value it comes to beside it), fractions (`2/3`, read as
the fraction and as its two numbers), percentages (`80%`, read as 0.8: `0.0024%` is not
0.24%) and magnitude
suffixes written on the number (`124M`, `1.5B`, `4k`; not `524,288 B`, bytes) or as words
(`7 billion`). `check_numbers` then credits each check whose values all appear within its
tolerance (in any order: a learner may list the weights before the scores), names the slip of
a check the answer misses when the slip's values appear instead, and credits the method
(the intermediate checks met) even when the final value is wrong."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tutorgraph.grading.checks.spec import NumberCheck

_SUFFIX = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}
_WORD = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_NUMBER = re.compile(
    r"(?<![\w.])(?P<sign>[-−–]\s?)?"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d*|\.\d+|\d+)"
    r"(?:\s*(?:[eE](?P<exp>[-+−]?\d+)|\s*[x×*]\s*10\s*\^\s*(?P<exp10>[-+−]?\d+)))?"
    r"(?:\s*(?:\^|\*\*)\s*(?P<power>[-+−]?\d+))?"
    r"(?:\s*/\s*(?P<den>\d+(?:\.\d+)?)(?![\d.]))?"
    r"(?P<pct>\s*%)?"
    r"(?:(?P<suffix>[kKmMbBgGtT])(?![\w])|[ \t]+(?P<word>thousand|million|billion|trillion)\b)?"
)


def read_numbers(text: str) -> list[float]:
    """Every number the text writes, in order (see the module doc); a fraction or percentage
    adds both readings."""
    found: list[float] = []
    for match in _NUMBER.finditer(text):
        raw = match.group("num").replace(",", "")
        try:
            value = float(raw)
        except ValueError:
            continue
        sign = -1.0 if match.group("sign") and not _is_range(text, match.start()) else 1.0
        if match.group("exp") or match.group("exp10"):
            exponent = (match.group("exp") or match.group("exp10")).replace("−", "-")
            value *= 10.0 ** int(exponent)
        if match.group("power"):
            power = int(match.group("power").replace("−", "-"))
            if not value.is_integer() or abs(power) > 64:
                # "0.95^20 = 0.60": an expression the learner evaluated (perhaps wrongly) next
                # to it; its operands are read, not its value.
                found += [sign * value, float(power)]
                continue
            value = value**power
        if match.group("suffix"):
            value *= _SUFFIX[match.group("suffix").lower()]
        if match.group("word"):
            value *= _WORD[match.group("word")]
        if match.group("den"):
            denominator = float(match.group("den"))
            found += [sign * value, denominator]
            if denominator:
                found.append(sign * value / denominator)
            continue
        found.append(sign * value / 100 if match.group("pct") else sign * value)
    return found


def _is_range(text: str, start: int) -> bool:
    """ "1-3" or "pages 10 - 20": a dash after a digit is a range or a subtraction, not a sign."""
    before = text[:start].rstrip()
    return bool(before) and (before[-1].isdigit() or before[-1] in ")]")


@dataclass(frozen=True)
class NumberResult:
    name: str
    met: bool
    slip: str | None  # the slip's `says` when the answer shows a known slip's values instead
    points: tuple[str, ...] = ()
    wrong_method: bool = False  # the mistake found is another computation, not a slip in this


@dataclass(frozen=True)
class NumberReport:
    results: tuple[NumberResult, ...]

    @property
    def share(self) -> float:
        return sum(r.met for r in self.results) / len(self.results) if self.results else 0.0

    @property
    def slips(self) -> list[str]:
        return [r.slip for r in self.results if r.slip]

    @property
    def wrong_method(self) -> bool:
        return any(r.wrong_method for r in self.results)


def check_numbers(checks: list[NumberCheck], answer: str) -> NumberReport:
    """Which checks' values the answer arrives at, and which known slips it shows."""
    numbers = read_numbers(answer)
    results = []
    for check in checks:
        forms = [check.values, *check.also]
        met = any(_all_present(form, numbers, check.tolerance) for form in forms)
        found = None
        if not met:
            found = next(
                (s for s in check.slips if _all_present(s.values, numbers, check.tolerance)), None
            )
        says = found.says if found is not None else None
        wrong = found is not None and found.kind == "wrong method"
        results.append(NumberResult(check.name, met, says, tuple(check.points), wrong))
    return NumberReport(tuple(results))


def _all_present(values: list[float], numbers: list[float], tolerance: float) -> bool:
    """Each value matched by a distinct number of the answer, within the absolute tolerance
    (or a billionth of the value, for large values with none)."""
    left = list(numbers)
    for value in values:
        for k, number in enumerate(left):
            if abs(number - value) <= max(tolerance, 1e-9 * abs(value)):
                del left[k]
                break
        else:
            return False
    return True
