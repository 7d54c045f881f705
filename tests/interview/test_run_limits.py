"""One learner cannot take the server's code runner or its threads: one run at a time per
learner, `limits.sandbox_runs` at once in the process (429 beyond), and runs wait on threads of
their own, so other requests are served while the sandbox is full."""

from __future__ import annotations

import io
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio.to_thread
import docx
import pytest
from fastapi.testclient import TestClient

from tests.conftest import make_settings, register_and_login
from tests.interview.resumes import RESUME
from tests.interview.test_api import start
from tutorgraph.sandbox import sandbox_available
from tutorgraph.server import create_app
from tutorgraph.store import migrate

needs_sandbox = pytest.mark.skipif(
    not sandbox_available(), reason="the sandbox needs bubblewrap: apt-get install bubblewrap"
)
SLEEP = "import time\nprint('started', flush=True)\ntime.sleep({seconds})\nprint('done')\n"


@pytest.fixture
def limited(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[TestClient]:
    """A client of an app with the `limits` settings a test gives (`indirect` parameter)."""
    settings = make_settings(tmp_path, limits=getattr(request, "param", {}))
    migrate.upgrade(settings)
    with TestClient(create_app(settings)) as client:
        yield client


def learners(client: TestClient, count: int) -> list[tuple[dict[str, str], str]]:
    """`count` learners, each with an interview: (headers, the interview's code-run path)."""
    found = []
    for n in range(count):
        headers = register_and_login(client, f"learner{n}@example.org")
        found.append((headers, f"/api/v1/interviews/{start(client, headers)['id']}/code"))
    return found


def run(client: TestClient, headers: dict[str, str], path: str, code: str) -> Any:
    return client.post(path, json={"code": code}, headers=headers)


@needs_sandbox
def test_a_learner_runs_one_program_at_a_time(limited: TestClient) -> None:
    [(ann, path)] = learners(limited, 1)
    with ThreadPoolExecutor(max_workers=2) as pool:
        first = pool.submit(run, limited, ann, path, SLEEP.format(seconds=2))
        time.sleep(0.7)  # the first run is under way
        second = run(limited, ann, path, "print('again')")
        assert first.result().status_code == 200
    assert second.status_code == 429, second.text
    assert "your previous run is still going" in second.json()["detail"]
    assert first.result().json()["stdout"] == "started\ndone\n"
    # once it is over, the next run goes through
    assert run(limited, ann, path, "print('again')").json()["stdout"] == "again\n"


@needs_sandbox
@pytest.mark.parametrize("limited", [{"sandbox_runs": 1}], indirect=True)
def test_runs_beyond_the_server_limit_are_refused_with_429(limited: TestClient) -> None:
    (ann, ann_path), (bo, bo_path) = learners(limited, 2)
    with ThreadPoolExecutor(max_workers=2) as pool:
        first = pool.submit(run, limited, ann, ann_path, SLEEP.format(seconds=2))
        time.sleep(0.7)
        refused = run(limited, bo, bo_path, "print('hi')")
        assert first.result().status_code == 200
    assert refused.status_code == 429, refused.text
    assert refused.json()["detail"] == "the code runner is busy, try again in a moment"
    assert refused.headers["retry-after"] == "2"  # a client knows when to try again
    assert run(limited, bo, bo_path, "print('hi')").json()["stdout"] == "hi\n"


@needs_sandbox
@pytest.mark.parametrize("limited", [{"sandbox_runs": 6}], indirect=True)
def test_sleeping_runs_do_not_hold_up_other_requests(limited: TestClient) -> None:
    """Sleeping runs must not take the threads other requests need. The default thread pool
    is shrunk to 4 here (it is 40) so that 6 runs are enough to show it."""
    people = learners(limited, 6)
    portal = limited.portal  # the app's event loop
    assert portal is not None
    default = portal.call(anyio.to_thread.current_default_thread_limiter)
    tokens = default.total_tokens
    portal.call(setattr, default, "total_tokens", 4)
    finished: list[float] = []

    def sleep_in_sandbox(person: tuple[dict[str, str], str]) -> Any:
        response = run(limited, *person, SLEEP.format(seconds=3))
        finished.append(time.monotonic())
        return response

    try:
        with ThreadPoolExecutor(max_workers=6) as pool:
            runs = [pool.submit(sleep_in_sandbox, person) for person in people]
            time.sleep(1.0)  # every run is sleeping now
            courses = limited.get("/api/v1/courses", headers=people[0][0])
            answered = time.monotonic()
            responses = [r.result() for r in runs]
    finally:
        portal.call(setattr, default, "total_tokens", tokens)
    assert courses.status_code == 200
    assert [r.status_code for r in responses] == [200] * 6
    assert answered < min(finished)  # served while every run was still sleeping


def resume_docx() -> bytes:
    document = docx.Document()
    for line in RESUME.splitlines():
        if line.startswith("#"):
            document.add_heading(line.lstrip("# "), 1)
        elif line.strip():
            document.add_paragraph(line)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def upload(client: TestClient, headers: dict[str, str], data: bytes) -> Any:
    return client.post("/api/v1/resumes", headers=headers, files={"file": ("cv.docx", data)})


@pytest.mark.parametrize("limited", [{"extraction_processes": 1}], indirect=True)
def test_resume_readers_are_bounded_per_learner_and_per_server(limited: TestClient) -> None:
    """Each resume file is read by a process of its own: one at a time per learner, and
    `limits.extraction_processes` at once; the rest are refused at once with 429."""
    ann = register_and_login(limited, "ann@example.org")
    bo = register_and_login(limited, "bo@example.org")
    data = resume_docx()
    with ThreadPoolExecutor(max_workers=3) as pool:
        replies = list(pool.map(lambda h: upload(limited, h, data), [ann, ann, bo]))
    statuses = sorted(r.status_code for r in replies)
    assert statuses == [201, 429, 429], [r.text for r in replies]
    details = {r.json()["detail"] for r in replies if r.status_code == 429}
    assert details <= {
        "the file reader is busy, try again in a moment",
        "your previous file is still being read; wait for it to finish, then upload again",
    }
    assert upload(limited, bo, data).status_code == 201  # free again afterwards
