"""Run an answer's code against its question's cases, or read it statically without a sandbox.

`check_code` extracts the code (`extract.py`), refuses what cannot be run (nothing found, a
syntax error, a forbidden import or name, a module the sandbox does not have), runs the fixed
driver (`sandbox_driver.py`) in the bubblewrap sandbox with the answer and the cases on stdin, and
compares each case's reported value with the expected literal here. Without bubblewrap, the
answer is checked statically: it parses, it defines and uses what `requires` names, and it
uses nothing `forbid`den; nothing runs, and the report says so.

Every outcome is a `CodeReport` with one `CaseResult` per case and a message a learner can act
on ("for `nums = [1, 2, 3, 4]` your list is `[1, 9]`; expected `[4, 16]`"); nothing here
raises for a learner's input."""

from __future__ import annotations

import ast
import json
import math
import re
import secrets
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from tutorgraph import sandbox
from tutorgraph.grading.checks.extract import Extracted, extract
from tutorgraph.grading.checks.spec import AnswerChecks, CodeCase
from tutorgraph.text.tokens import words

Problem = Literal["no_code", "fragments", "syntax", "forbidden", "timeout", "crashed"]
FRAGMENT_PROSE_WORDS = 12  # prose around code that defines nothing asked: an explanation
CASE_SECONDS = 2.0  # each case's own alarm (less when many cases share the run's wall clock)
DRIVER = (Path(__file__).parent / "sandbox_driver.py").read_text(encoding="utf-8")
_LIMITS = sandbox.SandboxLimits(cpu_seconds=8, wall_seconds=12.0, max_output_bytes=262144)


@dataclass(frozen=True)
class CaseResult:
    name: str
    passed: bool
    message: str  # for a failed case: what the answer did, against what was expected
    points: tuple[str, ...] = ()


@dataclass(frozen=True)
class CodeReport:
    cases: tuple[CaseResult, ...]
    ran: bool  # False: read statically (no sandbox), or refused before running
    problem: Problem | None = None
    message: str = ""  # the problem, said to the learner
    static_share: float = 0.0  # without a sandbox: share of `requires` met
    duration_ms: int = 0
    extracted: Extracted | None = field(default=None, compare=False)

    @property
    def passed(self) -> int:
        return sum(c.passed for c in self.cases)

    @property
    def share(self) -> float:
        """The share of cases passed; the static share when nothing ran."""
        if not self.ran:
            return self.static_share if self.problem is None else 0.0
        return self.passed / len(self.cases) if self.cases else 0.0


def check_code(
    checks: AnswerChecks, answer: str, *, run: bool = True, question: str = ""
) -> CodeReport:
    """The answer's code against the checks' cases; see the module doc. `run=False` reads it
    statically even when the sandbox is there (used to measure the static path); `question`:
    code in the answer's sentences that only quotes the question's is not the answer's."""
    found = extract(answer, checks.language, question=question)
    if not found.code.strip():
        what = {"python": "code", "sql": "SQL query"}.get(checks.language, f"{checks.language}")
        return _refused(checks, found, "no_code", f"No {what} was found in the answer to run.")
    note = ""
    if checks.language == "python" and _fragments(checks, found):
        message = (
            "Your answer describes the code in words and fragments that do not define "
            f"{_said(_named_definitions(checks)[0])}, so it was read, not run."
        )
        return _refused(checks, found, "fragments", message)
    if checks.language == "python":
        found = _with_bodies(found)
        if (error := _syntax_error(found.code)) is not None:
            return _refused(checks, found, "syntax", f"Your code could not be run: {error}")
        if (used := _forbidden(found.code, checks.forbid)) is not None:
            return _refused(checks, found, "forbidden", used)
        note = _unavailable_module(found.code) or ""
    elif checks.language in ("toml", "json") and (
        (problem := _document_error(checks.language, found.code)) is not None
    ):
        message = f"Your {checks.language} could not be parsed: {problem}"
        return _refused(checks, found, "syntax", message)
    if not run or not sandbox.sandbox_available():
        return _static(checks, found)
    report = _run(checks, found)
    if report.passed < len(report.cases) and _explained_with_pieces(found):
        message = (
            "Your answer explains the fix in sentences with pieces of code that do not run "
            "as a whole, so it was read, not run."
        )
        return _refused(checks, found, "fragments", message)
    if note and report.passed < len(report.cases):  # say why an import may have failed
        return replace(report, message=" ".join(filter(None, (report.message, note))))
    return report


