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
    result = runner.invoke(app, [*args, "--password", "plenty long enough", "--role", "admin"])
    assert result.exit_code == 0 and "created admin root@example.org" in result.output
    plain = ["users", "create", "--email", "lin@example.org", "--name", "Lin"]
    result = runner.invoke(app, [*plain, "--password", "plenty long enough"])
    assert result.exit_code == 0 and "created learner lin@example.org" in result.output
    result = runner.invoke(app, [*args, "--password", "plenty long enough"])
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


def test_commands_refuse_a_missing_or_outdated_database_in_one_line(tmp_path: Path) -> None:
    import subprocess
    import sys

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
        return subprocess.run(
            [sys.executable, "-m", "tutorgraph", *args],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            check=False,
            timeout=120,  # `serve` would otherwise run for ever if it did not refuse
        )

    create = ("users", "create", "--email", "a@example.org", "--name", "A")
    create += ("--password", "plenty long enough")
    for command in (create, ("seed",), ("mastery", "fit"), ("serve", "--port", "1")):
        missing = run(*command)
        assert missing.returncode == 2, command
        assert "run `tutorgraph db upgrade`" in missing.stderr and "Traceback" not in missing.stderr
    assert run("db", "upgrade").returncode == 0
    from alembic import command

    from tutorgraph.settings import Settings
    from tutorgraph.store import migrate

    older = migrate.alembic_config(Settings(data_dir=tmp_path / "data"))
    command.downgrade(older, "0003")  # as an older version of tutorgraph left it
    behind = run(*create)
    assert behind.returncode == 2
    assert "at schema revision 0003" in behind.stderr and migrate.head_revision() in behind.stderr
    assert run("db", "upgrade").returncode == 0 and run(*create).returncode == 0
