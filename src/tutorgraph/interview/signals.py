"""Sandbox signals: what the candidate's code runs say about how the coding is going.

Computed from the submissions alone (outcome, time between runs, how the code changed), so
`decide` reads a few named signals instead of code:

| signal | when |
|---|---|
| syntax_errors | at least SYNTAX_RUN of the last RECENT runs did not compile |
| struggling | the last STRUGGLE_RUNS runs all failed (error, syntax error, timeout, memory) |
| rapid_iterations | RAPID_RUNS runs within RAPID_SECONDS |
| confident | the last run passed, and so did the one before or it was the first |
| refactoring | the last two runs both passed and the code changed between them |
| idle | the sandbox was used, then nothing for IDLE_SECONDS |
"""

from __future__ import annotations

from collections.abc import Sequence

from tutorgraph.interview.state import SIGNALS, SandboxState, Signal, Submission

RECENT = 3
SYNTAX_RUN = 2
STRUGGLE_RUNS = 3
RAPID_RUNS = 4
RAPID_SECONDS = 60.0
IDLE_SECONDS = 180.0
FAILED = frozenset({"error", "syntax_error", "timeout", "memory", "killed"})


def compute(submissions: Sequence[Submission], *, now: float) -> list[Signal]:
    found: set[Signal] = set()
    if not submissions:
        return []
    recent = submissions[-RECENT:]
    if sum(s["outcome"] == "syntax_error" for s in recent) >= SYNTAX_RUN:
        found.add("syntax_errors")
    tail = submissions[-STRUGGLE_RUNS:]
    if len(tail) == STRUGGLE_RUNS and all(s["outcome"] in FAILED for s in tail):
        found.add("struggling")
    burst = submissions[-RAPID_RUNS:]
    if len(burst) == RAPID_RUNS and burst[-1]["at"] - burst[0]["at"] <= RAPID_SECONDS:
        found.add("rapid_iterations")
    last = submissions[-1]
    if last["outcome"] == "ok":
        before = submissions[-2] if len(submissions) > 1 else None
        if before is None or before["outcome"] == "ok":
            found.add("confident")
        if before is not None and before["outcome"] == "ok" and before["code"] != last["code"]:
            found.add("refactoring")
    if now - last["at"] >= IDLE_SECONDS:
        found.add("idle")
    return [s for s in SIGNALS if s in found]


def with_submission(sandbox: SandboxState, submission: Submission) -> SandboxState:
    submissions = [*sandbox["submissions"], submission][-50:]
    return {
        "is_active": True,
        "last_activity_ts": submission["at"],
        "submissions": submissions,
        "signals": compute(submissions, now=submission["at"]),
    }


def refreshed(sandbox: SandboxState, *, now: float) -> SandboxState:
    """The signals as of now (idle appears with time, not with a run)."""
    return {**sandbox, "signals": compute(sandbox["submissions"], now=now)}
