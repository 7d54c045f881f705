"""A checked question's verdict: what ran or was computed decides the points the checks name;
the text grader's verdict decides only what the question asks in prose.

Score, for a question with checks (`request.checks`):

    score = (n_checked x checks + n_prose x prose) / (n_checked + n_prose)

- `checks` is the checks' credit: the share of cases passed (code), of values reached
  (numbers; a value missed through a known slip, the right method with one error, earns
  `checks.slip_credit`; through a known wrong method, nothing); read statically
  (no sandbox), the share of `requires` met, with certainty at most `static_certainty`;
- `n_checked` is the number of required rubric points the checks name (at least 1);
- `prose` is the share of the other required points (not `supporting`) the text grader found
  covered (none when the prose states a known misconception), and `n_prose` their number.
  Supporting points never lower the score, and checks that name only supporting points are
  shown but not counted.

Misconceptions are read in the prose only (the answer without its code, plus its comments):
what code does is judged by running it, so `sorted()` used correctly is never read as the
belief that `list.sort()` returns a list.

An answer without code, or that explains the fix in prose with code fragments defining none of
the functions or classes the question names (`requires`), is not run: the text grader's verdict
stands, with the checks' note that it was read.

Error type below 0.8, first that holds: a misconception stated -> CONCEPTUAL; a syntax error
-> CARELESS; code that did not finish, crashed the run, or uses what it may not -> PROCEDURAL;
a known slip named -> CARELESS; some checks failed -> CARELESS from `careless_from` of them
passed, else PROCEDURAL; every check passed (the prose is missing) -> INCOMPLETE; no code or
numbers at all -> the text grader's type."""

from __future__ import annotations

from dataclasses import dataclass

from tutorgraph.grading.checks.numbers import NumberReport, check_numbers
from tutorgraph.grading.checks.run import CodeReport, check_code
from tutorgraph.grading.checks.spec import AnswerChecks
from tutorgraph.grading.keypoints import stated_misconceptions
from tutorgraph.grading.parameters import CheckParameters, grading_parameters
from tutorgraph.grading.types import (
    ERROR_CLASSIFICATION_BELOW,
    CheckLine,
    ChecksSummary,
    ErrorType,
    GradingRequest,
    RubricScores,
    Verdict,
)


@dataclass(frozen=True)
class Checked:
    """What the checks found for one answer, before the text grader's verdict joins it."""

    summary: ChecksSummary
    prose: str  # the answer without its code (plus the code's comments)
    error_type: ErrorType | None  # what the checks alone say of a failing answer
    attempted: bool  # the answer holds code or numbers to check


def run_checks(
    checks: AnswerChecks,
    answer: str,
    *,
    run: bool = True,
    question: str = "",
    parameters: CheckParameters | None = None,
) -> Checked:
    """Run the answer's code against the cases and compare its numbers with the values;
    `question`'s own code, quoted in the answer's sentences, is not the answer's."""
    p = parameters or grading_parameters().checks
    code = check_code(checks, answer, run=run, question=question) if checks.cases else None
    numbers = check_numbers(checks.numbers, answer) if checks.numbers else None
    lines: list[CheckLine] = []
    credit, total = 0.0, 0
    if code is not None:
        share = code.share  # without a run: the static share, spread over the cases
        lines += [
            CheckLine(
                name=c.name,
                passed=c.passed,
                message=c.message,
                credit=1.0 if c.passed else (share if not code.ran else 0.0),
                points=list(c.points),
            )
            for c in code.cases
        ]
        credit += code.share * len(code.cases)
        total += len(code.cases)
    if numbers is not None:
        for r in numbers.results:
            message = r.slip or ("" if r.met else f"your {r.name} is not among your numbers")
            slipped = r.slip is not None and not r.wrong_method
            earned = 1.0 if r.met else (p.slip_credit if slipped else 0.0)
            lines.append(
                CheckLine(
                    name=r.name,
                    passed=r.met,
                    message=message,
                    slip=bool(r.slip),
                    credit=earned,
                    points=list(r.points),
                )
            )
            credit += earned
        total += len(numbers.results)
    kind = "code and numbers" if code and numbers else "code" if code else "numbers"
    share = credit / total if total else 0.0
    summary = ChecksSummary(
        kind=kind,
        ran=code.ran if code is not None else True,
        passed=sum(line.passed for line in lines),
        total=total,
        share=round(min(1.0, share), 4),
        problem=code.problem if code is not None else None,
        message=code.message if code is not None else "",
        lines=lines,
        slips=numbers.slips if numbers is not None else [],
        points=checks.points,
        duration_ms=code.duration_ms if code is not None else 0,
    )
    prose = _prose(answer, code)
    attempted = _attempted(code, numbers)
    return Checked(summary, prose, _error_type(summary, code, numbers, p), attempted)


def _prose(answer: str, code: CodeReport | None) -> str:
    if code is None or code.extracted is None:
        return answer
    return code.extracted.prose


def _attempted(code: CodeReport | None, numbers: NumberReport | None) -> bool:
    if code is not None and code.problem != "no_code":
        return True
    return numbers is not None and any(r.met or r.slip for r in numbers.results)


def _error_type(
    summary: ChecksSummary,
    code: CodeReport | None,
    numbers: NumberReport | None,
    p: CheckParameters,
) -> ErrorType | None:
    if code is not None and code.problem == "syntax":
        return "CARELESS"
    if code is not None and code.problem in ("timeout", "crashed", "forbidden"):
        return "PROCEDURAL"
    if numbers is not None and numbers.wrong_method:
        return "CONCEPTUAL"
    if summary.slips:
        return "CARELESS"
    if summary.passed == summary.total and summary.total:
        return "INCOMPLETE"
    attempted = _attempted(code, numbers)
    if not attempted:
        return None
    return "CARELESS" if summary.share >= p.careless_from else "PROCEDURAL"


