"""`tutorgraph bench ...`: measure quality and speed; results go to BENCHMARKS.md."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tutorgraph.bench.report import write_section
from tutorgraph.cli._console import console

bench_app = typer.Typer(
    help="Benchmarks; each writes its section of BENCHMARKS.md.", no_args_is_help=True
)

OutOption = Annotated[Path, typer.Option("--out", help="Markdown report to update.")]


@bench_app.command("retrieval")
def retrieval(
    queries: Annotated[Path, typer.Option(help="YAML list of query/course/lesson/heading.")] = Path(
        "benchmarks/retrieval_queries.yaml"
    ),
    content: Annotated[Path, typer.Option(help="Content directory.")] = Path("content"),
    out: OutOption = Path("BENCHMARKS.md"),
) -> None:
    """Recall@1, recall@5 and MRR of course search on the authored question set."""
    from tutorgraph.bench.retrieval import markdown, run_retrieval_benchmark

    result = run_retrieval_benchmark(content_dir=content, queries=queries)
    console.print(
        f"{result.cases} queries: recall@1 {result.recall_at_1:.3f}, "
        f"recall@5 {result.recall_at_5:.3f}, MRR {result.mrr:.3f}, "
        f"heading@5 {result.heading_at_5:.3f}"
    )
    for miss in result.misses:
        console.print(f"  miss: {miss}", highlight=False)
    write_section(out, "retrieval", markdown(result, "tutorgraph bench retrieval"))
    console.print(f"wrote {out}")


@bench_app.command("all")
def run_all(out: OutOption = Path("BENCHMARKS.md")) -> None:
    """Every benchmark whose data is available."""
    retrieval(out=out)
