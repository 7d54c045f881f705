"""POST /api/v1/assessments/{id}/finish: the owner ends an assessment now and gets a report on
what was answered (issue 35)."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.conftest import register_and_login
from tutorgraph.knowledge import get_domain

DONT_KNOW = {"answer": "I don't know."}


def _start(client: TestClient, headers: dict[str, str]) -> dict[str, Any]:
    body = {"domain": "machine-learning", "target_level": "junior"}
    response = client.post("/api/v1/assessments", json=body, headers=headers)
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()
    return data


def test_finish_now_reports_on_what_was_answered(client: TestClient) -> None:
    ada = register_and_login(client)
    bob = register_and_login(client, email="bob@example.org")
    started = _start(client, ada)
    url = f"/api/v1/assessments/{started['id']}"

    assert client.post(f"{url}/finish").status_code == 401
    assert client.post(f"{url}/finish", headers=bob).status_code == 404
    too_early = client.post(f"{url}/finish", headers=ada)
    assert too_early.status_code == 409
    assert "at least one question" in too_early.json()["detail"]
    assert client.get(url, headers=ada).json()["interrupt"] == started["interrupt"]

    first = client.post(f"{url}/answers", json=DONT_KNOW, headers=ada).json()
    assert first["answered"] == 1
    assert first["left"]["least"] <= first["left"]["estimate"] <= first["left"]["most"]
    too_long = client.post(f"{url}/finish", json={"answer": "x" * 10_001}, headers=ada)
    assert too_long.status_code == 422
    # The answer sent with the finish is graded first.
    finished = client.post(f"{url}/finish", json={"answer": "No idea at all."}, headers=ada)
    assert finished.status_code == 200, finished.text
    view = finished.json()
    report = view["report"]
    assert view["status"] == "complete" and view["interrupt"] is None
    assert [item["answer"] for item in report["review"]] == ["I don't know.", "No idea at all."]
    assessed = set(report["knowledge_graph"]["nodes"])
    assert {g["topic_id"] for g in report["gaps"]} <= assessed
    agenda = get_domain("machine-learning").agenda("junior")
    assert report["not_assessed"] == [t for t in agenda if t not in assessed]
    assert report["not_assessed"] and report["finished_early"] is True

    again = client.post(f"{url}/finish", headers=ada)  # idempotent
    assert again.status_code == 200 and again.json()["report"] == report
    assert client.post(f"{url}/answers", json=DONT_KNOW, headers=ada).status_code == 409
    # One report, into the learning loop once: each answered topic moved mastery once.
    progress = client.get("/api/v1/me/progress", headers=ada).json()
    attempts = {c["concept"]: c["attempts"] for c in progress["concepts"]}
    assert {t: attempts[t] for t in assessed} == dict.fromkeys(assessed, 1)


def test_the_openapi_document_lists_finish(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    operation = document["paths"]["/api/v1/assessments/{assessment_id}/finish"]["post"]
    assert "409" in operation["responses"]