def _explained_with_pieces(found: Extracted) -> bool:
    """Code only in the sentences of an explanation (`rows = list(...)` mid-paragraph) is a
    piece of the fix named in passing: when it fails the cases run alone, the prose is read.
    A code-only answer written inline (three backticked expressions) has no such prose."""
    return found.in_sentences and len(words(found.prose)) >= FRAGMENT_PROSE_WORDS


def _named_definitions(checks: AnswerChecks) -> list[str]:
    return [r for r in checks.requires if r.startswith(("def:", "class:"))]


def _fragments(checks: AnswerChecks, found: Extracted) -> bool:
    """An answer in prose whose code pieces define none of the functions or classes the
    question names (`requires`): a fix described in words, which running cannot judge."""
    named = _named_definitions(checks)
    if not named or len(words(found.prose)) < FRAGMENT_PROSE_WORDS:
        return False
    try:
        defined = _names_used(found.code)[2]
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return not found.fenced
    return not any(item.partition(":")[2] in defined for item in named)


_NO_BODY = re.compile(r"^(\s*)((async\s+)?def\s.*|class\s.*):\s*(#.*)?$")


def _with_bodies(found: Extracted) -> Extracted:
    """A signature written without a body (`def fetch(url, *, timeout=None):`, the answer to
    "design the signature") gets `...`, so it parses and can be called."""
    if _syntax_error(found.code) is None:
        return found
    lines = found.code.splitlines()
    out: list[str] = []
    for i, line in enumerate(lines):
        out.append(line)
        match = _NO_BODY.match(line)
        if match is None:
            continue
        following = next((ln for ln in lines[i + 1 :] if ln.strip()), "")
        indent = len(match.group(1))
        if len(following) - len(following.lstrip()) <= indent:
            out.append(" " * (indent + 4) + "...")
    code = "\n".join(out)
    return replace(found, code=code) if _syntax_error(code) is None else found


def _refused(checks: AnswerChecks, found: Extracted, problem: Problem, message: str) -> CodeReport:
    cases = tuple(CaseResult(c.name, False, message, tuple(c.points)) for c in checks.cases)
    ran = problem not in ("no_code", "fragments", "syntax", "forbidden")
    return CodeReport(cases, ran=ran, problem=problem, message=message, extracted=found)


def _syntax_error(code: str) -> str | None:
    try:
        ast.parse(code)
    except SyntaxError as exc:
        line = (exc.text or "").strip()
        where = f"line {exc.lineno}" + (f" (`{line[:60]}`)" if line else "")
        return f"a syntax error on {where}: {exc.msg}."
    except (ValueError, RecursionError, MemoryError) as exc:
        return f"it could not be parsed ({type(exc).__name__})."
    return None


def _names_used(code: str) -> tuple[set[str], set[str], set[str], set[str]]:
    """(modules imported, names used, functions and classes defined, AST node kinds)."""
    tree = ast.parse(code)
    modules: set[str] = set()
    names: set[str] = set()
    defined: set[str] = set()
    kinds: set[str] = set()
    for node in ast.walk(tree):
        kinds.add(type(node).__name__)
        if isinstance(node, ast.Import):
            modules |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules.add(node.module)
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
    return modules, names, defined, kinds


def _forbidden(code: str, forbid: list[str]) -> str | None:
    modules, names, _, _ = _names_used(code)
    for item in forbid:
        kind, _, name = item.partition(":")
        if kind == "import" and any(m == name or m.startswith(name + ".") for m in modules):
            return f"The answer imports `{name}`, which this question asks you not to use."
        if kind == "name" and name in names:
            return f"The answer uses `{name}`, which this question asks you not to use."
    return None


def _unavailable_module(code: str) -> str | None:
    """A note for a third-party import: answers run with the standard library only (the run
    goes on: the import may be the learner's own module, which a case's setup provides)."""
    modules, _, _, _ = _names_used(code)
    for module in sorted(modules):
        top = module.split(".")[0]
        if top and top not in sys.stdlib_module_names and top != "__future__":
            return (
                f"(The answer imports `{top}`, which is not available here unless the question "
                "provides it: answers run with Python's standard library only.)"
            )
    return None


