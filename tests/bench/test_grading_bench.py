"""The grading benchmark on tiny synthetic CSVs (the real data run is a benchmark, not a test)."""

from __future__ import annotations

import csv
from pathlib import Path

from typer.testing import CliRunner

from tutorgraph.cli import app
from tutorgraph.grading.calibration import DEFAULT_PATH, load_default
from tutorgraph.grading.types import GradingRequest, RubricScores, Verdict
from tutorgraph_bench.grading import markdown, run_grading_benchmark

QUESTION = "Why does the bulb go out when the switch is opened?"
REFERENCE = "Opening the switch breaks the circuit so no current flows through the bulb."
RIGHT = [
    "The circuit is broken so current cannot flow to the bulb.",
    "Opening it breaks the circuit and current stops flowing through the bulb.",
    "No current flows because the circuit is broken.",
]
WRONG = [
    "The bulb is tired.",
    "Because the battery is heavy.",
    "The switch makes light go away by magic.",
]
SEMEVAL_HEADER = [
    "corpus",
    "split",
    "question_id",
    "module",
    "question",
    "reference_answer_best",
    "reference_answers_all",
    "student_answer_id",
    "student_answer",
    "label_2way",
]


def write_semeval(path: Path) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(SEMEVAL_HEADER)
        for split in ("train", "test_ua"):
            for i, (answer, label) in enumerate(
                [(a, "correct") for a in RIGHT] + [(a, "incorrect") for a in WRONG]
            ):
                references = f"{REFERENCE} ||| The open switch stops the current."
                row = ["sciEntsBank", split, "Q1", "EM", QUESTION, REFERENCE, references]
                writer.writerow([*row, f"{split}.{i}", answer, label])
    return path


def write_saf(path: Path) -> Path:
    header = ["language", "split", "question_file", "question_id", "module", "question"]
    header += ["reference_answer", "student_answer_id", "student_answer", "score"]
    header += ["verification_label", "feedback"]
    graded = [(RIGHT[0], 1.0, "Correct"), (RIGHT[2], 0.5, "Partially correct")]
    graded += [(WRONG[0], 0.0, "Incorrect"), (WRONG[1], 0.0, "Incorrect")]
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        for split in ("training", "unseen_answers"):
            for i, (answer, score, label) in enumerate(graded):
                row = ["english", split, "1.1_EM.xml", "1.1", "EM", QUESTION, REFERENCE]
                writer.writerow([*row, f"{split}.{i}", answer, score, label, "ok"])
    return path


def keyword_judge(request: GradingRequest) -> Verdict:
    """A stand-in for the LLM judge: any callable GradingRequest -> Verdict plugs in."""
    right = "circuit" in request.answer.lower()
    value = 1.0 if right else 0.0
    rubric = RubricScores(correctness=value, completeness=value, clarity=value)
    return Verdict(score=rubric.score, rubric=rubric, grader="llm")


def test_semeval_protocol_with_the_offline_grader(tmp_path: Path) -> None:
    result = run_grading_benchmark("semeval", write_semeval(tmp_path / "semeval.csv"))
    (row,) = result.two_way
    assert (row.subset, row.split, row.n) == ("sciEntsBank", "test_ua", 6)
    assert row.accuracy == 1.0 and row.macro_f1 == 1.0
    assert result.quality is not None and result.quality.consistency == 0.0
    text = markdown(result, "tutorgraph bench grading --dataset semeval")
    # accuracy with its Wilson interval (6 of 6 right), macro-F1 with its bootstrap interval
    assert "| sciEntsBank | unseen answers | 6 | 1.000 [0.610, 1.000] | 1.000 [1.000, 1.000] |" in (
        text
    )
    assert "tutorgraph bench grading --dataset semeval" in text
    # 0 by construction for the offline grader: said once, never offered as a target met
    assert "| consistency:" not in text and "| position bias:" not in text
    assert "so both are 0 by construction" in text


def test_a_model_judge_is_held_to_consistency_and_position_bias(tmp_path: Path) -> None:
    path = write_semeval(tmp_path / "semeval.csv")
    result = run_grading_benchmark("semeval", path, grader=keyword_judge, grader_name="judge")
    text = markdown(result, "tutorgraph bench grading --dataset semeval")
    assert result.quality is not None and not result.quality.deterministic
    assert "| consistency: mean std of the score over 3 runs" in text
    assert "| position bias:" in text and "by construction" not in text


def test_a_plugged_in_grader_is_measured_instead(tmp_path: Path) -> None:
    path = write_semeval(tmp_path / "semeval.csv")
    result = run_grading_benchmark("semeval", path, grader=keyword_judge, grader_name="judge")
    assert result.grader == "judge"
    assert result.two_way[0].accuracy == 1.0


def test_saf_protocol_and_fit_write_their_own_calibration(tmp_path: Path) -> None:
    shipped = DEFAULT_PATH.read_bytes()
    target = tmp_path / "calibration.json"
    result = run_grading_benchmark(
        "saf", write_saf(tmp_path / "saf.csv"), fit=True, calibration_path=target
    )
    assert DEFAULT_PATH.read_bytes() == shipped  # --fit never touched the shipped file here
    fitted = load_default(target)
    assert "SAF english training" in fitted.fitted_on and fitted.label_thresholds is not None
    (row,) = result.scored
    assert row.split == "unseen_answers" and row.n == 4
    assert row.pearson > 0.8 and row.macro_f1 == 1.0


def test_the_cli_writes_its_section(tmp_path: Path) -> None:
    data, out = write_semeval(tmp_path / "semeval.csv"), tmp_path / "BENCH.md"
    args = ["bench", "grading", "--dataset", "semeval", "--data", str(data), "--out", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "sciEntsBank test_ua: accuracy 1.000" in result.output
    text = out.read_text(encoding="utf-8")
    assert "<!-- bench:grading-semeval -->" in text and f"--data {data}" in text


def test_test_split_labels_never_reach_the_calibration(tmp_path: Path) -> None:
    """Fitting reads the train split only: flipping every test label changes nothing fitted."""
    from dataclasses import replace

    from tutorgraph_bench._grading_data import load_items
    from tutorgraph_bench.grading import fit_from_items

    items = load_items("semeval", write_semeval(tmp_path / "semeval.csv"))
    flipped = [
        replace(
            i,
            target=1.0 - i.target,
            label="incorrect" if i.label == "correct" else "correct",
        )
        if i.split != "train"
        else i
        for i in items
    ]
    assert any(i.split != "train" for i in items)
    assert fit_from_items("semeval", items) == fit_from_items("semeval", flipped)
    # ...while the train labels do matter (the test above would pass on a constant fit).
    train_flipped = [replace(i, target=1.0 - i.target) if i.split == "train" else i for i in items]
    assert fit_from_items("semeval", items) != fit_from_items("semeval", train_flipped)
