"""Bad input and data integrity at the edge: ids out of range, oversized bodies, configurable
text limits, timestamps with offsets, and the security schemes the API declares."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import jwt
import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlalchemy import select
from starlette.websockets import WebSocketDisconnect

from tests.conftest import TEST_SECRET, make_settings, register_and_login
from tests.store.test_conformance import write_course
from tutorgraph.cli.seed import run_seed
from tutorgraph.server import create_app
from tutorgraph.settings import Settings
from tutorgraph.store import migrate
from tutorgraph.store.db import Database
from tutorgraph.store.models import LearningPath, User

TOO_BIG = 2**63  # past SQLite's 64-bit integers, and far past PostgreSQL's 32-bit INTEGER
PG_TOO_BIG = 2**31  # fits SQLite, overflows a PostgreSQL INTEGER column


# --- ids beyond what the database holds ---------------------------------------------------------


@pytest.mark.parametrize("lesson", [TOO_BIG, PG_TOO_BIG, 0, -1])
def test_an_id_out_of_range_in_a_path_is_invalid_input(client: TestClient, lesson: int) -> None:
    headers = register_and_login(client)
    for response in (
        client.get(f"/api/v1/lessons/{lesson}"),
        client.put(f"/api/v1/lessons/{lesson}/progress", json={}, headers=headers),
        client.get(f"/api/v1/tutor/sessions?lesson_id={lesson}", headers=headers),
    ):
        assert response.status_code == 422, response.text
        assert response.headers["content-type"] == "application/problem+json"
        assert "lesson_id" in response.json()["detail"]


def test_an_id_out_of_range_in_a_body_is_invalid_input(client: TestClient) -> None:
    headers = register_and_login(client)
    answer = client.post(
        "/api/v1/tutor/quiz-answer",
        json={"lesson_id": TOO_BIG, "session_id": "s", "quiz_id": "q", "selected_index": 0},
        headers=headers,
    )
    chat = client.post(
        "/api/v1/tutor/chat", json={"lesson_id": PG_TOO_BIG, "message": "hi"}, headers=headers
    )
    for response in (answer, chat):
        assert response.status_code == 422, response.text
        assert response.json()["errors"][0]["field"] == "lesson_id"


def test_a_websocket_for_an_impossible_session_closes_cleanly(client: TestClient) -> None:
    register_and_login(client)
    login = client.post(
        "/api/v1/auth/login", json={"email": "ada@example.org", "password": "correct horse"}
    )
    assert login.status_code == 200  # the session cookie authenticates the socket
    with (
        pytest.raises(WebSocketDisconnect) as closed,
        client.websocket_connect(f"/api/v1/tutor/session/ws/{'9' * 2000}") as ws,
    ):
        ws.receive_json()
    assert closed.value.code == 4404  # no such session: looked up, never a server error


@pytest.mark.parametrize("subject", ["9" * 40, str(TOO_BIG), str(PG_TOO_BIG), "0", "-3"])
def test_a_token_for_an_impossible_user_id_is_an_auth_failure(
    client: TestClient, subject: str
) -> None:
    now = datetime.now(UTC)
    token = jwt.encode(
        {"sub": subject, "role": "learner", "iat": now, "exp": now + timedelta(minutes=5)},
        TEST_SECRET,
        algorithm="HS256",
    )
    response = client.get("/api/v1/auth/me", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 401
    assert response.json()["title"] == "Not authenticated"


# --- request bodies are bounded ------------------------------------------------------------------


@pytest.fixture
def small_body_client(tmp_path: Path) -> Iterator[TestClient]:
    settings = make_settings(tmp_path, limits={"max_body_bytes": 4096})
    migrate.upgrade(settings)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def _register_body(size: int) -> bytes:
    padding = "x" * max(0, size - 80)
    return json.dumps(
        {"email": "big@example.org", "password": "correct horse", "name": padding}
    ).encode()


def test_a_declared_body_over_the_limit_is_refused_before_it_is_read(
    small_body_client: TestClient,
) -> None:
    response = small_body_client.post(
        "/api/v1/auth/register",
        content=_register_body(5000),
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code == 413
    assert response.headers["content-type"] == "application/problem+json"
    assert "4096 bytes" in response.json()["detail"]
    within = small_body_client.post(
        "/api/v1/auth/register",
        content=_register_body(300),
        headers={"Content-Type": "application/json"},
    )
    assert within.status_code in (201, 422)  # read and judged on its content


def test_a_streamed_body_is_counted_and_stopped_at_the_limit(
    small_body_client: TestClient,
) -> None:
    def chunks() -> Iterator[bytes]:
        body = _register_body(50_000)
        for start in range(0, len(body), 1000):
            yield body[start : start + 1000]

    response = small_body_client.post(
        "/api/v1/auth/register", content=chunks(), headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 413
    assert response.json()["title"] == "Content too large"
    assert "content-length" not in {k.lower() for k in response.request.headers}


# --- the configured text limits are the ones enforced --------------------------------------------


@pytest.fixture
def short_text_client(tmp_path: Path) -> Iterator[TestClient]:
    limits = {"max_answer_chars": 120, "max_message_chars": 150}
    settings = make_settings(tmp_path, limits=limits)
    migrate.upgrade(settings)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def start_round(client: TestClient, headers: dict[str, str]) -> str:
    """A practice round on a shipped topic; its id."""
    started = client.post(
        "/api/v1/practice/rounds",
        json={"domain": "python", "topic": "decorators-closures"},
        headers=headers,
    )
    assert started.status_code == 201, started.text
    round_id: str = started.json()["id"]
    return round_id


def test_answers_longer_than_max_answer_chars_are_refused_by_name(
    short_text_client: TestClient,
) -> None:
    client = short_text_client
    headers = register_and_login(client)
    round_id = start_round(client, headers)
    long_answer = "a closure keeps its variables " * 5  # 150 characters: over 120, under 10,000
    practice = client.post(
        f"/api/v1/practice/rounds/{round_id}/answers", json={"answer": long_answer}, headers=headers
    )
    grade = client.post(
        "/api/v1/grade",
        json={"question": "q?", "reference_answer": long_answer, "answer": "short"},
        headers=headers,
    )
    assessment = client.post(
        "/api/v1/assessments", json={"domain": "python", "target_level": "junior"}, headers=headers
    )
    assert assessment.status_code == 201, assessment.text
    assess = client.post(
        f"/api/v1/assessments/{assessment.json()['id']}/answers",
        json={"answer": long_answer},
        headers=headers,
    )
    for response, field in ((practice, "answer"), (grade, "reference_answer"), (assess, "answer")):
        assert response.status_code == 422, response.text
        assert response.json()["detail"].startswith(f"{field}: at most 120 characters")
    within = client.post(
        f"/api/v1/practice/rounds/{round_id}/answers", json={"answer": "x" * 120}, headers=headers
    )
    assert within.status_code == 200


def test_tutor_messages_longer_than_max_message_chars_are_refused(
    short_text_client: TestClient,
) -> None:
    headers = register_and_login(short_text_client)
    response = short_text_client.post(
        "/api/v1/explore/chat", json={"message": "why? " * 40}, headers=headers
    )
    assert response.status_code == 422
    assert response.json()["detail"].startswith("message: at most 150 characters")


def _error_page(response: httpx.Response) -> str:
    assert "text/html" in response.headers["content-type"]
    alert = BeautifulSoup(response.text, "html.parser").find(attrs={"role": "alert"})
    assert alert is not None, response.text
    return alert.get_text(strip=True)


def test_web_forms_show_the_limit_instead_of_failing(short_text_client: TestClient) -> None:
    client = short_text_client
    headers = register_and_login(client)
    round_id = start_round(client, headers)
    page = client.get(f"/quiz/{round_id}", headers=headers)
    textarea = BeautifulSoup(page.text, "html.parser").find("textarea", id="answer")
    assert textarea is not None and textarea["maxlength"] == "120"  # the browser knows it too
    html = {"Accept": "text/html", **headers}
    practice = client.post(
        f"/quiz/{round_id}/answer", data={"answer": "y" * 121}, headers=html, follow_redirects=False
    )
    assessment = client.post(
        "/api/v1/assessments", json={"domain": "python", "target_level": "junior"}, headers=headers
    ).json()
    assess = client.post(
        f"/assess/{assessment['id']}/answers",
        data={"answer": "y" * 121},
        headers=html,
        follow_redirects=False,
    )
    for response in (practice, assess):
        assert response.status_code == 422
        assert _error_page(response).startswith("answer: at most 120 characters")


# --- timestamps and the documented security schemes ----------------------------------------------


def _timestamps(document: object) -> list[str]:
    """Every `*_at` value in a JSON document."""
    found: list[str] = []
    if isinstance(document, dict):
        for key, value in document.items():
            if key.endswith("_at") and isinstance(value, str):
                found.append(value)
            else:
                found += _timestamps(value)
    elif isinstance(document, list):
        for item in document:
            found += _timestamps(item)
    return found


def test_every_timestamp_the_api_returns_carries_its_offset(client: TestClient) -> None:
    headers = register_and_login(client)
    round_id = start_round(client, headers)
    client.post(
        f"/api/v1/practice/rounds/{round_id}/answers",
        json={"answer": "A closure captures variables."},
        headers=headers,
    )
    chat = client.post(
        "/api/v1/explore/chat", json={"message": "What is a closure?"}, headers=headers
    )
    assert chat.status_code == 200
    explore_id = chat.headers["x-session-id"]
    documents = [
        client.get(f"/api/v1/practice/rounds/{round_id}", headers=headers).json(),
        client.get("/api/v1/practice/rounds", headers=headers).json(),
        client.get("/api/v1/mastery", headers=headers).json(),
        client.get("/api/v1/explore/sessions", headers=headers).json(),
        client.get(f"/api/v1/explore/sessions/{explore_id}", headers=headers).json(),
    ]
    stamps = [stamp for document in documents for stamp in _timestamps(document)]
    assert len(stamps) >= 6
    for stamp in stamps:
        parsed = datetime.fromisoformat(stamp)
        assert parsed.utcoffset() == timedelta(0), stamp
    age = datetime.now(UTC) - datetime.fromisoformat(stamps[0])
    assert timedelta(0) <= age < timedelta(minutes=5)  # UTC really, not local time labelled UTC


def test_openapi_declares_bearer_and_cookie_authentication(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    schemes = schema["components"]["securitySchemes"]
    assert schemes["HTTPBearer"] == {
        "type": "http",
        "scheme": "bearer",
        "description": "The `access_token` from `POST /api/v1/auth/login`.",
    }
    assert schemes["APIKeyCookie"]["in"] == "cookie"
    assert schemes["APIKeyCookie"]["name"] == "tutorgraph_session"
    me = schema["paths"]["/api/v1/auth/me"]["get"]
    assert {"HTTPBearer": []} in me["security"] and {"APIKeyCookie": []} in me["security"]


# --- sharing can be taken back -------------------------------------------------------------------


@pytest.fixture
def private_course(client: TestClient, settings: Settings) -> dict[str, dict[str, str]]:
    """The demo course, private to its owner; a member who joined by link; a latecomer."""
    write_course(settings.content_dir)
    run_seed(settings)
    people = {
        name: register_and_login(client, email=f"{name}@example.org")
        for name in ("owner", "member", "latecomer")
    }
    database = Database(settings)
    with database.session() as session:
        owner = session.scalars(select(User).where(User.email == "owner@example.org")).one()
        course = session.scalars(select(LearningPath).where(LearningPath.slug == "demo")).one()
        course.visibility, course.created_by = "private", owner.id
    database.dispose()
    token = client.post("/api/v1/courses/demo/share", headers=people["owner"]).json()
    assert client.post(
        f"/api/v1/shares/{token['share_token']}", headers=people["member"]
    ).is_success
    return people


def _sees_course(client: TestClient, headers: dict[str, str]) -> bool:
    return client.get("/api/v1/courses/demo", headers=headers).status_code == 200


def test_a_rotated_link_stops_working_for_people_who_have_not_joined(
    client: TestClient, private_course: dict[str, dict[str, str]]
) -> None:
    owner, member, latecomer = private_course.values()
    old = client.post("/api/v1/courses/demo/share", headers=owner).json()["share_token"]
    new = client.post("/api/v1/courses/demo/share", headers=owner).json()["share_token"]
    assert new != old
    assert client.post(f"/api/v1/shares/{old}", headers=latecomer).status_code == 404
    assert not _sees_course(client, latecomer)
    assert _sees_course(client, member)  # joined before: keeps access
    assert client.post(f"/api/v1/shares/{new}", headers=latecomer).status_code == 200


def test_the_owner_can_revoke_the_link_and_remove_a_member(
    client: TestClient, private_course: dict[str, dict[str, str]]
) -> None:
    owner, member, latecomer = private_course.values()
    token = client.post("/api/v1/courses/demo/share", headers=owner).json()["share_token"]
    assert client.delete("/api/v1/courses/demo/share", headers=member).status_code == 403
    assert client.delete("/api/v1/courses/demo/share", headers=owner).status_code == 204
    assert client.post(f"/api/v1/shares/{token}", headers=latecomer).status_code == 404
    assert _sees_course(client, member)

    members = client.get("/api/v1/courses/demo/shares", headers=owner).json()
    assert [m["name"] for m in members] == ["Ada"]
    member_id = members[0]["user_id"]
    path = f"/api/v1/courses/demo/shares/{member_id}"
    assert client.get("/api/v1/courses/demo/shares", headers=member).status_code == 403
    assert client.delete(path, headers=member).status_code == 403
    assert client.delete(path, headers=owner).status_code == 204
    assert not _sees_course(client, member)
    assert client.delete(path, headers=owner).status_code == 404
    assert client.get("/api/v1/courses/demo/shares", headers=owner).json() == []
