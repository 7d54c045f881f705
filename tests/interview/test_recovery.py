"""Kill the process mid-interview (SIGKILL, in the middle of a turn) and start another: the
interview resumes at the same point from the durable checkpointer, and no line the interviewer
had already said is asked of the model again."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path
from typing import Any

from tests.crashing import run_child
from tests.interview.harness import GOOD


def child(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_child("tests.interview.crash_child", data, *args)


def calls(data: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (data / "calls.log").read_text().splitlines()]


def test_a_killed_server_resumes_the_interview_without_replaying_model_outputs(
    tmp_path: Path,
) -> None:
    started = child(tmp_path, "start")
    assert started.returncode == 0, started.stderr
    before = json.loads(started.stdout)
    assert [m["node"] for m in before["messages"]] == ["greeting", "question"]
    assert [c["kind"] for c in calls(tmp_path)] == ["greeting", "resume"]

    # The answer's turn speaks twice (transition, then the next question): die on the second.
    killed = child(tmp_path, "answer", "--kill-at", "2", GOOD)
    assert killed.returncode == -signal.SIGKILL
    assert [c["kind"] for c in calls(tmp_path)] == ["greeting", "resume", "transition"]

    after = json.loads(child(tmp_path, "show").stdout)
    nodes = [m["node"] for m in after["messages"]]
    assert nodes == ["greeting", "question", None, "transition", "question"]
    assert after["messages"][2]["text"] == GOOD  # the answer survived the kill
    kinds = [c["kind"] for c in calls(tmp_path)]
    assert kinds == ["greeting", "resume", "transition", "resume"]  # only the unsaid line
    assert after["messages"][3]["text"] == calls(tmp_path)[2]["text"]
    assert after["current_question"] == after["messages"][4]["text"]

    again = json.loads(child(tmp_path, "show").stdout)
    assert again["messages"] == after["messages"] and len(calls(tmp_path)) == 4

    answered = child(tmp_path, "answer", "Can we stop here please?")
    assert json.loads(answered.stdout)["status"] == "complete"
