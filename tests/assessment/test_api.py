"""The assessments API: start, answer to the report, read, list; ownership; restart survival."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.conftest import register_and_login
from tutorgraph.server import create_app
from tutorgraph.settings import Settings
from tutorgraph.store import migrate

DONT_KNOW = {"answer": "I don't know."}


def _start(client: TestClient, headers: dict[str, str], **body: str) -> dict[str, Any]:
    body = {"domain": "machine-learning", "target_level": "junior", **body}
    response = client.post("/api/v1/assessments", json=body, headers=headers)
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()
    return data


def test_an_assessment_runs_from_first_question_to_report(client: TestClient) -> None:
    headers = register_and_login(client)
    started = _start(client, headers)
    assert started["status"] == "in_progress" and started["report"] is None
    interrupt = started["interrupt"]
    assert interrupt["type"] == "assessment"
    assert interrupt["question"]["topic"] == "ml-fundamentals"
    assert interrupt["question"]["bloomLevel"] == "understand"
    assert (interrupt["topics_evaluated"], interrupt["total_questions"]) == (0, 1)
    assert interrupt["max_questions"] == 20  # 5 junior topics x 4
    assert started["topic_title"] == "Supervised learning fundamentals"

    current, topics = started, []
    while current["status"] == "in_progress":
        topics.append(current["interrupt"]["question"]["topic"])
        response = client.post(
            f"/api/v1/assessments/{started['id']}/answers", json=DONT_KNOW, headers=headers
        )
        assert response.status_code == 200, response.text
        current = response.json()
    # "I don't know" is weak everywhere: one question per topic, in prerequisite order.
    assert topics == [
        "ml-fundamentals",
        "linear-models",
        "model-evaluation",
        "regularization-generalization",
        "trees-ensembles",
    ]
    report = current["report"]
    assert current["interrupt"] is None
    assert report["questions_asked"] == 5 and report["overall_readiness"] < 20
    assert [g["priority"] for g in report["gaps"]].count("critical") >= 3
    assert all(g["recommendation"] for g in report["gaps"])
    assert 3 <= len(report["plan"]["phases"]) <= 5
    assert set(report["knowledge_graph"]["nodes"]) == set(topics)

    fetched = client.get(f"/api/v1/assessments/{started['id']}", headers=headers).json()
    assert fetched["status"] == "complete" and fetched["report"] == report
    [listed] = client.get("/api/v1/assessments", headers=headers).json()
    assert (listed["id"], listed["overall_readiness"]) == (
        started["id"],
        report["overall_readiness"],
    )
    again = client.post(
        f"/api/v1/assessments/{started['id']}/answers", json=DONT_KNOW, headers=headers
    )
    assert again.status_code == 409
    # the learning loop: every answer is a review of its topic; the plan's other topics are
    # scheduled into the review queue by phase (the first at once), read once however often
    # the finished assessment is fetched
    client.get(f"/api/v1/assessments/{started['id']}", headers=headers)
    reviews = {r["concept"]: r for r in client.get("/api/v1/me/reviews", headers=headers).json()}
    assert all(reviews[topic]["reviews"] == 1 for topic in topics)
    planned = {t for phase in report["plan"]["phases"] for t in phase["topics"]}
    assert planned <= set(reviews)
    assert client.get("/api/v1/me/next", headers=headers).json()["step_id"] is None
    # ...and every answered topic is on the progress page's knowledge graph, weak, with its
    # answer as the evidence
    progress = client.get("/api/v1/me/progress", headers=headers).json()
    concepts = {c["concept"]: c for c in progress["concepts"]}
    assert set(topics) <= set(concepts)
    assert all(concepts[t]["attempts"] == 1 and concepts[t]["mastery"] < 0.4 for t in topics)
    [evidence] = concepts[topics[0]]["evidence"]
    assert (
        evidence["source"] == "assessment" and evidence["after"] == concepts[topics[0]]["mastery"]
    )


def test_only_the_owner_sees_an_assessment(client: TestClient) -> None:
    ada = register_and_login(client)
    bob = register_and_login(client, email="bob@example.org")
    started = _start(client, ada)
    url = f"/api/v1/assessments/{started['id']}"
    assert client.get(url, headers=bob).status_code == 404
    assert client.post(f"{url}/answers", json=DONT_KNOW, headers=bob).status_code == 404
    assert client.get("/api/v1/assessments", headers=bob).json() == []
    assert client.get(url).status_code == 401
    assert client.post("/api/v1/assessments", json={"domain": "python"}).status_code == 401
    # Bob's attempts changed nothing: Ada's first question still waits.
    assert client.get(url, headers=ada).json()["interrupt"] == started["interrupt"]


def test_bad_input_and_stale_answers_are_refused(client: TestClient) -> None:
    headers = register_and_login(client)
    bad_level = client.post(
        "/api/v1/assessments", json={"domain": "python", "target_level": "guru"}, headers=headers
    )
    assert bad_level.status_code == 422
    assert bad_level.headers["content-type"] == "application/problem+json"
    unknown = client.post(
        "/api/v1/assessments", json={"domain": "cooking", "target_level": "mid"}, headers=headers
    )
    detail = unknown.json()["detail"]  # an unknown domain, like a hidden one: 404, no list
    assert unknown.status_code == 404 and "cooking" in detail and "python" not in detail
    started = _start(client, headers)
    first = started["interrupt"]["question"]["id"]
    url = f"/api/v1/assessments/{started['id']}/answers"
    answered = client.post(url, json={**DONT_KNOW, "question_id": first}, headers=headers)
    assert answered.status_code == 200
    stale = client.post(url, json={**DONT_KNOW, "question_id": first}, headers=headers)
    assert stale.status_code == 409
    assert answered.json()["interrupt"]["question"]["id"] in stale.json()["detail"]
    too_long = client.post(url, json={"answer": "x" * 10_001}, headers=headers)
    assert too_long.status_code == 422


def test_an_assessment_survives_a_server_restart(any_settings: Settings) -> None:
    migrate.upgrade(any_settings)
    with TestClient(create_app(any_settings)) as first_server:
        headers = register_and_login(first_server)
        started = _start(first_server, headers, domain="python", target_level="mid")
        url = f"/api/v1/assessments/{started['id']}"
        for _ in range(2):
            response = first_server.post(f"{url}/answers", json=DONT_KNOW, headers=headers)
            assert response.status_code == 200
        waiting = response.json()["interrupt"]
    assert waiting["total_questions"] == 3

    with TestClient(create_app(any_settings)) as second_server:
        resumed = second_server.get(url, headers=headers).json()
        assert resumed["interrupt"] == waiting
        current = resumed
        while current["status"] == "in_progress":
            current = second_server.post(f"{url}/answers", json=DONT_KNOW, headers=headers).json()
        # One weak answer per topic: 10 evaluated (MAX_TOPICS), then the 11th topic's answer.
        assert current["report"]["questions_asked"] == 11
        assert current["report"]["topics_evaluated"][:3] == [
            "python-data-model",
            "builtin-data-structures",
            "functions-and-scope",
        ]


def test_the_openapi_document_describes_the_interrupt_payload(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    assert {"/api/v1/assessments", "/api/v1/assessments/{assessment_id}/answers"} <= set(
        document["paths"]
    )
    schemas = document["components"]["schemas"]
    assert list(schemas["AssessmentInterrupt"]["properties"]) == [
        "type",
        "question",
        "topics_evaluated",
        "total_questions",
        "max_questions",
    ]
    assert list(schemas["QuestionPayload"]["properties"]) == [
        "id",
        "topic",
        "bloomLevel",
        "text",
        "questionType",
    ]
