"""tutorgraph's benchmarks and test fakes, a package of their own so the server installs and
imports none of them: the harnesses behind BENCHMARKS.md (each writes its own section with the
command that made it), the fake OpenAI-compatible server, the loopback server helpers, and the
`tutorgraph bench` commands, which the main CLI registers only when this package is installed."""
