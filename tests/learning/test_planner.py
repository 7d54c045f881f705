"""The path planner over real storage: the event row is its outbox, so no next step is lost."""

from __future__ import annotations

from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from tests.conftest import register_and_login
from tutorgraph.knowledge import get_domain
from tutorgraph.learning import planner
from tutorgraph.learning.planner import PathPlanner, plan_pending
from tutorgraph.server import create_app
from tutorgraph.settings import Settings
from tutorgraph.store import migrate
from tutorgraph.store.db import Database
from tutorgraph.store.models import ConceptReview, EvaluationEvent, NextStep, utcnow

TOPIC = "decorators-closures"


def _killed(session: object, event_id: int) -> bool:
    raise RuntimeError("the planner died")


def start_round(client: TestClient, headers: dict[str, str]) -> dict[str, object]:
    response = client.post(
        "/api/v1/practice/rounds", json={"domain": "python", "topic": TOPIC}, headers=headers
    )
    assert response.status_code == 201
    round_: dict[str, object] = response.json()
    return round_


def test_a_grade_the_planner_never_saw_is_planned_after_a_restart(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    migrate.upgrade(settings)
    # The server "dies" between committing the grade and the planner acting on it: the bus
    # subscriber never runs, and nothing else plans before the restart.
    monkeypatch.setattr(PathPlanner, "on_evaluation", lambda self, event, payload: None)
    monkeypatch.setattr(planner, "plan_event", _killed)
    with TestClient(create_app(settings)) as client:
        headers = register_and_login(client)
        round_ = start_round(client, headers)
        url = f"/api/v1/practice/rounds/{round_['id']}"
        client.post(f"{url}/answers", json={"answer": "no idea"}, headers=headers)
    database = Database(settings)
    with database.session() as session:
        event = session.scalars(select(EvaluationEvent)).one()
        assert event.planned_at is None
        assert session.scalars(select(NextStep)).all() == []
    monkeypatch.undo()
    with TestClient(create_app(settings)) as client:  # the restart plans what is pending
        with database.session() as session:
            step = session.scalars(select(NextStep)).one()
            assert step.decision == "RETRY" and step.kind == "retry"
            assert session.scalars(select(EvaluationEvent)).one().planned_at is not None
        nxt = client.get("/api/v1/me/next", headers=headers).json()
        assert nxt["kind"] == "retry" and nxt["step_id"] == step.id
        again = client.get(url, headers=headers).json()["current"]
        assert again["attempt"] == 2 and again["hint"]
    database.dispose()


def test_me_next_plans_what_is_pending_and_a_second_run_changes_nothing(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    migrate.upgrade(settings)
    monkeypatch.setattr(planner, "plan_event", _killed)  # the planner fails
    with TestClient(create_app(settings)) as client:
        headers = register_and_login(client)
        round_ = start_round(client, headers)
        url = f"/api/v1/practice/rounds/{round_['id']}"
        answered = client.post(f"{url}/answers", json={"answer": "no idea"}, headers=headers)
        assert answered.status_code == 200  # grading never fails with its planner
        monkeypatch.undo()
        assert client.get("/api/v1/me/next", headers=headers).json()["kind"] == "retry"
        database = Database(settings)
        with database.session() as session:
            assert plan_pending(session) == 0  # already planned: nothing twice
            assert len(session.scalars(select(NextStep)).all()) == 1
        total = client.get(url, headers=headers).json()["total"]
        assert total == 6  # the question was queued again exactly once
        database.dispose()


def test_taking_a_step_starts_what_it_names(client: TestClient) -> None:
    headers = register_and_login(client)
    first = client.get("/api/v1/me/next", headers=headers).json()
    # nothing graded yet: the first concept in prerequisite order
    assert first["kind"] == "practice" and first["step_id"] is None
    assert first["target"]["start_topic"] == get_domain(first["target"]["domain"]).order[0]
    taken = client.post("/api/v1/me/next/take", json={}, headers=headers)
    assert taken.status_code == 200 and taken.json()["url"].startswith("/quiz/")
    # now the round in progress is what comes next
    assert client.get("/api/v1/me/next", headers=headers).json()["title"].startswith("Continue")


def test_every_graded_answer_is_a_review_due_on_its_fsrs_date(client: TestClient) -> None:
    headers = register_and_login(client)
    round_ = start_round(client, headers)
    topic = get_domain("python").topic(TOPIC)
    text = round_["current"]["text"]  # type: ignore[index]
    reference = next(q for q in topic.questions if q.text == text)
    answered = client.post(
        f"/api/v1/practice/rounds/{round_['id']}/answers",
        json={"answer": reference.reference_answer},
        headers=headers,
    ).json()
    assert answered["result"]["score"] >= 0.8
    reviews = client.get("/api/v1/me/reviews", headers=headers).json()
    assert [r["concept"] for r in reviews] == [TOPIC]
    due = reviews[0]["due"]
    assert not reviews[0]["is_due"] and reviews[0]["reviews"] == 1
    # move the clock past the due date: the review is due, and it is what comes next
    app = client.app
    app.state.clock = lambda: utcnow() + timedelta(days=400)  # type: ignore[attr-defined]
    moved = client.get("/api/v1/me/reviews", headers=headers).json()
    assert moved[0]["is_due"] and moved[0]["due"] == due
    assert moved[0]["retrievability"] < 0.9
    assert client.get("/api/v1/me/next", headers=headers).json()["kind"] in {"practice", "review"}


def test_one_learner_never_sees_another_learners_loop(
    client: TestClient, settings: Settings
) -> None:
    ada = register_and_login(client)
    round_ = start_round(client, ada)
    client.post(
        f"/api/v1/practice/rounds/{round_['id']}/answers",
        json={"answer": "no idea"},
        headers=ada,
    )
    bob = register_and_login(client, email="bob@example.org")
    assert client.get("/api/v1/me/reviews", headers=bob).json() == []
    assert client.get("/api/v1/me/progress", headers=bob).json() == {
        "concepts": [],
        "misconceptions": [],
    }
    ada_step = client.get("/api/v1/me/next", headers=ada).json()
    bob_next = client.get("/api/v1/me/next", headers=bob).json()
    assert bob_next["step_id"] is None
    # Bob cannot take Ada's step: he gets his own current step instead
    taken = client.post("/api/v1/me/next/take", json={"step_id": ada_step["step_id"]}, headers=bob)
    assert taken.status_code == 200 and round_["id"] not in taken.json()["url"]
    database = Database(settings)
    with database.session() as session:
        step = session.get(NextStep, ada_step["step_id"])
        assert step is not None and step.taken_at is None
        assert session.scalars(select(ConceptReview.user_id)).all() == [1]
    database.dispose()
    for path in ("/api/v1/me/next", "/api/v1/me/reviews", "/api/v1/me/progress"):
        assert client.get(path).status_code == 401


def test_a_wrong_answer_in_a_round_makes_its_question_the_next_step(client: TestClient) -> None:
    """The step is the question the learner is in the middle of, counted as the same question:
    the round still has 5 questions, and the retry is the first one's second try."""
    headers = register_and_login(client)
    round_ = start_round(client, headers)
    url = f"/api/v1/practice/rounds/{round_['id']}"
    client.post(f"{url}/answers", json={"answer": "no idea"}, headers=headers)
    view = client.get(url, headers=headers).json()
    assert view["question_count"] == 5 and view["questions_done"] == 0
    assert view["current"]["label"] == "Question 1 of 5 · second try"
    nxt = client.get("/api/v1/me/next", headers=headers).json()
    assert nxt["kind"] == "retry"
    assert nxt["title"] == "Question 1 of 5 · second try, with a hint"
    assert nxt["target"]["question_id"] == view["current"]["id"]
    assert "did not hold together" not in nxt["reason"]
    taken = client.post("/api/v1/me/next/take", json={"step_id": nxt["step_id"]}, headers=headers)
    assert taken.json()["url"] == f"/quiz/{round_['id']}#question"


def test_a_step_whose_question_was_answered_is_not_shown_again(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Continue opened a different question than the step named: a step on a question that
    has since been answered is spent, and the round's waiting question is shown instead."""
    headers = register_and_login(client)
    round_ = start_round(client, headers)
    url = f"/api/v1/practice/rounds/{round_['id']}"
    client.post(f"{url}/answers", json={"answer": "no idea"}, headers=headers)
    retry = client.get("/api/v1/me/next", headers=headers).json()
    assert retry["kind"] == "retry"
    monkeypatch.setattr(planner, "plan_event", _killed)  # the second answer is never planned
    client.post(f"{url}/answers", json={"answer": "still no idea"}, headers=headers)
    waiting = client.get(url, headers=headers).json()["current"]
    nxt = client.get("/api/v1/me/next", headers=headers).json()
    assert nxt["step_id"] is None and "second try" not in nxt["title"]
    assert nxt["target"]["question_id"] == waiting["id"]
    assert nxt["title"].endswith(waiting["label"][:1].lower() + waiting["label"][1:])
    # Continue with the spent step in hand leads where the card now points
    taken = client.post("/api/v1/me/next/take", json={"step_id": retry["step_id"]}, headers=headers)
    assert taken.json()["url"] == nxt["target"]["url"]
