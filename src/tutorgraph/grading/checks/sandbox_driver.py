"""The program that runs a learner's answer against the cases, inside the sandbox.

Never imported by tutorgraph: `run.py` sends this file's text as the sandbox's script (standard
library only), and the cases and the answer come on stdin as JSON. Expected values never enter
the sandbox: the driver reports each case's value in a canonical JSON form (`encode`) and the
host compares (`run.same`), so an answer cannot read what it should produce. Each case has an
alarm of its own, re-armed every 50 ms so an answer that catches the first one still stops; the
sandbox's wall clock ends the run if that fails too. Each case's result is written as soon as
it is known, after a random mark the answer cannot know, so an answer that ends the process
loses only the cases after it."""

# mypy: ignore-errors
# (a script for the sandbox, kept untyped and dependency-free; tests/grading run it)

import ast
import contextlib
import io
import itertools
import json
import signal
import sys
import traceback


class CaseTimeout(BaseException):
    pass


def _alarm(*_):
    raise CaseTimeout()


def encode(value, depth=0):
    """A value as JSON: scalars as they are, ["F", x] floats, ["L", ...] lists and tuples,
    ["S", ...] sets, ["D", [[k, v], ...]] dicts, ["O", repr] anything else."""
    if depth > 6:
        return ["O", repr(value)[:200]]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return value if abs(value) <= 2**53 else ["F", float(value)]
    if isinstance(value, str):
        return value[:4000]
    if isinstance(value, float):
        finite = value == value and abs(value) != float("inf")
        return ["F", value if finite else repr(value)]
    if isinstance(value, (list, tuple)):
        return ["L", [encode(v, depth + 1) for v in list(value)[:200]]]
    if isinstance(value, (set, frozenset)):
        return ["S", sorted((encode(v, depth + 1) for v in list(value)[:200]), key=repr)]
    if isinstance(value, dict):
        pairs = list(value.items())[:200]
        return ["D", [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in pairs]]
    from decimal import Decimal
    from fractions import Fraction

    if isinstance(value, (Decimal, Fraction)):
        return ["F", float(value)]
    return ["O", short(value)]


def short(value):
    try:
        text = repr(value)
    except BaseException:
        text = "<" + type(value).__name__ + ">"
    return text if len(text) <= 160 else text[:157] + "..."


def error_of(exc):
    lines = traceback.format_exception_only(type(exc), exc)
    return (lines[-1] if lines else type(exc).__name__).strip()[:300]


def run_statements(code, ns, values, errors):
    """Each top-level statement on its own: one that raises is recorded and the next still
    runs; expression statements' values are kept."""
    for node in ast.parse(code).body:
        try:
            if isinstance(node, ast.Expr):
                expression = ast.Expression(node.value)
                values.append(eval(compile(expression, "<answer>", "eval"), ns))
            else:
                exec(compile(ast.Module([node], []), "<answer>", "exec"), ns)
                # `evens = [...]`: a value the answer produced and named is a value too.
                values += [ns[name] for name in assigned_names(node) if name in ns]
        except CaseTimeout:
            raise
        except BaseException as exc:
            errors.append({"line": node.lineno, "error": error_of(exc)})


def assigned_names(node):
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        targets = [node.target]
    else:
        return []
    return [t.id for t in targets if isinstance(t, ast.Name)]


def printed_values(text):
    """What the answer printed, read back as Python literals: the whole output and each line."""
    found = []
    for chunk in [text, *text.splitlines()]:
        chunk = chunk.strip()
        if chunk:
            with contextlib.suppress(ValueError, SyntaxError, TypeError, MemoryError):
                found.append(ast.literal_eval(chunk))
    return found


def functions_of(code, ns):
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef)
    names = [n.name for n in ast.parse(code).body if isinstance(n, kinds)]
    return [ns[n] for n in names if callable(ns.get(n))]


def load_document(language, code, ns, errors, payload):
    try:
        if language == "toml":
            import tomllib

            ns["doc"] = tomllib.loads(code)
        elif language == "json":
            ns["doc"] = json.loads(code)
        elif language == "sql":
            import sqlite3

            conn = sqlite3.connect(":memory:")
            conn.executescript(payload["fixture"])
            ns["conn"] = conn
            ns["rows"] = conn.execute(code.strip().rstrip(";")).fetchall()
    except CaseTimeout:
        raise
    except Exception as exc:
        errors.append({"line": 0, "error": error_of(exc)})


def candidates_of(case, language, code, ns, values, errors, result):
    """The case's values: its `expr`, else the answer's expressions and its functions called
    with `args`."""
    if case.get("expr"):
        try:
            return [eval(case["expr"], ns)]
        except CaseTimeout:
            raise
        except BaseException as exc:
            result["raised"] = type(exc).__name__
            result["raised_mro"] = [c.__name__ for c in type(exc).__mro__]
            result["error"] = error_of(exc)
            return []
    found = list(values) + printed_values(ns.get("output") or "")
    if case.get("args") is not None and language == "python":
        for function in functions_of(code, ns):
            try:
                found.append(eval("_f(" + case["args"] + ")", dict(ns, _f=function)))
            except CaseTimeout:
                raise
            except BaseException as exc:
                errors.append({"line": 0, "error": error_of(exc)})
    return found


def run_case(case, payload):
    language, code = payload["language"], payload["code"]
    ns = {"__name__": "__main__", "__builtins__": __builtins__}
    values, errors, out = [], [], io.StringIO()
    result = {"name": case["name"], "errors": errors}
    signal.setitimer(signal.ITIMER_REAL, payload["seconds"], 0.05)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            exec(payload["setup"], ns)
            exec(case.get("given") or "", ns)
            if language == "python":
                run_statements(code, ns, values, errors)
                functions = functions_of(code, ns)
                if functions:
                    ns["answer"] = functions[-1]
            else:
                load_document(language, code, ns, errors, payload)
            ns["output"] = out.getvalue()
            for value in candidates_of(case, language, code, ns, values, errors, result):
                if hasattr(value, "__next__") and not isinstance(value, (str, bytes)):
                    with contextlib.suppress(Exception):
                        value = list(itertools.islice(value, 200))
                encoded = {"value": encode(value), "repr": short(value)}
                result.setdefault("values", []).append(encoded)
        signal.setitimer(signal.ITIMER_REAL, 0)
    except CaseTimeout:
        signal.setitimer(signal.ITIMER_REAL, 0)
        result["timeout"] = True
    except BaseException as exc:
        signal.setitimer(signal.ITIMER_REAL, 0)
        result["error"] = error_of(exc)
    result["output"] = out.getvalue()[-500:]
    return result


def main():
    signal.signal(signal.SIGALRM, _alarm)
    payload = json.loads(sys.stdin.read())
    sys.stdin = io.StringIO("")
    mark = payload.pop("mark")
    out = sys.stdout
    for case in payload["cases"]:
        try:
            result = run_case(case, payload)
        except BaseException as exc:  # a case that broke out of its own guard
            signal.setitimer(signal.ITIMER_REAL, 0)
            result = {"name": case["name"], "error": error_of(exc), "errors": []}
        out.write(mark + json.dumps(result) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
