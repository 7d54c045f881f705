"""Results of evaluation runs: saved and read as JSON, compared side by side, and written as a
self-contained HTML report with per-criterion bar charts (inline SVG, no scripts)."""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from tutorgraph.errors import InputError
from tutorgraph.evals.harness import RunResult
from tutorgraph.evals.judges import ALIGNMENT_CRITERIA, OUTCOME_CRITERIA
from tutorgraph.wording import counted


def save(result: RunResult, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(result.model_dump_json(indent=1), encoding="utf-8")


def load(path: Path) -> RunResult:
    try:
        return RunResult.model_validate_json(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"{path}: cannot read it ({exc.strerror})") from exc
    except ValidationError as exc:
        problems = counted(exc.error_count(), "problem")
        raise InputError(f"{path}: not an evaluation result ({problems})") from exc


def _pct(value: object) -> str:
    if isinstance(value, float):
        return "n/a" if value != value else f"{value:.0%}"  # NaN: nothing to rate
    return str(value)


def comparison_rows(results: Sequence[RunResult]) -> list[list[str]]:
    """Rows of a side-by-side table: headline rates, each check, each judge criterion."""
    summaries = [r.summary() for r in results]
    rows = [["", *(r.label for r in results)]]
    rows.append(["engine / model", *(f"{r.engine} / {r.model}" for r in results)])
    for key, name in (
        ("scenarios", "scenarios"),
        ("layers_0_1_pass_rate", "layers 0-1 pass rate (scenarios)"),
        ("expectations_pass_rate", "all expectations met (scenarios)"),
        ("pedagogy_pass_rate", "pedagogy pass rate (scenarios where a check applied)"),
        ("pedagogy_scenarios", "scenarios where a pedagogy check applied"),
        ("expectations_passed", "expectations passed"),
        ("behaviour_checks_passed", "layer 0 checks passed"),
        ("format_checks_passed", "layer 1 format checks passed"),
        ("pedagogy_checks_passed", "pedagogy checks passed"),
        ("errors", "scenarios with an error"),
    ):
        rows.append([name, *(_pct(s[key]) for s in summaries)])
    checks = sorted({name for r in results for name in r.by_check()})
    for name in checks:
        cells = []
        for r in results:
            passed, total = r.by_check().get(name, (0, 0))
            cells.append(f"{passed}/{total}" if total else "-")
        rows.append([f"check `{name}`", *cells])
    for criterion in (*ALIGNMENT_CRITERIA, *OUTCOME_CRITERIA):
        cells = []
        for s in summaries:
            mean = s["judge_means"].get(criterion)
            cells.append(f"{mean:.2f} / 5" if mean is not None else "not scored")
        rows.append([f"judge `{criterion}`", *cells])
    return rows


def markdown_table(rows: list[list[str]]) -> str:
    head, *body = rows
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(row) + " |" for row in body]
    return "\n".join(lines)


def _bar(label: str, value: float | None, *, scale: float, unit: str) -> str:
    width = 0 if value is None else max(1, int(260 * value / scale))
    shown = "not scored" if value is None else f"{value:.2f}{unit}"
    return (
        f'<div class="row"><span class="label">{html.escape(label)}</span>'
        f'<svg width="270" height="14" role="img" aria-label="{html.escape(shown)}">'
        f'<rect width="{width}" height="14" fill="#3b5bdb"></rect></svg>'
        f'<span class="value">{html.escape(shown)}</span></div>'
    )


def html_report(results: Sequence[RunResult]) -> str:
    """One page: the comparison table, then per run its expectation checks and judge criteria as
    bars, then each scenario's failed checks and transcript."""
    parts = [
        "<!doctype html><html lang='en'><meta charset='utf-8'>",
        "<title>tutorgraph evaluation report</title>",
        "<style>body{font:14px system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
        "table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}"
        ".row{display:flex;gap:8px;align-items:center}.label{width:260px}"
        "details{margin:.4em 0}pre{white-space:pre-wrap;background:#f6f6f6;padding:.5em}"
        ".fail{color:#b00}.pass{color:#070}</style>",
        "<h1>Tutor evaluation</h1>",
    ]
    rows = comparison_rows(results)
    parts.append("<table>")
    for i, row in enumerate(rows):
        tag = "th" if i == 0 else "td"
        parts.append("<tr>" + "".join(f"<{tag}>{html.escape(c)}</{tag}>" for c in row) + "</tr>")
    parts.append("</table>")
    for result in results:
        summary = result.summary()
        parts.append(f"<h2>{html.escape(result.label)}</h2>")
        parts.append("<h3>Expectation checks (share passed)</h3>")
        for name, (passed, total) in result.by_check().items():
            parts.append(_bar(name, passed / total, scale=1.0, unit=""))
        parts.append("<h3>Judges (mean score, 1-5)</h3>")
        for criterion in (*ALIGNMENT_CRITERIA, *OUTCOME_CRITERIA):
            parts.append(
                _bar(criterion, summary["judge_means"].get(criterion), scale=5.0, unit=" / 5")
            )
        parts.append("<h3>Scenarios</h3>")
        for scenario in result.scenarios:
            failed = [
                c
                for c in (*scenario.expectations, *scenario.format_checks, *scenario.pedagogy)
                if not c.passed
            ]
            mark = "pass" if not failed and scenario.error is None else "fail"
            parts.append(
                f"<details><summary class='{mark}'>{html.escape(scenario.id)} "
                f"({scenario.persona}, {scenario.mode}): {mark}</summary>"
            )
            if scenario.error:
                parts.append(f"<p class='fail'>error: {html.escape(scenario.error)}</p>")
            for check in failed:
                parts.append(
                    f"<p class='fail'>turn {check.turn}: {html.escape(check.name)} "
                    f"{html.escape(check.detail)}</p>"
                )
            for number, turn in enumerate(scenario.transcript.get("turns", []), start=1):
                tools = ", ".join(t["name"] for t in turn.get("tools", []))
                parts.append(
                    f"<p><b>[{number}] learner:</b> {html.escape(turn['learner'])}</p>"
                    f"<p><i>tools: {html.escape(tools or 'none')}</i></p>"
                    f"<pre>{html.escape(turn['reply'])}</pre>"
                )
            parts.append("</details>")
    parts.append("</html>")
    return "\n".join(parts)
