"""`tutorgraph interview` without a terminal: a resume file and --answers to a JSON scorecard,
and the errors a newcomer would make."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tests.interview.harness import GOOD
from tests.interview.resumes import RESUME
from tutorgraph.cli import app
from tutorgraph.errors import InputError

runner = CliRunner()


def test_answers_file_runs_to_a_json_scorecard(tmp_path: Path) -> None:
    assert runner.invoke(app, ["db", "upgrade"]).exit_code == 0
    resume = tmp_path / "cv.md"
    resume.write_text(RESUME, encoding="utf-8")
    answers = tmp_path / "answers.yaml"
    answers.write_text(json.dumps([GOOD, "Can we stop here please?"]), encoding="utf-8")
    args = ["interview", "--resume", str(resume), "--answers", str(answers), "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    card = json.loads(result.stdout)
    assert card["ended_because"].startswith("You asked to stop")
    assert "zones" in " ".join(card["communication"]["evidence"])
    assert "Route planner" in result.stderr  # the interviewer's panels go to stderr

    short = tmp_path / "short.yaml"
    short.write_text(json.dumps([GOOD]), encoding="utf-8")  # runs out: the interview ends
    result = runner.invoke(app, [*args[:3], "--answers", str(short)])
    assert result.exit_code == 0 and "no more answers" in result.output
    assert "Scorecard" in result.output


def test_a_missing_or_sectionless_resume_is_one_line(tmp_path: Path) -> None:
    assert runner.invoke(app, ["db", "upgrade"]).exit_code == 0
    result = runner.invoke(app, ["interview", "--resume", str(tmp_path / "nope.pdf")])
    assert isinstance(result.exception, InputError)  # the CLI's entry point prints it in a line
    assert "cannot read" in result.exception.message
    bare = tmp_path / "cv.txt"
    bare.write_text("just a few words about me", encoding="utf-8")
    result = runner.invoke(app, ["interview", "--resume", str(bare)])
    assert isinstance(result.exception, InputError) and "heading" in result.exception.message
