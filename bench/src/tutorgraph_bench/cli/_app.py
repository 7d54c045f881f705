"""The `tutorgraph bench` command group, its console and the option every benchmark command
shares."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

bench_app = typer.Typer(
    help="Benchmarks; each writes its section of BENCHMARKS.md.", no_args_is_help=True
)
console = Console()
err_console = Console(stderr=True)

OutOption = Annotated[Path, typer.Option("--out", help="Markdown report to update.")]
