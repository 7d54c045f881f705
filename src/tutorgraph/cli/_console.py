"""Rich consoles and the one place where errors become exit codes."""

from __future__ import annotations

from rich.console import Console

console = Console()
err_console = Console(stderr=True)


def fail(message: str, code: int = 1) -> None:
    import typer

    err_console.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)
