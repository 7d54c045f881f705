"""The sealed half is measured only by a release run: on a committed tree, once per commit, and
every run stays in the record that BENCHMARKS.md is rendered from."""

from __future__ import annotations

import datetime
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tutorgraph.cli import app
from tutorgraph_bench.metrics import wilson
from tutorgraph_bench.sealed import (
    ReleaseRefused,
    SealedSet,
    load_record,
    markdown,
    record_run,
    release_commit,
)
from tutorgraph_bench.splits import load_split

SPLITS = Path(__file__).resolve().parents[2] / "benchmarks" / "splits.yaml"


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A committed git repository with one file."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    (root / "grader.py").write_text("RULE = 1\n", encoding="utf-8")
    git(root, "add", "grader.py")
    git(root, "commit", "-q", "-m", "release")
    return root


def test_a_clean_unrecorded_commit_is_measured(repo: Path, tmp_path: Path) -> None:
    assert release_commit(repo, tmp_path / "record.yaml") == git(repo, "rev-parse", "HEAD")


def test_uncommitted_changes_are_refused(repo: Path, tmp_path: Path) -> None:
    (repo / "grader.py").write_text("RULE = 2  # tuned\n", encoding="utf-8")
    with pytest.raises(ReleaseRefused, match=r"uncommitted changes \(grader.py\)"):
        release_commit(repo, tmp_path / "record.yaml")
    (repo / "grader.py").write_text("RULE = 1\n", encoding="utf-8")
    (repo / "new_rule.py").write_text("", encoding="utf-8")  # untracked counts too
    with pytest.raises(ReleaseRefused, match=r"new_rule.py"):
        release_commit(repo, tmp_path / "record.yaml")


def test_a_commit_already_recorded_is_refused(repo: Path, tmp_path: Path) -> None:
    record = tmp_path / "record.yaml"
    commit = release_commit(repo, record)
    record_run(
        record,
        commit=commit,
        split=load_split(SPLITS),
        sets=[],
        today=datetime.date(2026, 11, 29),
    )
    with pytest.raises(ReleaseRefused, match=rf"commit {commit[:12]} was already measured"):
        release_commit(repo, record)


def test_outside_a_git_checkout_it_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ReleaseRefused, match="not a git checkout"):
        release_commit(tmp_path, tmp_path / "record.yaml")


def test_the_commands_refuse_with_a_message_and_a_non_zero_exit(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`bench release` and `bench answers --sealed` refuse before grading anything."""
    monkeypatch.chdir(repo)
    record, out = tmp_path / "record.yaml", tmp_path / "BENCH.md"
    common = ["--splits", str(SPLITS), "--record", str(record), "--out", str(out)]
    (repo / "grader.py").write_text("RULE = 2\n", encoding="utf-8")
    for command in (["bench", "release"], ["bench", "answers", "--sealed"]):
        result = CliRunner().invoke(app, [*command, *common])
        assert result.exit_code != 0
        assert "uncommitted changes" in result.output
    git(repo, "commit", "-qam", "tuned")
    record_run(
        record,
        commit=git(repo, "rev-parse", "HEAD"),
        split=load_split(SPLITS),
        sets=[],
        today=datetime.date(2026, 11, 29),
    )
    result = CliRunner().invoke(app, ["bench", "release", *common])
    assert result.exit_code != 0 and "already measured on 2026-11-29" in result.output
    assert not out.exists()  # nothing graded, nothing written
    assert len(load_record(record)) == 1


def test_the_section_is_rendered_from_every_recorded_run(tmp_path: Path) -> None:
    from tutorgraph_bench.learner_answers import AnswerReport

    split = load_split(SPLITS)
    record = tmp_path / "record.yaml"
    assert "No sealed measurement recorded yet" in markdown(load_record(record), split, "cmd")
    share = wilson(45, 49)
    report = AnswerReport(
        half="sealed, learner_answers_2",
        examples="all",
        answers=147,
        questions=49,
        ordering=share,
        correct_pass=share,
        wrong_fail=share,
        error_type_accuracy=share,
        misconception_recall=share,
        misconception_false_on_correct=share,
        unsure_share_of_misgraded=share,
        mean_score={},
        mean_certainty={},
        length_rho={},
        by_voice={},
    )
    measured = [SealedSet("learner_answers_2", True, "", report, wilson(40, 49))]
    for day, commit in ((28, "a" * 40), (29, "b" * 40)):
        record_run(
            record, commit=commit, split=split, sets=measured, today=datetime.date(2026, 11, day)
        )
    runs = load_record(record)
    assert [r["commit"] for r in runs] == ["a" * 40, "b" * 40]
    text = markdown(runs, split, "tutorgraph bench release")
    assert (
        "| 2026-11-28 | `aaaaaaaaaaaa` | `learner_answers_2` | 147 | 92% [81-97%] (n=49) |" in text
    )
    assert text.count("| 2026-11-") == 2
    assert record.read_text(encoding="utf-8").startswith("# The sealed halves' figures")
