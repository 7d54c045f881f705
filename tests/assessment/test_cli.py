"""`tutorgraph assess` without a terminal: --answers, --json, --resume, and the errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from tutorgraph.cli import app
from tutorgraph.errors import ConfigurationError

runner = CliRunner()
ARGS = ["assess", "--domain", "machine-learning", "--level", "junior"]


def _upgrade() -> None:
    result = runner.invoke(app, ["db", "upgrade"])
    assert result.exit_code == 0, result.output


def test_answers_file_runs_to_a_json_report_on_stdout(tmp_path: Path) -> None:
    _upgrade()
    answers = tmp_path / "answers.yaml"
    answers.write_text(
        "- I don't know\n- no idea\n- no clue\n- not sure\n- pass\n", encoding="utf-8"
    )
    result = runner.invoke(app, [*ARGS, "--answers", str(answers), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["domain"] == "machine-learning" and report["questions_asked"] == 5
    assert len(report["gaps"]) == 5 and 3 <= len(report["plan"]["phases"]) <= 5
    assert "Supervised learning fundamentals" in result.stderr  # question panels on stderr
    assert "Question 5 · topic 5 of 5" in result.stderr
    assert "at most 20" not in result.stderr


def test_running_out_of_answers_stops_and_resume_finishes(tmp_path: Path) -> None:
    _upgrade()
    first = tmp_path / "first.json"
    first.write_text(json.dumps(["I don't know", "no idea"]), encoding="utf-8")
    result = runner.invoke(app, [*ARGS, "--answers", str(first)])
    assert result.exit_code == 1, result.output
    match = re.search(r"--resume\s+([0-9a-f-]{36})", result.output)
    assert match is not None, result.output
    assert "Question 3 · topic 3 of 5" in result.output

    rest = tmp_path / "rest.json"
    rest.write_text(json.dumps(["no", "no", "no"]), encoding="utf-8")
    result = runner.invoke(app, ["assess", "--resume", match.group(1), "--answers", str(rest)])
    assert result.exit_code == 0, result.output
    assert "Readiness" in result.output and "Learning plan" in result.output
    assert "5 questions answered; 5 topics assessed" in result.output


def test_finish_in_the_answers_ends_with_a_report_on_what_was_answered(tmp_path: Path) -> None:
    _upgrade()
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps(["I don't know", "/finish"]), encoding="utf-8")
    result = runner.invoke(app, [*ARGS, "--answers", str(answers), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["questions_asked"] == 1 and report["finished_early"] is True
    assert report["not_assessed"] and [g["topic_id"] for g in report["gaps"]] == ["ml-fundamentals"]
    assert "Type /finish to finish now" in result.stderr


def test_a_database_without_the_table_is_reported(tmp_path: Path) -> None:
    answers = tmp_path / "a.json"
    answers.write_text("[]", encoding="utf-8")
    result = runner.invoke(app, [*ARGS, "--answers", str(answers)])
    assert isinstance(result.exception, ConfigurationError)
    assert "tutorgraph db upgrade" in result.exception.message


def test_an_answers_file_must_be_a_list(tmp_path: Path) -> None:
    answers = tmp_path / "a.yaml"
    answers.write_text("answer: one\n", encoding="utf-8")
    result = runner.invoke(app, [*ARGS, "--answers", str(answers)])
    assert result.exception is not None and "must hold a list" in str(result.exception)
