"""Benchmarks behind BENCHMARKS.md: each writes its own section with the command that made it."""
