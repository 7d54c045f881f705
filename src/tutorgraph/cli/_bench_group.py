"""`tutorgraph bench`: the benchmarks live in their own package (`bench/` in the repository,
`tutorgraph_bench`), which the server neither installs nor imports. This is the one place that
knows about it: the group is added when the package is installed (the dev install), and
otherwise `tutorgraph bench ...` says how to get it."""

from __future__ import annotations

import importlib.util

import typer

BENCH_PACKAGE = "tutorgraph_bench"
MISSING = (
    "`tutorgraph bench` needs the benchmark package (tutorgraph-bench, `bench/` in the "
    "repository), which is not installed: run `make install` in a clone of the repository "
    "(or `pip install -e ./bench`)."
)


def bench_installed() -> bool:
    """Whether `tutorgraph_bench` can be imported (found, not imported)."""
    return importlib.util.find_spec(BENCH_PACKAGE) is not None


def add_bench_group(app: typer.Typer) -> None:
    """Add `bench` to `app`: the package's command group, or one command that explains."""
    if bench_installed():
        from tutorgraph_bench.cli import bench_app

        app.add_typer(bench_app, name="bench")
        return

    @app.command(
        "bench",
        help="Benchmarks (needs the tutorgraph-bench package: `make install`).",
        context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
        add_help_option=False,
    )
    def bench_missing(ctx: typer.Context) -> None:
        from tutorgraph.cli._console import fail

        fail(MISSING)