def _static(checks: AnswerChecks, found: Extracted) -> CodeReport:
    """No sandbox: what `requires` names, looked for in the parsed code; nothing runs."""
    if checks.language != "python":
        share = 1.0 if _document_error(checks.language, found.code) is None else 0.0
        message = "The sandbox is not available, so the document was parsed, not checked."
        return CodeReport(
            _unrun(checks), ran=False, message=message, static_share=share, extracted=found
        )
    modules, names, defined, kinds = _names_used(found.code)
    met = []
    for item in checks.requires:
        kind, _, name = item.partition(":")
        met.append(
            (kind == "def" and name in defined)
            or (kind == "class" and name in defined)
            or (kind == "name" and (name in names or name in defined))
            or (kind == "import" and any(m.split(".")[0] == name for m in modules))
            or (kind == "ast" and name in kinds)
        )
    share = sum(met) / len(met) if met else 0.5
    missing = [item for item, ok in zip(checks.requires, met, strict=True) if not ok]
    message = "The sandbox is not available here, so your code was read, not run"
    message += f"; it does not use {', '.join(_said(m) for m in missing)}." if missing else "."
    return CodeReport(
        _unrun(checks), ran=False, message=message, static_share=share, extracted=found
    )


def _said(item: str) -> str:
    kind, _, name = item.partition(":")
    return {"def": f"a function `{name}`", "class": f"a class `{name}`", "import": f"`{name}`"}.get(
        kind, f"`{name}`"
    )


def _unrun(checks: AnswerChecks) -> tuple[CaseResult, ...]:
    return tuple(CaseResult(c.name, False, "not run", tuple(c.points)) for c in checks.cases)


def _document_error(language: str, text: str) -> str | None:
    """The parser's message when a TOML or JSON document does not parse (parsing runs nothing)."""
    import tomllib

    try:
        tomllib.loads(text) if language == "toml" else json.loads(text)
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        return f"{type(exc).__name__}: {exc}."
    return None


def _run(checks: AnswerChecks, found: Extracted) -> CodeReport:
    mark = f"@@case-{secrets.token_hex(8)}@@"
    seconds = min(CASE_SECONDS, (_LIMITS.wall_seconds - 2) / max(1, len(checks.cases)))
    payload = {
        "mark": mark,
        "language": checks.language,
        "setup": checks.setup,
        "fixture": checks.fixture,
        "code": found.code,
        "seconds": seconds,
        "cases": [
            {"name": c.name, "given": c.given, "expr": c.expr, "args": c.args} for c in checks.cases
        ],
    }
    result = sandbox.run_python(DRIVER, limits=_LIMITS, stdin=json.dumps(payload))
    reported: dict[int, dict[str, Any]] = {}
    for line in result.stdout.splitlines():
        if line.startswith(mark):
            try:
                item = json.loads(line[len(mark) :])
            except json.JSONDecodeError:
                continue
            reported[len(reported)] = item
    cases = []
    for index, case in enumerate(checks.cases):
        item = reported.get(index)
        cases.append(_judge_case(case, item, result.outcome))
    problem: Problem | None = None
    message = ""
    if any(c.message.endswith("did not finish in time.") for c in cases):
        problem, message = "timeout", _TIMEOUT
    elif len(reported) < len(checks.cases):
        problem, message = (
            "crashed",
            "Your code ended the run early (sys.exit, os._exit or a crash).",
        )
    return CodeReport(
        tuple(cases),
        ran=True,
        problem=problem,
        message=message,
        duration_ms=result.duration_ms,
        extracted=found,
    )


_TIMEOUT = "Your code did not finish in time: is there a loop that never ends?"


