"""Tests use the benchmark package's loopback server helper (`tutorgraph_bench`)."""

from tutorgraph_bench.live_server import LiveServer

__all__ = ["LiveServer"]
