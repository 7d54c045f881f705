"""The `tutorgraph` command line."""

from tutorgraph.cli.app import app, main

__all__ = ["app", "main"]
