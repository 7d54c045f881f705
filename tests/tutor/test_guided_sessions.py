"""Guided tutor sessions (the coordinator graph) over REST and the WebSocket, keyed by session
id: each endpoint refuses strangers (401), hides other learners' sessions (404) and works."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from tests.conftest import REPO_CONTENT, make_settings, register_and_login
from tests.tutor.conftest import chat, lesson_id
from tutorgraph.server import create_app
from tutorgraph.settings import Settings
from tutorgraph.store.db import Database
from tutorgraph.store.models import Lesson
from tutorgraph.tutor.quiz_grading import lesson_quiz

SQRT = "Why do we divide by the square root of d_k?"


def _start(client: TestClient, headers: dict[str, str], lesson: int) -> dict[str, Any]:
    response = client.post(
        "/api/v1/tutor/session/start", json={"lesson_id": lesson}, headers=headers
    )
    assert response.status_code == 201, response.text
    started: dict[str, Any] = response.json()
    return started


def _say(
    client: TestClient, headers: dict[str, str], session_id: str, message: str, **body: Any
) -> dict[str, Any]:
    response = client.post(
        "/api/v1/tutor/session/chat",
        json={"session_id": session_id, "message": message, **body},
        headers=headers,
    )
    assert response.status_code == 200, response.text
    turn: dict[str, Any] = response.json()
    return turn


def _right_letter(settings: Settings, quiz_id: str) -> str:
    db = Database(settings)
    try:
        with db.session() as session:
            lesson = session.get_one(Lesson, lesson_id(settings))
            card = next(c for c in lesson_quiz(lesson) if c.id == quiz_id)
            return chr(65 + card.correct_index)
    finally:
        db.dispose()


def test_a_guided_session_over_rest(client: TestClient, settings: Settings) -> None:
    headers = register_and_login(client)
    lesson = lesson_id(settings)
    started = _start(client, headers, lesson)
    session_id = started["session_id"]
    [welcome] = started["replies"]
    assert welcome["type"] == "assistant" and "Self-attention" in welcome["text"]
    assert started["status"]["started"] and not started["status"]["awaiting_quiz_answer"]

    explained = _say(client, headers, session_id, "Explain the scaling by sqrt(d_k), then quiz me")
    explanation, question = explained["replies"]  # explainer -> quiz, in one turn
    assert "variance" in explanation["text"] and question["quiz"]["options"]
    assert "correct_index" not in str(explained)
    status = explained["status"]
    assert status["awaiting_quiz_answer"] and status["question"] == question["quiz"]
    assert (status["quiz_position"], status["quiz_length"]) == (0, 3)

    letter = _right_letter(settings, question["quiz"]["id"])
    graded = _say(client, headers, session_id, letter, type="quiz_answer")
    verdict = graded["replies"][0]
    assert verdict["type"] == "feedback" and verdict["correct"] is True
    assert verdict["text"].startswith("Correct!") and "mastery" in verdict["text"]
    assert sum(r["type"] == "feedback" for r in graded["replies"]) == 1  # said once
    assert graded["status"]["quiz_position"] == 1

    status = client.get(f"/api/v1/tutor/session/status/{session_id}", headers=headers).json()
    assert status == graded["status"] and status["covered"]
    ended = client.post(f"/api/v1/tutor/session/end/{session_id}", headers=headers)
    assert ended.status_code == 200, ended.text
    summary = ended.json()
    assert summary["status"]["ended"] and "Covered:" in summary["replies"][-1]["text"]

    # the explanation is part of the learner's lesson conversation, which the chat continues
    stored = client.get(f"/api/v1/tutor/sessions/{session_id}", headers=headers).json()
    assert stored["lesson_id"] == lesson and stored["title"].startswith("Guided session")
    assert stored["messages"][0]["content"].startswith("Explain the scaling")
    assert chat(client, headers, SQRT, lesson_id=lesson, session_id=session_id).status == 200


def test_every_endpoint_needs_a_login_and_hides_other_learners_sessions(
    client: TestClient, settings: Settings
) -> None:
    lesson = lesson_id(settings)
    owner = register_and_login(client)
    session_id = _start(client, owner, lesson)["session_id"]
    calls = {
        "start": ("post", "/api/v1/tutor/session/start", {"lesson_id": lesson}),
        "chat": ("post", "/api/v1/tutor/session/chat", {"session_id": session_id, "message": "hi"}),
        "status": ("get", f"/api/v1/tutor/session/status/{session_id}", None),
        "end": ("post", f"/api/v1/tutor/session/end/{session_id}", None),
    }
    intruder = register_and_login(client, email="eve@example.org")
    for name, (method, url, body) in calls.items():
        anonymous = client.request(method, url, json=body)
        assert anonymous.status_code == 401, name
        if name != "start":
            stolen = client.request(method, url, json=body, headers=intruder)
            assert stolen.status_code == 404, (name, stolen.text)
            assert stolen.headers["content-type"] == "application/problem+json"
    missing = client.post("/api/v1/tutor/session/start", json={"lesson_id": 999_999}, headers=owner)
    assert missing.status_code == 404
    blank = client.post(
        "/api/v1/tutor/session/chat",
        json={"session_id": session_id, "message": "   "},
        headers=owner,
    )
    assert blank.status_code in (400, 422)
    # the intruder changed nothing: the owner's session is as it was
    status = client.get(f"/api/v1/tutor/session/status/{session_id}", headers=owner).json()
    assert status["messages"] == 1 and not status["ended"]


def test_the_session_endpoints_are_documented(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    paths = spec["paths"]
    assert "201" in paths["/api/v1/tutor/session/start"]["post"]["responses"]
    for path, method in (
        ("/api/v1/tutor/session/chat", "post"),
        ("/api/v1/tutor/session/status/{session_id}", "get"),
        ("/api/v1/tutor/session/end/{session_id}", "post"),
    ):
        assert {"401", "404"} <= set(paths[path][method]["responses"]), path
    assert not any(path.startswith("/api/v1/tutor/ws") for path in paths)


def _until_done(ws: Any) -> list[dict[str, Any]]:
    events = []
    while True:
        event = ws.receive_json()
        events.append(event)
        if event["type"] == "done":
            return events


def _ws_url(session_id: str) -> str:
    return f"/api/v1/tutor/session/ws/{session_id}"


def test_websocket_turns(client: TestClient, settings: Settings) -> None:
    headers = register_and_login(client)
    token = headers["Authorization"].removeprefix("Bearer ")
    session_id = _start(client, headers, lesson_id(settings))["session_id"]
    with client.websocket_connect(_ws_url(session_id)) as ws:
        ws.send_json({"type": "auth", "token": token})  # no token in the URL
        assert _until_done(ws)[-1]["session_id"] == session_id  # already welcomed: nothing new

        ws.send_json({"type": "message", "text": SQRT})
        explained = _until_done(ws)
        kinds = [e["type"] for e in explained]
        assert "tool_call" in kinds and "text" in kinds and "assistant" not in kinds  # streamed

        ws.send_json({"type": "message", "text": "Show me attention in code", "mode": "code"})
        coded = "".join(e.get("delta", "") for e in _until_done(ws) if e["type"] == "text")
        assert "```" in coded  # the code teaching mode reached the tutor

        ws.send_json({"type": "message", "text": "quiz me"})
        asked = _until_done(ws)
        quiz = asked[0]["quiz"]
        assert asked[-1]["status"]["question"] == quiz and "correct_index" not in quiz

        ws.send_json({"type": "quiz_answer", "answer": _right_letter(settings, quiz["id"])})
        graded = _until_done(ws)
        feedback = [e for e in graded if e["type"] == "feedback"]
        assert len(feedback) == 1 and feedback[0]["correct"] is True  # the verdict, once
        assert "mastery" in feedback[0]["text"]
        assert not any(e.get("text") == feedback[0]["text"] for e in graded if e is not feedback[0])

        ws.send_json({"type": "end"})
        ended = _until_done(ws)
        assert "Covered:" in ended[0]["text"] and ended[-1]["status"]["ended"]

        ws.send_json({"type": "nonsense"})
        assert ws.receive_json()["type"] == "error"


def _closed_with(client: TestClient, url: str, **kwargs: Any) -> int:
    with (
        pytest.raises(WebSocketDisconnect) as closed,
        client.websocket_connect(url, **kwargs) as ws,
    ):
        ws.receive_json()
    return closed.value.code


def test_websocket_needs_a_login_and_the_learners_own_session(
    client: TestClient, settings: Settings
) -> None:
    owner = register_and_login(client)
    url = _ws_url(_start(client, owner, lesson_id(settings))["session_id"])
    with pytest.raises(WebSocketDisconnect) as closed, client.websocket_connect(url) as ws:
        ws.send_json({"type": "message", "text": "hello"})  # not an auth message
        ws.receive_json()
    assert closed.value.code == 4401
    intruder = register_and_login(client, email="eve@example.org")
    client.cookies.set("tutorgraph_session", intruder["Authorization"].removeprefix("Bearer "))
    assert _closed_with(client, url) == 4404  # someone else's session does not exist for you
    assert _closed_with(client, _ws_url("x" * 300)) == 4404


def test_websocket_auth_never_takes_a_token_from_the_url(
    client: TestClient, settings: Settings
) -> None:
    headers = register_and_login(client)
    token = headers["Authorization"].removeprefix("Bearer ")
    url = _ws_url(_start(client, headers, lesson_id(settings))["session_id"])
    assert _closed_with(client, f"{url}?token={token}") == 4401  # waited for an auth message
    client.cookies.set("tutorgraph_session", token)
    with client.websocket_connect(url) as ws:  # the session cookie is enough
        assert ws.receive_json()["type"] == "done"


def test_websocket_refuses_foreign_origins(client: TestClient, settings: Settings) -> None:
    headers = register_and_login(client)
    url = _ws_url(_start(client, headers, lesson_id(settings))["session_id"])
    client.cookies.set("tutorgraph_session", headers["Authorization"].removeprefix("Bearer "))
    assert _closed_with(client, url, headers={"Origin": "https://evil.example"}) == 4403
    with client.websocket_connect(url, headers={"Origin": "http://testserver"}) as ws:
        assert ws.receive_json()["type"] == "done"


def test_websocket_allows_configured_origins(tmp_path: Path, seeded_data: Path) -> None:
    shutil.copytree(seeded_data, tmp_path / "data")
    configured = make_settings(
        tmp_path,
        content_dir=REPO_CONTENT,
        allowed_origins=["https://app.example"],
        limits={"websocket_auth_seconds": 0.2},
    )
    with TestClient(create_app(configured)) as client:
        headers = register_and_login(client)
        url = _ws_url(_start(client, headers, lesson_id(configured))["session_id"])
        allowed = {"Origin": "https://app.example"}
        assert _closed_with(client, url, headers=allowed) == 4401  # no auth message in time
        with client.websocket_connect(url, headers=allowed) as ws:
            ws.send_json({"type": "auth", "token": headers["Authorization"][7:]})
            assert ws.receive_json()["type"] == "done"
