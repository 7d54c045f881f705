"""Inline quiz answers move mastery; the WebSocket runs coordinator turns."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from starlette.websockets import WebSocketDisconnect

from tests.conftest import make_settings, register_and_login
from tests.tutor.conftest import REPO_CONTENT, chat, lesson_id, public_cards
from tutorgraph.api.app import create_app
from tutorgraph.settings import Settings
from tutorgraph.store.db import Database
from tutorgraph.store.models import Lesson
from tutorgraph.tutor.quiz_grading import lesson_quiz


def _cards(settings: Settings) -> list[Any]:
    db = Database(settings)
    try:
        with db.session() as session:
            lesson = session.scalars(select(Lesson).where(Lesson.slug == "self-attention")).one()
            return lesson_quiz(lesson)
    finally:
        db.dispose()


def _answer(
    client: TestClient, headers: dict[str, str], lesson: int, session_id: str, quiz: Any, index: int
) -> Any:
    return client.post(
        "/api/v1/tutor/quiz-answer",
        json={
            "lesson_id": lesson,
            "session_id": session_id,
            "quiz_id": quiz.id,
            "selected_index": index,
        },
        headers=headers,
    )


def test_an_inline_quiz_card_moves_mastery_once_per_learner(
    client: TestClient, settings: Settings
) -> None:
    headers = register_and_login(client)
    lesson = lesson_id(settings)
    stream = chat(client, headers, "quiz me", lesson_id=lesson)
    first_chat = stream.headers["x-session-id"]
    shown = public_cards(stream.text)[0]
    quiz = next(card for card in _cards(settings) if card.id == shown["id"])
    wrong_index = (quiz.correct_index + 1) % len(quiz.options)

    wrong = _answer(client, headers, lesson, first_chat, quiz, wrong_index)
    assert wrong.status_code == 200, wrong.text
    body = wrong.json()
    assert body["correct"] is False and body["recorded"] is True
    assert body["correct_index"] is None and body["explanation"] is None  # nothing given away
    assert body["feedback"] and quiz.options[quiz.correct_index] not in body["feedback"]
    assert body["mastery"]["after"] <= body["mastery"]["before"]

    retry = _answer(client, headers, lesson, first_chat, quiz, quiz.correct_index).json()
    assert retry["correct"] is True and retry["recorded"] is False  # a second try is no evidence
    assert retry["correct_index"] == quiz.correct_index and retry["explanation"]
    assert retry["mastery"]["before"] == retry["mastery"]["after"] == body["mastery"]["after"]
    reopened = client.get(f"/api/v1/tutor/sessions/{first_chat}", headers=headers).json()
    assert reopened["quiz_answers"] == {  # as the learner left it: answered right at last
        quiz.id: {
            "selected_index": quiz.correct_index,
            "correct": True,
            "correct_index": quiz.correct_index,
            "explanation": retry["explanation"],
            "why": None,
        }
    }

    later = chat(client, headers, "quiz me", lesson_id=lesson)
    second_chat = later.headers["x-session-id"]
    assert second_chat != first_chat
    fresh = _answer(client, headers, lesson, second_chat, quiz, quiz.correct_index).json()
    assert fresh["correct"] is True and fresh["recorded"] is False  # a new chat farms nothing
    assert fresh["mastery"]["before"] == fresh["mastery"]["after"] == body["mastery"]["after"]
    mastery = client.get("/api/v1/mastery", headers=headers).json()
    assert [(row["concept"], row["attempts"]) for row in mastery] == [
        (body["mastery"]["concept"], 1)
    ]


def test_a_card_never_shown_to_the_learner_cannot_be_answered(
    client: TestClient, settings: Settings
) -> None:
    headers = register_and_login(client)
    lesson = lesson_id(settings)
    hello = chat(client, headers, "hello", lesson_id=lesson)
    assert hello.of("text") and "<quiz>" not in hello.text
    for card in _cards(settings):
        response = _answer(client, headers, lesson, hello.session_id, card, card.correct_index)
        assert response.status_code == 404, response.text
    mastery = client.get("/api/v1/mastery", headers=headers).json()
    assert mastery == []


def test_quiz_answer_errors(client: TestClient, settings: Settings) -> None:
    lesson = lesson_id(settings)
    card = _cards(settings)[0]
    anonymous = _answer(client, {}, lesson, "x", card, 0)
    assert anonymous.status_code == 401
    headers = register_and_login(client)
    own_chat = chat(client, headers, "hello", lesson_id=lesson).headers["x-session-id"]
    no_session = client.post(
        "/api/v1/tutor/quiz-answer",
        json={"lesson_id": lesson, "quiz_id": card.id, "selected_index": 0},
        headers=headers,
    )
    assert no_session.status_code == 422
    missing = client.post(
        "/api/v1/tutor/quiz-answer",
        json={"lesson_id": lesson, "session_id": own_chat, "quiz_id": "nope", "selected_index": 0},
        headers=headers,
    )
    assert missing.status_code == 404
    quizzed = chat(client, headers, "quiz me", lesson_id=lesson)
    shown = next(c for c in _cards(settings) if c.id == public_cards(quizzed.text)[0]["id"])
    out_of_range = _answer(client, headers, lesson, quizzed.session_id, shown, 19)
    assert out_of_range.status_code in (400, 422)
    other_lesson = lesson_id(settings, "transformer-architecture")
    elsewhere = _answer(client, headers, other_lesson, own_chat, card, 0)
    assert elsewhere.status_code in (400, 404, 422)

    intruder = register_and_login(client, email="eve@example.org")
    stolen = _answer(client, intruder, lesson, own_chat, card, card.correct_index)
    assert stolen.status_code == 404  # someone else's conversation does not exist for you


def _until_done(ws: Any) -> list[dict[str, Any]]:
    events = []
    while True:
        event = ws.receive_json()
        events.append(event)
        if event["type"] == "done":
            return events


def test_websocket_turns(client: TestClient, settings: Settings) -> None:
    headers = register_and_login(client)
    token = headers["Authorization"].removeprefix("Bearer ")
    lesson = lesson_id(settings)
    card = _cards(settings)[0]
    with client.websocket_connect(f"/api/v1/tutor/ws/{lesson}") as ws:
        ws.send_json({"type": "auth", "token": token})  # no token in the URL
        welcome = _until_done(ws)
        assert welcome[0]["type"] == "assistant" and "Welcome" in welcome[0]["text"]

        ws.send_json({"type": "message", "text": "Why do we divide by the square root of d_k?"})
        explained = _until_done(ws)
        kinds = [e["type"] for e in explained]
        assert "tool_call" in kinds and "text" in kinds
        assert explained[-1]["session_id"]

        ws.send_json({"type": "message", "text": "Show me attention in code", "mode": "code"})
        coded = "".join(e.get("delta", "") for e in _until_done(ws) if e["type"] == "text")
        assert "```" in coded  # the code teaching mode reached the tutor

        ws.send_json({"type": "message", "text": "quiz me"})
        asked = _until_done(ws)
        assert asked[0]["quiz"]["id"] == card.id

        ws.send_json({"type": "quiz_answer", "answer": str(card.correct_index + 1)})
        graded = _until_done(ws)
        feedback = next(e for e in graded if e["type"] == "feedback")
        assert feedback["correct"] is True and "mastery" in feedback["text"]

        ws.send_json({"type": "nonsense"})
        assert ws.receive_json()["type"] == "error"


def test_websocket_needs_a_login(client: TestClient, settings: Settings) -> None:
    url = f"/api/v1/tutor/ws/{lesson_id(settings)}"
    with pytest.raises(WebSocketDisconnect) as closed, client.websocket_connect(url) as ws:
        ws.send_json({"type": "message", "text": "hello"})  # not an auth message
        ws.receive_json()
    assert closed.value.code == 4401


def _closed_with(client: TestClient, url: str, **kwargs: Any) -> int:
    with (
        pytest.raises(WebSocketDisconnect) as closed,
        client.websocket_connect(url, **kwargs) as ws,
    ):
        ws.receive_json()
    return closed.value.code


def test_websocket_auth_never_takes_a_token_from_the_url(
    client: TestClient, settings: Settings
) -> None:
    headers = register_and_login(client)
    token = headers["Authorization"].removeprefix("Bearer ")
    url = f"/api/v1/tutor/ws/{lesson_id(settings)}"
    assert _closed_with(client, f"{url}?token={token}") == 4401  # waited for an auth message
    client.cookies.set("tutorgraph_session", token)
    with client.websocket_connect(url) as ws:  # the session cookie is enough
        assert ws.receive_json()["type"] == "assistant"


def test_websocket_refuses_foreign_origins(client: TestClient, settings: Settings) -> None:
    headers = register_and_login(client)
    client.cookies.set("tutorgraph_session", headers["Authorization"].removeprefix("Bearer "))
    url = f"/api/v1/tutor/ws/{lesson_id(settings)}"
    assert _closed_with(client, url, headers={"Origin": "https://evil.example"}) == 4403
    with client.websocket_connect(url, headers={"Origin": "http://testserver"}) as ws:
        assert ws.receive_json()["type"] == "assistant"


def test_websocket_allows_configured_origins(tmp_path: Path, _seeded_data: Path) -> None:
    shutil.copytree(_seeded_data, tmp_path / "data")
    configured = make_settings(
        tmp_path,
        content_dir=REPO_CONTENT,
        allowed_origins=["https://app.example"],
        limits={"websocket_auth_seconds": 0.2},
    )
    with TestClient(create_app(configured)) as client:
        url = f"/api/v1/tutor/ws/{lesson_id(configured)}"
        allowed = {"Origin": "https://app.example"}
        assert _closed_with(client, url, headers=allowed) == 4401  # no auth message in time
        headers = register_and_login(client)
        with client.websocket_connect(url, headers=allowed) as ws:
            ws.send_json({"type": "auth", "token": headers["Authorization"][7:]})
            assert ws.receive_json()["type"] == "assistant"
