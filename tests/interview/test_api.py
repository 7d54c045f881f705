"""The interview API: resumes from files or text, validated; an interview from start to its
scorecard; one learner never sees another's; deleting a resume deletes its interviews; the
WebSocket streams a turn; a code run becomes a sandbox signal."""

from __future__ import annotations

import io
from typing import Any

import docx
import pytest
from fastapi.testclient import TestClient

from tests.conftest import register_and_login
from tests.interview.resumes import RESUME
from tutorgraph.sandbox import sandbox_available

Headers = dict[str, str]


def add_resume(client: TestClient, headers: Headers, **kwargs: Any) -> dict[str, Any]:
    response = client.post("/api/v1/resumes", headers=headers, **kwargs)
    assert response.status_code == 201, response.text
    return response.json()  # type: ignore[no-any-return]


def start(client: TestClient, headers: Headers, **body: Any) -> dict[str, Any]:
    resume = add_resume(client, headers, data={"text": RESUME})
    response = client.post(
        "/api/v1/interviews", json={"resume_id": resume["id"], **body}, headers=headers
    )
    assert response.status_code == 201, response.text
    return response.json()  # type: ignore[no-any-return]


def test_resumes_are_read_from_text_and_files_and_bad_ones_refused(client: TestClient) -> None:
    ann = register_and_login(client, "ann@example.org")
    view = add_resume(client, ann, data={"text": RESUME})
    ids = [a["id"] for a in view["anchors"]]
    assert ids[:5] == ["project_1", "project_2", "project_3", "experience_1", "experience_2"]
    assert "skill_python" in ids and "education" in ids

    document = docx.Document()
    document.add_heading("Sam Lee", 0)
    document.add_heading("Projects", 1)
    document.add_paragraph("Weather bot")
    document.add_paragraph("A Telegram bot in Python that posts forecasts.", style="List Bullet")
    document.add_heading("Skills", 1)
    document.add_paragraph("Python, Docker")
    buffer = io.BytesIO()
    document.save(buffer)
    from_docx = add_resume(client, ann, files={"file": ("cv.docx", buffer.getvalue())})
    assert [a["label"] for a in from_docx["anchors"]][:1] == ["Weather bot"]

    def refused(**kwargs: Any) -> str:
        response = client.post("/api/v1/resumes", headers=ann, **kwargs)
        assert response.status_code == 422, response.text
        return str(response.json()["detail"])

    assert "empty" in refused(data={"text": "   "})
    png = b"\x89PNG\r\n\x1a\n" + b"0" * 64
    assert "not a supported file" in refused(files={"file": ("cv.pdf", png)})
    assert "heading" in refused(data={"text": "just some words about me and nothing else at all"})
    assert "file or paste" in refused(data={})
    big = b"# CV\n\n## Skills\nPython\n" + b"x" * (2 * 1024 * 1024)
    response = client.post("/api/v1/resumes", headers=ann, files={"file": ("cv.md", big)})
    assert response.status_code in (413, 422)
    assert len(client.get("/api/v1/resumes", headers=ann).json()) == 2


