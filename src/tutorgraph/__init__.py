"""tutorgraph: an open-source adaptive learning platform."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("tutorgraph")
except PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0.0.0"