def _judge_case(case: CodeCase, item: dict[str, Any] | None, outcome: str) -> CaseResult:
    points = tuple(case.points)
    given = f"for `{_one_line(case.given)}` " if case.given.strip() else ""
    if item is None:
        if outcome == "timeout":
            return CaseResult(case.name, False, f"{given}your code did not finish in time.", points)
        return CaseResult(case.name, False, "your code ended the run before this case.", points)
    if item.get("timeout"):
        return CaseResult(case.name, False, f"{given}your code did not finish in time.", points)
    errors = item.get("errors") or []
    if case.raises is not None:
        raised = item.get("raised_mro") or []
        if case.raises in raised:
            return CaseResult(case.name, True, "", points)
        what = f"raised {item['raised']}" if item.get("raised") else "raised nothing"
        return CaseResult(
            case.name, False, f"{given}`{case.expr}` {what}; expected {case.raises}.", points
        )
    assert case.expect is not None
    expected = _canonical(ast.literal_eval(case.expect))
    values = item.get("values") or []
    for value in values:
        if same(value["value"], expected, case.tolerance):
            return CaseResult(case.name, True, "", points)
    # A case read through the question's own helper (`_find(...)`) names the answer, not it.
    private = bool(case.expr and re.match(r"\s*\(?_", case.expr))
    subject = f"`{case.expr}`" if case.expr and not private else "your answer"
    if item.get("error") and not values:
        got = f"raised {item['error']}"
    elif values and (case.expr or _closest(values, expected) is not None):
        closest = _closest(values, expected) or values[-1]
        got = f"is `{closest['repr']}`"
        if (not case.expr or private) and _kind(closest["value"]) == _kind(expected):
            subject = _noun(expected)  # "your list is [1, 9]": a list where one is expected
        elif private:
            got = f"gives `{closest['repr']}`"
    elif errors:
        subject = "your code"
        got = f"raised {errors[0]['error']} (line {errors[0]['line']})"
    else:
        got = "produced no value to compare"
    message = f"{given}{subject} {got}; expected `{_display(case.expect)}`."
    if errors and values and subject != "your code":
        message += f" (Line {errors[0]['line']} raised {errors[0]['error']}.)"
    return CaseResult(case.name, False, message[0].upper() + message[1:], points)


def _one_line(text: str) -> str:
    return "; ".join(line.strip() for line in text.strip().splitlines() if line.strip())


def _display(literal: str) -> str:
    return " ".join(literal.split())


def _noun(expected: Any) -> str:
    kind = expected[0] if isinstance(expected, list) and len(expected) == 2 else None
    return {"L": "your list", "S": "your set", "D": "your dict"}.get(str(kind), "your value")


def _closest(values: list[dict[str, Any]], expected: Any) -> dict[str, Any] | None:
    """The value the answer most likely meant for this case: the first of the expected kind
    (a list for a list), None when none is."""
    kind = _kind(expected)
    return next((v for v in values if _kind(v["value"]) == kind), None)


def _kind(value: Any) -> str:
    if isinstance(value, list) and len(value) == 2 and isinstance(value[0], str):
        return value[0]
    return type(value).__name__


def _canonical(value: Any) -> Any:
    """An expected Python literal in the driver's encoding (sandbox_driver.py's `encode`)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return ["F", value]
    if isinstance(value, (list, tuple)):
        return ["L", [_canonical(v) for v in value]]
    if isinstance(value, (set, frozenset)):
        return ["S", sorted((_canonical(v) for v in value), key=repr)]
    if isinstance(value, dict):
        return ["D", [[_canonical(k), _canonical(v)] for k, v in value.items()]]
    return ["O", repr(value)]


def same(got: Any, expected: Any, tolerance: float = 1e-6) -> bool:
    """Whether a reported value equals an expected one: numbers within `tolerance`, lists and
    tuples item by item, sets and dicts whatever their order."""
    if _number(got) is not None and _number(expected) is not None:
        a, b = _number(got), _number(expected)
        assert a is not None and b is not None
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=tolerance) and (
            isinstance(got, bool) == isinstance(expected, bool)
        )
    if isinstance(got, list) and isinstance(expected, list) and len(got) == len(expected) == 2:
        kind_g, kind_e = got[0], expected[0]
        if kind_g != kind_e or not isinstance(kind_g, str):
            return False
        if kind_g == "L":
            return len(got[1]) == len(expected[1]) and all(
                same(a, b, tolerance) for a, b in zip(got[1], expected[1], strict=True)
            )
        if kind_g == "S":
            return _matched(got[1], expected[1], tolerance)
        if kind_g == "D":
            return _matched([tuple(p) for p in got[1]], [tuple(p) for p in expected[1]], tolerance)
        return bool(got[1] == expected[1])
    return bool(got == expected)


def _matched(got: list[Any], expected: list[Any], tolerance: float) -> bool:
    if len(got) != len(expected):
        return False
    left = list(got)
    for item in expected:
        for k, candidate in enumerate(left):
            pair = isinstance(item, tuple)
            if (
                same(candidate[0], item[0], tolerance) and same(candidate[1], item[1], tolerance)
                if pair
                else same(candidate, item, tolerance)
            ):
                del left[k]
                break
        else:
            return False
    return True


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, list) and len(value) == 2 and value[0] == "F":
        return float(value[1]) if isinstance(value[1], (int, float)) else None
    return None
