from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from tests.conftest import register_and_login
from tests.store.test_conformance import write_course
from tutorgraph.cli.seed import run_seed
from tutorgraph.settings import Settings
from tutorgraph.store.db import Database
from tutorgraph.store.models import LearningPath, User


@pytest.fixture
def seeded(client: TestClient, settings: Settings) -> TestClient:
    write_course(settings.content_dir)
    run_seed(settings)
    return client


def make_private_course(settings: Settings, owner_email: str) -> None:
    database = Database(settings)
    with database.session() as session:
        owner = session.scalar(select(User).where(User.email == owner_email))
        course = session.scalar(select(LearningPath).where(LearningPath.slug == "demo"))
        assert owner is not None and course is not None
        course.visibility, course.created_by = "private", owner.id
    database.dispose()


def test_courses_list_detail_and_lesson(seeded: TestClient) -> None:
    listing = seeded.get("/api/v1/courses").json()
    assert [(c["slug"], c["section"], c["lesson_count"]) for c in listing] == [
        ("demo", "platform", 2)
    ]
    detail = seeded.get("/api/v1/courses/demo").json()
    lessons = detail["modules"][0]["lessons"]
    assert [(lesson["slug"], lesson["title"]) for lesson in lessons] == [
        ("attn", "Self-attention"),
        ("intro", "Intro"),
    ]
    lesson = seeded.get(f"/api/v1/lessons/{lessons[0]['id']}").json()
    assert lesson["content"].startswith("# Attention") and lesson["has_reference_kb"]
    assert lesson["next_id"] == lessons[1]["id"] and lesson["previous_id"] is None


def test_progress_is_per_learner(seeded: TestClient) -> None:
    ada = register_and_login(seeded)
    bob = register_and_login(seeded, email="bob@example.org")
    lesson_id = seeded.get("/api/v1/courses/demo").json()["modules"][0]["lessons"][0]["id"]
    response = seeded.put(f"/api/v1/lessons/{lesson_id}/progress", json={}, headers=ada)
    assert response.status_code == 200 and response.json()["completed"] is True
    assert seeded.get("/api/v1/courses", headers=ada).json()[0]["completed_count"] == 1
    assert seeded.get("/api/v1/courses", headers=bob).json()[0]["completed_count"] == 0
    anonymous = seeded.put(f"/api/v1/lessons/{lesson_id}/progress", json={})
    assert anonymous.status_code == 401


def test_private_courses_are_404_to_others_until_shared(
    seeded: TestClient, settings: Settings
) -> None:
    owner = register_and_login(seeded, email="owner@example.org")
    other = register_and_login(seeded, email="other@example.org")
    make_private_course(settings, "owner@example.org")
    lesson_id = seeded.get("/api/v1/courses/demo", headers=owner).json()["modules"][0]["lessons"][
        0
    ]["id"]

    assert seeded.get("/api/v1/courses/demo", headers=other).status_code == 404
    assert seeded.get(f"/api/v1/lessons/{lesson_id}", headers=other).status_code == 404
    assert seeded.get("/api/v1/courses/demo").status_code == 404
    assert seeded.get("/api/v1/courses", headers=other).json() == []
    assert seeded.get("/api/v1/search", params={"q": "sqrt"}).json() == {"results": []}
    assert seeded.get("/api/v1/search", params={"q": "sqrt", "course": "demo"}).status_code == 404
    assert seeded.get("/api/v1/courses", headers=owner).json()[0]["section"] == "my"
    assert seeded.post("/api/v1/courses/demo/share", headers=other).status_code == 404

    token = seeded.post("/api/v1/courses/demo/share", headers=owner).json()["share_token"]
    accepted = seeded.post(f"/api/v1/shares/{token}", headers=other)
    assert accepted.status_code == 200 and accepted.json()["section"] == "shared"
    assert seeded.get("/api/v1/courses/demo", headers=other).status_code == 200
    assert seeded.post("/api/v1/courses/demo/share", headers=other).status_code == 403
    hits = seeded.get("/api/v1/search", params={"q": "sqrt"}, headers=other).json()["results"]
    assert hits and hits[0]["course"] == "demo"
    assert seeded.post("/api/v1/shares/not-a-token", headers=other).status_code == 404


def test_search_answers_results_with_lesson_and_heading(seeded: TestClient) -> None:
    response = seeded.get("/api/v1/search", params={"q": "divide by sqrt", "k": 2})
    results = response.json()["results"]
    assert results[0]["lesson"] == "attn" and results[0]["lesson_title"] == "Self-attention"
    assert results[0]["heading_path"] == ["Scaling"] and results[0]["score"] > 0
    assert seeded.get("/api/v1/search", params={"q": ""}).status_code == 422
    assert seeded.get("/api/v1/search", params={"q": "x", "k": 0}).status_code == 422


def test_seed_twice_keeps_one_copy(seeded: TestClient, settings: Settings, tmp_path: Path) -> None:
    run_seed(settings)
    assert len(seeded.get("/api/v1/courses").json()) == 1
