"""The constructor API: a build is its author's alone; uploads are checked by content and size;
a whole build runs through start, upload, turns, reviews and publish (on each backend)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from tests.conftest import make_settings, register_and_login
from tests.constructor.sources import write_sources
from tutorgraph.server import create_app
from tutorgraph.store import migrate

API = "/api/v1/constructor"


def wait_idle(client: TestClient, session_id: str, headers: dict[str, str]) -> dict[str, Any]:
    for _ in range(300):
        view = client.get(f"{API}/session/status/{session_id}", headers=headers).json()
        if view["status"] != "running":
            return view  # type: ignore[no-any-return]
        time.sleep(0.05)
    raise AssertionError("the build did not finish")


def turn(client: TestClient, sid: str, headers: dict[str, str], **body: Any) -> dict[str, Any]:
    response = client.post(f"{API}/session/chat", json={"session_id": sid, **body}, headers=headers)
    assert response.status_code == 202, response.text
    return wait_idle(client, sid, headers)


def test_builds_are_private_and_uploads_are_checked(client: TestClient, tmp_path: Path) -> None:
    assert client.post(f"{API}/session/start", json={}).status_code == 401
    ann = register_and_login(client, "ann@example.org")
    bo = register_and_login(client, "bo@example.org")
    start = client.post(f"{API}/session/start", json={"title": "Mine"}, headers=ann)
    assert start.status_code == 201 and start.json()["construction_phase"] == "collecting"
    sid = start.json()["session_id"]

    def upload(name: str, data: bytes, who: dict[str, str]) -> Any:
        files = {"file": (name, data)}
        return client.post(
            f"{API}/session/upload", data={"session_id": sid}, files=files, headers=who
        )

    assert upload("notes.md", b"# Notes\n\nSome text.", bo).status_code == 404
    assert client.get(f"{API}/session/status/{sid}", headers=bo).status_code == 404
    chat = client.post(f"{API}/session/chat", json={"session_id": sid, "message": "hi"}, headers=bo)
    assert chat.status_code == 404
    assert client.get(f"{API}/session/events/{sid}", headers=bo).status_code == 404

    refused = upload("slides.pdf", b"\x00\x01\x02\x03 binary", ann)
    assert refused.status_code == 422 and "slides.pdf: is not a supported file" in refused.text
    zipped = upload("book.docx", b"PK\x03\x04" + b"\x00" * 40, ann)
    assert zipped.status_code == 422
    first = upload("notes.md", b"# Notes\n\nSome text about lists.", ann)
    again = upload("copy.md", b"# Notes\n\nSome text about lists.", ann)
    assert first.status_code == 201 and again.json()["id"] == first.json()["id"]  # same bytes
    assert first.json()["kind"] == "markdown" and first.json()["status"] == "pending"
    removed = client.delete(f"{API}/session/{sid}/uploads/{first.json()['id']}", headers=ann)
    assert removed.status_code == 204
    assert client.get(f"{API}/session/status/{sid}", headers=ann).json()["uploads"] == []
    assert [b["session_id"] for b in client.get(f"{API}/sessions", headers=bo).json()] == []


def test_an_upload_over_the_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, limits={"max_upload_bytes": 4096})
    migrate.upgrade(settings)
    with TestClient(create_app(settings)) as client:
        ann = register_and_login(client, "ann@example.org")
        sid = client.post(f"{API}/session/start", json={}, headers=ann).json()["session_id"]
        big = b"# Big\n\n" + b"word " * 3000
        response = client.post(
            f"{API}/session/upload",
            data={"session_id": sid},
            files={"file": ("big.md", big)},
            headers=ann,
        )
        assert response.status_code == 413


def test_a_whole_build_through_the_api(tmp_path: Path, backend: str) -> None:
    settings = make_settings(tmp_path, backend)
    migrate.upgrade(settings)
    with TestClient(create_app(settings)) as client:
        runner = type(client.app.state.constructor.jobs).__name__  # type: ignore[attr-defined]
        assert runner == ("QueueJobs" if backend == "postgres" else "InProcessJobs")
        ann = register_and_login(client, "ann@example.org")
        bo = register_and_login(client, "bo@example.org")
        sid = client.post(
            f"{API}/session/start", json={"title": "Python basics"}, headers=ann
        ).json()["session_id"]
        for path in write_sources(tmp_path / "src"):
            response = client.post(
                f"{API}/session/upload",
                data={"session_id": sid},
                files={"file": (path.name, path.read_bytes())},
                headers=ann,
            )
            assert response.status_code == 201, response.text
        view = turn(client, sid, ann, message="please read my files")
        assert view["phase"] == "ingested" and all(u["status"] == "read" for u in view["uploads"])
        assert [u["kind"] for u in view["uploads"]] == ["markdown", "pdf", "docx"]
        events = client.get(f"{API}/session/events/{sid}", headers=ann)
        assert events.status_code == 200 and "reading 02-loops.pdf" in events.text
        later = client.get(
            f"{API}/session/events/{sid}", headers={**ann, "Last-Event-ID": "999999"}
        )
        assert "reading" not in later.text and "event: end" in later.text  # resumes after the id

        view = turn(client, sid, ann, message="yes")
        assert view["review"]["kind"] == "structure"
        topics = view["structure"]["topics"]
        view = turn(
            client,
            sid,
            ann,
            edits=[{"op": "merge", "topic_ids": [t["topic_id"] for t in topics[:2]]}],
            approve=True,
        )
        assert view["phase"] == "structure_approved"
        assert len(view["structure"]["topics"]) == len(topics) - 1
        view = turn(client, sid, ann, action="generate_quiz")
        assert view["review"]["kind"] == "quiz" and view["quiz_bank"]["items"]
        view = turn(client, sid, ann, approve=True)
        assert view["phase"] == "validated" and 0 <= view["report"]["readiness"] <= 100
        view = turn(client, sid, ann, message="publish it anyway")
        slug = view["course_slug"]
        assert view["phase"] == "published" and slug == "python-basics"
        assert client.get(f"/api/v1/courses/{slug}", headers=ann).status_code == 200
        assert client.get(f"/api/v1/courses/{slug}", headers=bo).status_code == 404
        assert client.get(f"/api/v1/courses/{slug}").status_code == 404
