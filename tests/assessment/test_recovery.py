"""Kill the process while an answer is being processed (SIGKILL, after it was graded, before the
next question was saved) and start another: one answered question is one unit, so the question
is still waiting, the answer sent again is graded once, and the assessment goes on."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

from tests.crashing import run_child

ANSWER = "A list is mutable and a tuple is immutable, so only a tuple can be a dict key."


def child(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_child("tests.assessment.crash_child", data, *args)


def graded(data: Path) -> list[str]:
    log = data / "graded.log"
    return log.read_text().splitlines() if log.exists() else []


def test_a_killed_server_leaves_the_question_waiting_and_grades_the_answer_once(
    tmp_path: Path,
) -> None:
    started = child(tmp_path, "start")
    assert started.returncode == 0, started.stderr
    first = json.loads(started.stdout)["interrupt"]
    assert first["total_questions"] == 1

    killed = child(tmp_path, "answer", "--kill-at", "1", ANSWER)  # dies asking question 2
    assert killed.returncode == -signal.SIGKILL
    assert graded(tmp_path) == [ANSWER]  # it was graded before the kill

    after = json.loads(child(tmp_path, "show").stdout)
    assert after["status"] == "in_progress"
    assert after["interrupt"] == first  # the same question waits, nothing half-done shows

    answered = child(tmp_path, "answer", ANSWER)
    assert answered.returncode == 0, answered.stderr
    now = json.loads(answered.stdout)["interrupt"]
    assert now["total_questions"] == 2 and now["question"]["id"] != first["question"]["id"]
    assert graded(tmp_path) == [ANSWER, ANSWER]  # graded again after the kill, once
