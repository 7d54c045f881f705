"""`python -m tutorgraph` runs the CLI."""

from tutorgraph.cli import main

main()
