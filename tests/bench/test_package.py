"""The benchmarks are a package of their own: `tutorgraph bench` comes from it when it is
installed (the dev install), and says how to get it when it is not."""

from __future__ import annotations

import sys

import pytest
import typer
from typer.testing import CliRunner

from tutorgraph.cli import app
from tutorgraph.cli._bench_group import add_bench_group


def test_the_dev_install_offers_bench_and_eval() -> None:
    bench = CliRunner().invoke(app, ["bench", "--help"])
    assert bench.exit_code == 0, bench.output
    assert all(name in bench.output for name in ("answers", "release", "grading", "load"))
    evals = CliRunner().invoke(app, ["eval", "--help"])
    assert evals.exit_code == 0, evals.output
    assert "run" in evals.output and "compare" in evals.output


def test_without_the_package_bench_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tutorgraph_bench", None)  # as if not installed
    server_only = typer.Typer()

    @server_only.command()
    def serve() -> None:
        """Stand-in for the server's other commands."""

    add_bench_group(server_only)
    for args in (["bench"], ["bench", "answers", "--sealed"], ["bench", "--help"]):
        result = CliRunner().invoke(server_only, args)
        assert result.exit_code == 1, (args, result.output)
        assert "make install" in result.output and "tutorgraph-bench" in result.output
