"""`tutorgraph calibrate grading` on a tiny set of answers: the table, the results file, and the
parameter file it records (development topics only)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tutorgraph.cli import app
from tutorgraph.grading.parameters import PARAMETERS_PATH, load_grading_parameters
from tutorgraph_bench.calibrate import GridPoint, development_answers, fit_parameter, topic_folds

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = Path(__file__).with_name("fixtures") / "calibrate_answers"
SPLITS = ROOT / "benchmarks" / "splits.yaml"
FITTED = (
    "key_points.full_share",
    "scoring.lexical_share",
    "scoring.misconception_cap",
    "scoring.focus_share",
    "examples.example_share",
)
runner = CliRunner()


def _calibrate(*extra: str) -> str:
    options = ["--answers", str(FIXTURE), "--splits", str(SPLITS), "--folds", "2", *extra]
    result = runner.invoke(app, ["calibrate", "grading", *options])
    assert result.exit_code == 0, result.output
    return result.output


def test_calibrate_reports_a_table_and_records_nothing_without_write(tmp_path: Path) -> None:
    results = tmp_path / "run.json"
    output = _calibrate("--results", str(results))
    # Three development topics, nine answers: the sealed-topic answer is never read.
    assert "3 topics, 9 answers" in output.replace("\n", " ")
    for name in FITTED:
        assert name in output
    assert "Nothing recorded" in output
    run = json.loads(results.read_text(encoding="utf-8"))
    assert sorted(t for fold in run["folds"] for t in fold) == [
        "classes-and-oop",
        "functions-and-scope",
        "model-evaluation",
    ]
    grid = run["parameters"]["key_points.full_share"]["grid"]
    today = load_grading_parameters().values.key_points.full_share
    assert today in [p["value"] for p in grid] and len(grid) >= 5
    assert all(len(p["folds"]) == 2 and 0.0 <= p["mean"] <= 1.0 for p in grid)


def test_calibrate_write_records_values_provenance_and_results(tmp_path: Path) -> None:
    parameters = tmp_path / "parameters.yaml"
    shutil.copy(PARAMETERS_PATH, parameters)
    before = load_grading_parameters(parameters)
    _calibrate("--write", "--parameters", str(parameters))
    after = load_grading_parameters(parameters)
    results = tmp_path / "calibration_runs" / "grading.json"
    run = json.loads(results.read_text(encoding="utf-8"))
    for name in FITTED:
        fit = run["parameters"][name]
        provenance = after.provenance[name]
        assert provenance.cv is not None and provenance.cv.results.endswith("grading.json")
        assert after.values.value(name) == (fit["best"] if fit["adopted"] else fit["current"])
        if fit["decision"] == "keep":  # the provenance stays, with the CV result beside it
            assert provenance.model_copy(update={"cv": None}) == before.provenance[name].model_copy(
                update={"cv": None}
            )
        else:
            assert provenance.source == "fitted" and "to development topics" in provenance.split
    untouched = [n for n in type(before.values).names() if n not in FITTED]
    assert all(after.provenance[n] == before.provenance[n] for n in untouched)
    assert all(after.values.value(n) == before.values.value(n) for n in untouched)


def test_a_value_is_adopted_only_when_its_nested_gain_beats_its_error() -> None:
    today = GridPoint(0.7, (0.90, 0.90, 0.90, 0.90, 0.90))
    # Better on one fold only: chosen without that fold, it gains nothing held out; kept.
    once = fit_parameter(
        "examples.example_share", 0.7, [today, GridPoint(1.0, (0.92,) + (0.9,) * 4)]
    )
    assert once.best == 1.0 and once.decision == "keep" and once.fitted == 0.7
    # Better on every fold: adopted.
    always = fit_parameter("examples.example_share", 0.7, [today, GridPoint(1.0, (0.92,) * 5)])
    assert always.decision == "adopt" and always.fitted == 1.0
    # Worse elsewhere and tied here: today's value, fitted only when it alone is best.
    tied = fit_parameter("examples.example_share", 0.7, [today, GridPoint(0.8, today.folds)])
    assert tied.best == 0.7 and tied.decision == "keep"
    alone = fit_parameter("examples.example_share", 0.7, [today, GridPoint(0.8, (0.8,) * 5)])
    assert alone.decision == "fitted"


def test_folds_group_whole_topics_and_need_enough_of_them() -> None:
    answers = development_answers(SPLITS, FIXTURE).answers
    folds = topic_folds(answers, 3)
    assert sorted(len(f) for f in folds) == [1, 1, 1] and folds == topic_folds(answers, 3)
    with pytest.raises(ValueError, match="4 folds need at least 4 topics"):
        topic_folds(answers, 4)
