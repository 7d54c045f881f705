"""Checks that check: every case and value accepts the question's `solution`, and no case
passes on an answer that does nothing (a check that cannot fail is no check)."""

from __future__ import annotations

from dataclasses import dataclass

from tutorgraph.grading.checks.numbers import check_numbers
from tutorgraph.grading.checks.run import check_code
from tutorgraph.grading.checks.spec import AnswerChecks

_EMPTY = {"python": "```python\npass\n```", "toml": "```toml\n```", "json": "```json\n{}\n```"}
_EMPTY["sql"] = "```sql\nSELECT 1 WHERE 0;\n```"


@dataclass(frozen=True)
class Verification:
    question: str
    problems: list[str]
    ran: bool  # False: the sandbox was not there, so the cases were not run


def verify(question: str, checks: AnswerChecks) -> Verification:
    """Run the solution (and a do-nothing answer) through the checks; the problems found."""
    problems: list[str] = []
    ran = True
    if checks.cases:
        report = check_code(checks, checks.solution)
        ran = report.ran or report.problem is not None
        if report.problem is not None:
            problems.append(f"the solution is refused: {report.message}")
        elif report.ran:
            problems += [
                f"case {c.name!r} fails on the solution: {c.message}"
                for c in report.cases
                if not c.passed
            ]
            empty = check_code(checks, _EMPTY[checks.language])
            problems += [
                f"case {c.name!r} passes on an answer that does nothing: it cannot fail"
                for c in empty.cases
                if c.passed
            ]
    if checks.numbers:
        result = check_numbers(checks.numbers, checks.solution)
        problems += [
            f"value {r.name!r} is not found in the solution" for r in result.results if not r.met
        ]
    return Verification(question, problems, ran)
