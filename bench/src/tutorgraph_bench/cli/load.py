"""`tutorgraph bench load`: real `tutorgraph serve` processes on loopback under load: many
learners, one learner's many tabs (`--tabs`), or the interview's code sandbox (`--sandbox`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tutorgraph_bench.cli._app import OutOption, bench_app, console
from tutorgraph_bench.report import write_section

TABS = 40  # one learner's requests at once in `bench all`


@bench_app.command("load")
def load(
    clients: Annotated[int, typer.Option(help="Concurrent simulated learners.")] = 200,
    database_url: Annotated[
        str | None,
        typer.Option(
            help="A PostgreSQL database to load (migrated and seeded by the run; use a "
            "dedicated one). Without it: a fresh SQLite file, one server process."
        ),
    ] = None,
    servers: Annotated[
        int | None,
        typer.Option(help="Server processes side by side (default: 2 on PostgreSQL, 1 on SQLite)."),
    ] = None,
    content: Annotated[Path, typer.Option(help="The courses to seed.")] = Path("content"),
    workdir: Annotated[
        Path | None, typer.Option(help="Keep the servers' data dir and logs here.")
    ] = None,
    tabs: Annotated[
        int | None,
        typer.Option(
            help="Instead: one learner, this many requests at once (grades on one concept, "
            "practice answers, one step taken from every tab); errors and lost updates.",
            min=1,
            max=1000,
        ),
    ] = None,
    sandbox: Annotated[
        bool,
        typer.Option(
            "--sandbox",
            help="Instead: the interview code sandbox's memory (one run, 20 at once from one "
            "learner and from 20) and other users' latency while it is saturated.",
        ),
    ] = False,
    sandbox_learners: Annotated[
        int, typer.Option(help="With --sandbox: learners posting runs.", min=20, max=200)
    ] = 20,
    seconds: Annotated[
        float, typer.Option(help="With --sandbox: seconds per latency phase.", min=1, max=120)
    ] = 10.0,
    server_python: Annotated[
        str | None,
        typer.Option(help="With --sandbox: serve with this interpreter (a before/after)."),
    ] = None,
    out: OutOption = Path("BENCHMARKS.md"),
) -> None:
    """Concurrent learners (register, login, grade, practice, tutor chat stream, assessment)
    against real `tutorgraph serve` processes on loopback; errors, latency percentiles,
    throughput and `/healthz` latency throughout. With `--tabs`: one learner, many tabs; with
    `--sandbox`: the interview code sandbox."""
    from tutorgraph_bench.load import markdown, run_load_benchmark
    from tutorgraph_bench.metrics import percentile

    count = servers or (2 if database_url else 1)
    where = "PostgreSQL" if database_url else "SQLite"
    if tabs is not None:
        _load_tabs(tabs, count, database_url, content, workdir, out)
        return
    if sandbox:
        _load_sandbox(content, sandbox_learners, seconds, server_python, out)
        return
    with console.status(f"{clients} learners against {count} server(s) on {where}"):
        result = run_load_benchmark(
            clients=clients,
            servers=count,
            database_url=database_url,
            content_dir=content,
            workdir=workdir,
        )
    health = percentile([s.seconds for s in result.health], 0.99)
    console.print(
        f"{result.requests} requests, {len(result.errors)} errors, "
        f"{result.wall_seconds:.1f} s; /healthz p99 {health * 1000:.0f} ms",
        highlight=False,
    )
    command = f"tutorgraph bench load --clients {clients}"
    if database_url:
        command += f" --database-url postgresql://.../DB --servers {count}"
    write_section(out, f"load-{result.backend}", markdown([result], command))
    console.print(f"wrote {out}")


def _load_sandbox(
    content: Path, learners: int, seconds: float, python: str | None, out: Path
) -> None:
    from tutorgraph_bench.sandbox_load import run_sandbox_benchmark, sandbox_markdown

    with console.status(f"{learners} learners against the code sandbox"):
        result = run_sandbox_benchmark(
            content_dir=content, learners=learners, seconds=seconds, python=python
        )
    for case in result.memory:
        console.print(f"{case.name}: peak {case.peak_bytes / 2**20:.0f} MB", highlight=False)
    command = f"tutorgraph bench load --sandbox --sandbox-learners {learners} --seconds {seconds:g}"
    section = "load-sandbox" if python is None else "load-sandbox-before"
    note = "" if python is None else "The server ran an older checkout (`--server-python`)."
    write_section(out, section, sandbox_markdown(result, command, note=note))
    console.print(f"wrote {out}")


def _load_tabs(
    tabs: int,
    servers: int,
    database_url: str | None,
    content: Path,
    workdir: Path | None,
    out: Path,
) -> None:
    from tutorgraph_bench import tabs as one_learner

    with console.status(f"one learner, {tabs} tabs, {servers} server(s)"):
        result = one_learner.run_tabs_benchmark(
            tabs=tabs,
            servers=servers,
            database_url=database_url,
            content_dir=content,
            workdir=workdir,
        )
    lost = ", ".join(f"{what} {count}" for what, count in result.lost.items())
    console.print(
        f"{result.tabs} requests, {len(result.errors)} errors; lost updates: {lost}",
        highlight=False,
    )
    for error in result.errors[:5]:
        console.print(f"  {error}", highlight=False)
    command = f"tutorgraph bench load --tabs {tabs}"
    if database_url:
        command += f" --database-url postgresql://.../DB --servers {servers}"
    write_section(out, f"load-tabs-{result.backend}", one_learner.markdown([result], command))
    console.print(f"wrote {out}")
