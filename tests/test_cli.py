from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from tutorgraph import __version__
from tutorgraph.cli import app

runner = CliRunner()


def test_version_and_help() -> None:
    assert runner.invoke(app, ["--version"]).output.strip() == f"tutorgraph {__version__}"
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    for command in ("serve", "db", "seed", "users"):
        assert command in result.output


def test_db_upgrade_seed_and_users_create_from_a_fresh_directory(tmp_path: Path) -> None:
    result = runner.invoke(app, ["db", "upgrade"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "data" / "tutorgraph.db").exists()
    assert runner.invoke(app, ["db", "upgrade"]).exit_code == 0  # running twice is fine
    result = runner.invoke(app, ["seed"])
    assert result.exit_code == 0 and "no courses found" in result.output
    args = ["users", "create", "--email", "root@example.org", "--name", "Root"]
    result = runner.invoke(app, [*args, "--password", "long enough"])
    assert result.exit_code == 0 and "created admin root@example.org" in result.output
    result = runner.invoke(app, [*args, "--password", "long enough"])
    assert result.exit_code != 0


def test_bad_setting_is_reported_in_one_line(monkeypatch: object, tmp_path: Path) -> None:
    import subprocess
    import sys

    env = {"TUTORGRAPH_LLM_ENGINE": "gpt", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-m", "tutorgraph", "db", "upgrade"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    assert result.returncode == 2
    assert "llm.engine" in result.stderr and "Traceback" not in result.stderr
