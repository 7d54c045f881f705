"""BKT: the update equations, EM recovering known parameters, one-step prediction, and metrics."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from tutorgraph.cli import app
from tutorgraph.learner_model.bkt import (
    BKTParams,
    posterior,
    predict_correct,
    transition,
    update,
    update_with_score,
)
from tutorgraph.learner_model.bkt_fit import (
    EMOptions,
    fit_all,
    fit_skill,
    fit_skills,
    group_sequences,
    predict_sequences,
)
from tutorgraph_bench.metrics import auc, rmse

SPEC = BKTParams()  # init 0.3, learn 0.1, guess 0.25, slip 0.10, no forgetting


def simulate(params: BKTParams, students: int, steps: int, seed: int) -> list[list[int]]:
    """Answer sequences drawn from a known BKT model."""
    rng = np.random.default_rng(seed)
    known = rng.random(students) < params.p_init
    answers = np.empty((students, steps), dtype=int)
    for t in range(steps):
        answers[:, t] = rng.random(students) < np.where(known, 1 - params.p_slip, params.p_guess)
        draw = rng.random(students)
        known = np.where(known, draw >= params.p_forget, draw < params.p_learn)
    return [[int(x) for x in row] for row in answers]


def test_spec_defaults_and_validation() -> None:
    assert (SPEC.p_init, SPEC.p_learn, SPEC.p_guess, SPEC.p_slip, SPEC.p_forget) == (
        0.3,
        0.1,
        0.25,
        0.10,
        0.0,
    )
    with pytest.raises(ValidationError):
        BKTParams(p_slip=1.2)
    with pytest.raises(ValidationError):
        SPEC.p_learn = 0.5  # type: ignore[misc]
    with pytest.raises(ValueError, match="score"):
        update_with_score(0.3, 1.5, SPEC)
    with pytest.raises(ValueError, match="p_known"):
        update(-0.1, True, SPEC)


def test_update_equations_match_hand_computed_numbers() -> None:
    # correct: 0.3*0.9 / (0.3*0.9 + 0.7*0.25) = 0.27 / 0.445; then + (1 - that) * 0.1
    assert predict_correct(0.3, SPEC) == pytest.approx(0.445)
    assert posterior(0.3, True, SPEC) == pytest.approx(0.27 / 0.445)
    assert update(0.3, True, SPEC) == pytest.approx(0.6460674157)
    # incorrect: 0.3*0.1 / (0.3*0.1 + 0.7*0.75) = 0.03 / 0.555
    assert posterior(0.3, False, SPEC) == pytest.approx(0.03 / 0.555)
    assert update(0.3, False, SPEC) == pytest.approx(0.1486486486)
    forgetful = SPEC.model_copy(update={"p_forget": 0.2})
    assert transition(0.6, forgetful) == pytest.approx(0.6 * 0.8 + 0.4 * 0.1)


@pytest.mark.parametrize("p_known", [0.01, 0.3, 0.5, 0.9, 0.99])
def test_posterior_moves_up_on_correct_and_down_on_incorrect(p_known: float) -> None:
    assert posterior(p_known, True, SPEC) > p_known > posterior(p_known, False, SPEC)


def test_forgetting_lowers_mastery() -> None:
    forgetful = SPEC.model_copy(update={"p_forget": 0.2})
    assert update(0.9, True, forgetful) < update(0.9, True, SPEC)
    assert update(1.0, True, forgetful) == pytest.approx(0.8)  # even a certain master may forget
    assert update(1.0, True, SPEC) == 1.0


def test_graded_score_is_a_mixture_of_the_two_updates() -> None:
    assert update_with_score(0.3, 1.0, SPEC) == pytest.approx(update(0.3, True, SPEC))
    assert update_with_score(0.3, 0.0, SPEC) == pytest.approx(update(0.3, False, SPEC))
    half = 0.5 * (0.27 / 0.445) + 0.5 * (0.03 / 0.555)
    assert update_with_score(0.3, 0.5, SPEC) == pytest.approx(half + (1 - half) * 0.1)
    scores = [update_with_score(0.3, s, SPEC) for s in (0.0, 0.25, 0.5, 0.75, 1.0)]
    assert scores == sorted(scores)


def test_em_recovers_the_parameters_that_generated_the_data() -> None:
    truth = BKTParams(p_init=0.4, p_learn=0.15, p_guess=0.2, p_slip=0.1)
    fitted = fit_skill(simulate(truth, students=800, steps=25, seed=7))
    assert fitted.p_init == pytest.approx(truth.p_init, abs=0.06)
    assert fitted.p_learn == pytest.approx(truth.p_learn, abs=0.03)
    assert fitted.p_guess == pytest.approx(truth.p_guess, abs=0.03)
    assert fitted.p_slip == pytest.approx(truth.p_slip, abs=0.02)
    assert fitted.p_forget == 0.0


def test_em_with_forgetting_recovers_the_forgetting_rate() -> None:
    truth = BKTParams(p_init=0.4, p_learn=0.2, p_guess=0.2, p_slip=0.1, p_forget=0.05)
    fitted = fit_skill(simulate(truth, students=500, steps=30, seed=11), forgetting=True)
    assert fitted.p_forget == pytest.approx(truth.p_forget, abs=0.02)
    assert fitted.p_learn == pytest.approx(truth.p_learn, abs=0.04)
    assert fitted.p_guess == pytest.approx(truth.p_guess, abs=0.03)
    assert fitted.p_slip == pytest.approx(truth.p_slip, abs=0.02)


def test_skills_fitted_together_equal_skills_fitted_alone_and_are_seeded() -> None:
    easy = simulate(BKTParams(p_init=0.6, p_learn=0.2, p_guess=0.3, p_slip=0.05), 60, 12, 1)
    hard = simulate(BKTParams(p_init=0.1, p_learn=0.05, p_guess=0.1, p_slip=0.2), 80, 8, 2)
    together = fit_skills({"easy": easy, "hard": hard})
    assert together["easy"] == fit_skill(easy)
    assert together["hard"] == fit_skill(hard)
    assert fit_skill(easy, options=EMOptions(seed=3)) == fit_skill(easy, options=EMOptions(seed=3))


def test_bounds_cap_guess_and_slip() -> None:
    sloppy = simulate(BKTParams(p_init=0.3, p_learn=0.1, p_guess=0.5, p_slip=0.3), 150, 15, 5)
    fitted = fit_skill(sloppy, options=EMOptions(max_guess=0.3, max_slip=0.1))
    assert fitted.p_guess <= 0.3 and fitted.p_slip <= 0.1


def test_predict_sequences_uses_the_prior_first_then_updates_on_each_answer() -> None:
    params = BKTParams(p_init=0.3, p_learn=0.2, p_guess=0.2, p_slip=0.1, p_forget=0.05)
    sequences = [[1, 0, 1, 1], [0], [], [1, 1]]
    predicted = predict_sequences(params, sequences)
    assert [len(p) for p in predicted] == [4, 1, 0, 2]
    for sequence, values in zip(sequences, predicted, strict=True):
        p_known, expected = params.p_init, []
        for correct in sequence:
            expected.append(predict_correct(p_known, params))
            p_known = update(p_known, bool(correct), params)
        assert values.tolist() == pytest.approx(expected)
    assert predicted[0][0] == pytest.approx(0.3 * 0.9 + 0.7 * 0.2)


def test_a_long_run_of_correct_answers_does_not_pin_predicted_mastery() -> None:
    # After 40 correct answers P(not known) is ~1e-24, below float64's resolution next to 1.0;
    # wrong answers then multiply its odds by ~6.75 each, so exact BKT comes back down.
    values = predict_sequences(SPEC, [[1] * 40 + [0] * 35])[0]
    assert values[39] == pytest.approx(0.9)
    assert values[-1] < 0.4  # back towards p_guess 0.25, not stuck at 1 - p_slip


def test_group_sequences_keeps_each_learners_order_per_skill() -> None:
    rows = [
        {"user_id": "a", "skill_name": "s", "correct": "0"},
        {"user_id": "b", "skill_name": "s", "correct": "1"},
        {"user_id": "a", "skill_name": "t", "correct": "1"},
        {"user_id": "a", "skill_name": "s", "correct": "1"},
    ]
    assert group_sequences(rows) == {"s": [[0, 1], [1]], "t": [[1]]}
    assert set(fit_all(rows)) == {"s", "t"}
    with pytest.raises(ValueError, match="0 or 1"):
        group_sequences([{"user_id": "a", "skill_name": "s", "correct": "2"}])


def test_auc_and_rmse_against_hand_computed_values() -> None:
    # positives 0.35, 0.8 vs negatives 0.1, 0.4: 3 of 4 pairs ordered right
    assert auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]) == pytest.approx(0.75)
    # a tie between a positive and a negative counts one half: (0.5 + 1 + 1 + 1) / 4
    assert auc([0, 1, 0, 1], [0.5, 0.5, 0.2, 0.9]) == pytest.approx(0.875)
    assert auc([1, 0], [0.9, 0.1]) == 1.0
    assert auc([1, 0], [0.1, 0.9]) == 0.0
    with pytest.raises(ValueError, match="both"):
        auc([1, 1], [0.2, 0.3])
    assert rmse([0.5, 0.5], [1, 0]) == pytest.approx(0.5)
    assert rmse([0.9, 0.2, 0.6], [1, 0, 1]) == pytest.approx(np.sqrt((0.01 + 0.04 + 0.16) / 3))


def _write(path: Path, header: list[str], rows: list[list[object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)


def test_bench_kt_writes_its_section_and_says_how_to_get_pybkt(tmp_path: Path) -> None:
    data = tmp_path / "assistments2009"
    truth = BKTParams(p_init=0.3, p_learn=0.2, p_guess=0.2, p_slip=0.1)
    long_rows: list[list[object]] = []
    for split, seed in (("train", 1), ("test", 2)):
        pre_rows: list[list[object]] = []
        for skill in ("7", "8"):
            for user, sequence in enumerate(simulate(truth, 30, 6, seed + int(skill))):
                for order, correct in enumerate(sequence):
                    long_rows.append([split, f"{split}_{user}", order, skill, correct])
                    pre_rows.append([len(sequence), skill, correct])
        path = data / "pybkt_preprocessed" / f"builder_{split}_preprocessed.csv"
        _write(path, ["user_id", "skill_name", "correct"], pre_rows)
    header = ["split", "user_id", "order_id", "skill_name", "correct"]
    _write(data / "assistments2009_dkt_long.csv", header, long_rows)
    out = tmp_path / "BENCH.md"
    missing = tmp_path / "no-venv" / "python"
    args = ["bench", "kt", "--data", str(data), "--out", str(out), "--pybkt-python", str(missing)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    report = out.read_text()
    assert "<!-- bench:kt -->" in report and f"tutorgraph bench kt --data {data}" in report
    assert "pip install -r benchmarks/pybkt/requirements.txt" in report
    for model in ("BKT + forgetting", "per-skill mean correctness", "moving average"):
        assert model in report
