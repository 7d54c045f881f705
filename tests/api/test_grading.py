from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from tests.conftest import register_and_login
from tutorgraph.settings import Settings
from tutorgraph.store import users
from tutorgraph.store.db import Database

QUESTION_ID = "self-attention-understand-1"


def test_grade_a_knowledge_base_question_moves_mastery(client: TestClient) -> None:
    headers = register_and_login(client)
    first = client.post(
        "/api/v1/grade", json={"question_id": QUESTION_ID, "answer": "no idea"}, headers=headers
    ).json()
    assert first["score"] < 0.1 and first["decision"] == "RETRY"
    assert first["mastery"]["concept"] == "self-attention"
    assert first["alert_id"] is not None
    mastery = client.get("/api/v1/mastery", headers=headers).json()
    assert [(m["concept"], m["attempts"]) for m in mastery] == [("self-attention", 1)]
    for key in ("score", "rubric", "error_type", "misconceptions", "feedback", "decision"):
        assert key in first


def test_grade_free_form_question(client: TestClient) -> None:
    headers = register_and_login(client)
    body = {
        "question": "What does HTTP status 404 mean?",
        "reference_answer": "The server cannot find the requested resource.",
        "answer": "The server cannot find the resource that was requested.",
    }
    result = client.post("/api/v1/grade", json=body, headers=headers).json()
    assert result["score"] >= 0.6 and result["mastery"] is None


def test_a_learner_cannot_grade_their_own_reference_into_mastery(client: TestClient) -> None:
    headers = register_and_login(client)
    body = {
        "question": "What is self-attention?",
        "reference_answer": "Anything I like.",
        "answer": "Anything I like.",
        "concept": "self-attention",
    }
    refused = client.post("/api/v1/grade", json=body, headers=headers)
    assert refused.status_code == 403 and "question_id" in refused.json()["detail"]
    assert client.get("/api/v1/mastery", headers=headers).json() == []


def _instructor(client: TestClient, settings: Settings) -> dict[str, str]:
    database = Database(settings)
    with database.session() as session:
        users.create_user(
            session=session,
            email="teach@example.org",
            password="plenty long enough",
            name="T",
            role="instructor",
        )
    database.dispose()
    token = client.post(
        "/api/v1/auth/login", json={"email": "teach@example.org", "password": "plenty long enough"}
    ).json()["access_token"]
    client.cookies.clear()
    return {"Authorization": f"Bearer {token}"}


def test_an_instructor_may_grade_a_free_form_answer_into_a_concept(
    client: TestClient, settings: Settings
) -> None:
    body = {"question": "Q?", "reference_answer": "An answer.", "answer": "An answer."}
    graded = client.post(
        "/api/v1/grade", json={**body, "concept": "c"}, headers=_instructor(client, settings)
    )
    assert graded.status_code == 200 and graded.json()["mastery"]["concept"] == "c"
    # "c" is no knowledge-base concept: it plans no step (the learner's own path stands)
    assert graded.json()["next"]["step_id"] is None


def test_grade_rejects_bad_input(client: TestClient) -> None:
    headers = register_and_login(client)
    missing = client.post("/api/v1/grade", json={"answer": "x"}, headers=headers)
    assert missing.status_code == 422 and "question_id" in missing.json()["detail"]
    unknown = client.post(
        "/api/v1/grade", json={"question_id": "nope", "answer": "an answer"}, headers=headers
    )
    assert unknown.status_code == 404
    too_long = client.post(
        "/api/v1/grade", json={"question_id": QUESTION_ID, "answer": "x" * 10_001}, headers=headers
    )
    assert too_long.status_code == 422
    assert (
        client.post("/api/v1/grade", json={"question_id": QUESTION_ID, "answer": "x"}).status_code
        == 401
    )


def test_alerts_are_for_instructors_of_the_learners_course_only(
    client: TestClient, settings: Settings, tmp_path: Path
) -> None:
    learner = register_and_login(client)
    graded = client.post(
        "/api/v1/grade", json={"question_id": QUESTION_ID, "answer": "no idea"}, headers=learner
    ).json()
    assert graded["alert_id"] is not None
    # the result carries the path planner's next step: the question again, with a hint
    assert graded["next"]["decision"] in ("RETRY", "REMEDIATE", "ALTERNATE")
    assert graded["next"]["step_id"] is not None
    assert client.get("/api/v1/alerts", headers=learner).status_code == 403
    # an instructor who teaches no course of this learner's sees nothing and handles nothing
    teacher = _instructor(client, settings)
    assert client.get("/api/v1/alerts", headers=teacher).json() == []
    refused = client.post(f"/api/v1/alerts/{graded['alert_id']}/read", headers=teacher)
    assert refused.status_code == 404
