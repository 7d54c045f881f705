"""`tutorgraph bench ...`: the group the main CLI registers when this package is installed."""

from tutorgraph_bench.cli import commands as _commands  # noqa: F401  (registers the commands)
from tutorgraph_bench.cli._app import bench_app

__all__ = ["bench_app"]