def test_an_interview_runs_to_its_scorecard_and_stays_private(client: TestClient) -> None:
    ann = register_and_login(client, "ann@example.org")
    bo = register_and_login(client, "bo@example.org")
    resume = add_resume(client, ann, data={"text": RESUME})
    mine = {"resume_id": resume["id"]}
    assert client.post("/api/v1/interviews", json=mine, headers=bo).status_code == 404
    bad = client.post("/api/v1/interviews", json=mine | {"level": "wizard"}, headers=ann)
    assert bad.status_code == 422
    body = mine | {"role": "Backend engineer", "level": "senior"}
    view = client.post("/api/v1/interviews", json=body, headers=ann).json()
    iid = view["id"]
    assert [m["node"] for m in view["messages"]] == ["greeting", "question"]
    assert "Priya" in view["messages"][0]["text"]
    assert view["current_question"] == view["messages"][1]["text"]
    assert view["coverage"] == {"explored": 1, "total": 9}

    url = f"/api/v1/interviews/{iid}"
    assert client.get(url, headers=bo).status_code == 404
    assert client.post(f"{url}/answer", json={"text": "x"}, headers=bo).status_code == 404
    assert client.post(f"{url}/answer", json={"text": "  "}, headers=ann).status_code == 422

    answer = (
        "The hardest part was the solver timing out on big days, because OR-Tools explored too "
        "many routes, so I split the city into zones and cut solve time from 90 to 8 seconds."
    )
    view = client.post(f"{url}/answer", json={"text": answer}, headers=ann).json()
    assert view["messages"][-1]["node"] == "question" and view["coverage"]["explored"] == 2
    ask = {"text": "Can we do a technical assessment?"}
    view = client.post(f"{url}/answer", json=ask, headers=ann).json()
    assert view["phase"] == "technical"
    assert client.get(f"{url}/scorecard", headers=ann).status_code == 404

    view = client.post(f"{url}/end", headers=ann).json()
    assert view["status"] == "complete" and view["messages"][-1]["node"] == "closing"
    card = client.get(f"{url}/scorecard", headers=ann).json()
    for key in ("overall", "communication", "technical", "problem_solving", "code_quality"):
        assert key in card
    quoted = " ".join(card["communication"]["evidence"] + card["problem_solving"]["evidence"])
    assert "zones" in quoted
    assert card["ended_because"].startswith("You asked to stop")
    assert client.post(f"{url}/answer", json={"text": "more"}, headers=ann).status_code == 409
    assert [i["id"] for i in client.get("/api/v1/interviews", headers=ann).json()] == [iid]
    assert client.get("/api/v1/interviews", headers=bo).json() == []

    assert client.delete(f"/api/v1/resumes/{resume['id']}", headers=bo).status_code == 404
    assert client.delete(f"/api/v1/resumes/{resume['id']}", headers=ann).status_code == 204
    assert client.get(url, headers=ann).status_code == 404
    assert client.get("/api/v1/interviews", headers=ann).json() == []


def test_the_websocket_streams_a_turn(client: TestClient) -> None:
    ann = register_and_login(client, "ann@example.org")
    iid = start(client, ann)["id"]
    token = ann["Authorization"].split()[1]
    with client.websocket_connect(f"/api/v1/interviews/{iid}/ws") as ws:
        ws.send_json({"type": "auth", "token": token})
        ws.send_json({"type": "answer", "text": "Could you rephrase that?"})
        frames = []
        while True:
            frame = ws.receive_json()
            frames.append(frame)
            if frame["type"] in ("turn", "error"):
                break
    nodes = [f["node"] for f in frames if f["type"] == "node"]
    assert nodes[:4] == ["user_input", "grade_answer", "detect_user_intent", "decide"]
    assert "followup" in nodes
    text = "".join(f["delta"] for f in frames if f["type"] == "text")
    turn = frames[-1]["interview"]
    assert turn["messages"][-1]["text"].split() == text.split()


@pytest.mark.skipif(not sandbox_available(), reason="the sandbox needs bubblewrap")
def test_code_runs_in_the_sandbox_and_becomes_a_signal(client: TestClient) -> None:
    ann = register_and_login(client, "ann@example.org")
    url = f"/api/v1/interviews/{start(client, ann)['id']}"
    ok = client.post(f"{url}/code", json={"code": "print(6 * 7)"}, headers=ann)
    assert ok.status_code == 200 and ok.json()["stdout"].strip() == "42"
    assert ok.json()["signals"] == ["confident"]
    for _ in range(2):
        run = client.post(f"{url}/code", json={"code": "print(("}, headers=ann)
    assert run.json()["outcome"] == "syntax_error"
    assert "syntax_errors" in run.json()["signals"]
    assert client.get(url, headers=ann).json()["sandbox"]["submissions"] == 3
    bo = register_and_login(client, "bo@example.org")
    assert client.post(f"{url}/code", json={"code": "print(1)"}, headers=bo).status_code == 404
