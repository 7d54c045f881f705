from __future__ import annotations

import csv
import json
from pathlib import Path

from typer.testing import CliRunner

from tutorgraph.cli import app

runner = CliRunner()
REFERENCE = "A list is mutable and a tuple is immutable."


def test_grade_one_answer_as_json() -> None:
    result = runner.invoke(
        app,
        [
            "grade",
            "--question",
            "List vs tuple?",
            "--reference",
            REFERENCE,
            "--answer",
            "Lists are mutable while tuples are immutable.",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    body = json.loads(result.stdout)
    assert body["score"] >= 0.6 and body["decision"] in ("MASTERED", "PROCEED", "ALTERNATE")


def test_batch_grades_rows_keeps_columns_and_reports_bad_lines(tmp_path: Path) -> None:
    source = tmp_path / "in.csv"
    source.write_text(
        "id,question,reference_answer,student_answer\n"
        f"1,List vs tuple?,{REFERENCE},Lists are mutable while tuples are immutable.\n"
        "2,,missing question,whatever\n"
        f"3,List vs tuple?,{REFERENCE},\n"
    )
    out = tmp_path / "out.csv"
    result = runner.invoke(app, ["grade", "--batch", str(source), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "skipped line 3: empty question" in result.output.replace("\n", " ")
    with out.open() as handle:
        rows = list(csv.DictReader(handle))
    assert [r["id"] for r in rows] == ["1", "3"]
    assert set(rows[0]) == {
        "id",
        "question",
        "reference_answer",
        "student_answer",
        "score",
        "error_type",
        "decision",
    }
    assert float(rows[0]["score"]) > float(rows[1]["score"]) == 0.0


def test_batch_without_required_columns_fails_clearly(tmp_path: Path) -> None:
    source = tmp_path / "in.csv"
    source.write_text("q,a\n1,2\n")
    result = runner.invoke(app, ["grade", "--batch", str(source), "--out", str(tmp_path / "o.csv")])
    assert result.exit_code == 2
    assert "missing column(s) question, reference_answer, student_answer" in result.output
