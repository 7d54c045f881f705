"""Tests use the package's loopback server helper."""

from tutorgraph.bench.live_server import LiveServer

__all__ = ["LiveServer"]