_READ_NOT_RUN = ("fragments", "no_code")


def apply_checks(
    request: GradingRequest,
    verdict: Verdict,
    checked: Checked,
    parameters: CheckParameters | None = None,
) -> Verdict:
    """The text grader's verdict turned into the checked question's (see the module doc)."""
    p = parameters or grading_parameters().checks
    assert request.checks is not None
    if checked.summary.problem in _READ_NOT_RUN:  # nothing to run: the text grader reads it
        reasoning = f"{checked.summary.message} Text reading: {verdict.reasoning}"
        return verdict.model_copy(update={"checks": checked.summary, "reasoning": reasoning})
    summary = _without_supporting(checked.summary, set(request.supporting))
    decided = set(summary.points)
    required = request.required_points
    prose_points = [point for point in required if point not in decided]
    n_checked = max(1, sum(point in decided for point in required))
    covered_prose = [point for point in prose_points if point in verdict.covered_key_points]
    misconceptions = _prose_misconceptions(request, verdict, checked)
    if misconceptions:  # the prose stands on a wrong idea: it earns nothing
        covered_prose = []
    prose = len(covered_prose) / len(prose_points) if prose_points else 0.0
    score = (n_checked * summary.share + len(prose_points) * prose) / (
        n_checked + len(prose_points)
    )
    score = round(min(1.0, max(0.0, score)), 4)
    point_credit = _point_credit(summary)
    covered = [pt for pt in request.rubric if pt in decided and point_credit.get(pt, 0.0) >= 1.0]
    covered += [pt for pt in verdict.covered_key_points if pt not in decided and pt not in covered]
    missing = [pt for pt in request.rubric if pt not in covered]
    error: ErrorType | None = None
    if score < ERROR_CLASSIFICATION_BELOW:
        if misconceptions:
            error = "CONCEPTUAL"
        elif checked.error_type is not None and checked.attempted:
            error = checked.error_type
        else:
            error = verdict.error_type or "INCOMPLETE"
    read_only = not summary.ran and summary.problem is None  # no sandbox: read, not run
    certainty = min(verdict.certainty, p.static_certainty) if read_only else verdict.certainty
    if checked.attempted and not read_only:  # what ran (or was refused) decides: it is known
        certainty = max(certainty, 0.8)
    return verdict.model_copy(
        update={
            "score": score,
            "rubric": RubricScores(correctness=score, completeness=score, clarity=score),
            "error_type": error,
            "misconceptions": misconceptions,
            "covered_key_points": covered,
            "missing_key_points": missing,
            "reasoning": _reasoning(summary, prose_points, covered_prose, verdict.reasoning),
            "certainty": round(certainty, 4),
            "checks": summary,
        }
    )


def _without_supporting(summary: ChecksSummary, supporting: set[str]) -> ChecksSummary:
    """The share counted over the checks that demonstrate something the question asks: a check
    naming only supporting points is shown, never counted (a supporting point never costs)."""
    counted = [
        line for line in summary.lines if not (line.points and set(line.points) <= supporting)
    ]
    if len(counted) == len(summary.lines) or not counted:
        return summary
    share = round(sum(line.credit for line in counted) / len(counted), 4)
    return summary.model_copy(update={"share": share})


def _prose_misconceptions(request: GradingRequest, verdict: Verdict, checked: Checked) -> list[str]:
    """A model judge's misconceptions stand; the offline reading's are re-read in the prose."""
    known = {m.id for m in request.misconceptions}
    if verdict.grader == "llm":
        return [m for m in verdict.misconceptions if m in known]
    return stated_misconceptions(checked.prose, request.misconceptions) if checked.prose else []


def _point_credit(summary: ChecksSummary) -> dict[str, float]:
    """Each point the checks name: the share of its cases and values passed."""
    named: dict[str, list[bool]] = {}
    for line in summary.lines:
        for point in line.points:
            named.setdefault(point, []).append(line.passed)
    return {point: sum(flags) / len(flags) for point, flags in named.items()}


def _reasoning(
    summary: ChecksSummary, prose_points: list[str], covered: list[str], text_reasoning: str
) -> str:
    if summary.kind == "numbers":
        head = f"Worked values: {summary.passed} of {summary.total} reached."
    elif summary.ran:
        head = f"Ran in the sandbox: {summary.passed} of {summary.total} cases passed."
    else:
        head = summary.message or "Code read statically; nothing ran."
    if summary.problem and summary.ran:
        head += f" {summary.message}"
    if summary.slips:
        head += f" Slip: {summary.slips[0]}."
    if prose_points:
        head += f" Prose points made: {len(covered)} of {len(prose_points)}."
    return f"{head} Text reading: {text_reasoning}".strip()


def with_checks(request: GradingRequest, verdict: Verdict, *, run: bool = True) -> Verdict:
    """`verdict` (the text grader's) turned into the checked question's when the request has
    checks; unchanged otherwise. Runs the sandbox on this thread: callers on an event loop use
    the evaluator, which runs it in the sandbox pool."""
    if request.checks is None or not request.answer.strip():
        return verdict
    checked = run_checks(request.checks, request.answer, run=run, question=request.question)
    return apply_checks(request, verdict, checked)
