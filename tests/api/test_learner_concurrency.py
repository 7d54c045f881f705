"""One learner's writes sent at once all count: two tabs, a double-clicked Submit, an interview
and a practice round together. Before each change locked what it read, forty grades at once left
`attempts` at 8 or 9 and the first could fail with a 500 on the concept_mastery unique key."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from http.cookiejar import CookieJar, DefaultCookiePolicy
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from tests.conftest import REPO_CONTENT, make_settings
from tests.tutor.conftest import parse_sse, public_cards
from tutorgraph.cli.seed import run_seed
from tutorgraph.learner_model import mastery
from tutorgraph.learner_model.mastery import weighted_moving_average
from tutorgraph.learning import reviews
from tutorgraph.server import create_app
from tutorgraph.settings import Settings
from tutorgraph.store import migrate, users
from tutorgraph.store.db import Database
from tutorgraph.store.models import (
    ConceptReview,
    CourseShare,
    Lesson,
    UserLessonProgress,
    XapiStatement,
)
from tutorgraph.tutor.context import QuizCard
from tutorgraph.tutor.quiz_grading import lesson_quiz
from tutorgraph_bench.live_server import LiveServer

AT_ONCE = 40
CARD_ANSWERS = 10
QUESTION_ID = "self-attention-understand-1"
# Answers of different quality, so the order they are applied in shows in the average.
ANSWERS = [
    "no idea",
    "It divides the dot products by the square root of the key dimension so softmax does not "
    "saturate and the gradients stay usable.",
    "Scaling keeps the scores small.",
    "Because the values are normalised by the number of heads.",
]
PASSWORD = "a long concurrency password"


def _client(url: str) -> httpx.AsyncClient:
    limits = httpx.Limits(max_connections=AT_ONCE + 5, max_keepalive_connections=0)
    no_cookies = CookieJar(DefaultCookiePolicy(allowed_domains=[]))
    return httpx.AsyncClient(base_url=url, timeout=120, limits=limits, cookies=no_cookies)


async def _login(http: httpx.AsyncClient, email: str) -> dict[str, str]:
    account = {"email": email, "password": PASSWORD, "name": "Tabs"}
    assert (await http.post("/api/v1/auth/register", json=account)).status_code == 201
    login = await http.post("/api/v1/auth/login", json={"email": email, "password": PASSWORD})
    return {"Authorization": f"Bearer {login.json()['access_token']}"}


async def _grades_at_once(url: str) -> tuple[list[httpx.Response], list[dict[str, Any]], list[Any]]:
    async with _client(url) as http:
        headers = await _login(http, "tabs@example.org")
        graded = await asyncio.gather(
            *(
                http.post(
                    "/api/v1/grade",
                    json={"question_id": QUESTION_ID, "answer": ANSWERS[n % len(ANSWERS)]},
                    headers=headers,
                )
                for n in range(AT_ONCE)
            )
        )
        mastery = (await http.get("/api/v1/mastery", headers=headers)).json()
        reviews = (await http.get("/api/v1/me/reviews", headers=headers)).json()
    return graded, mastery, reviews


def _live(settings: Settings) -> LiveServer:
    migrate.upgrade(settings)
    return LiveServer(create_app(settings), name="tutorgraph")


def _why_not_applied_in_turn(moves: list[dict[str, Any]], final: float) -> str | None:
    """Why the grades' mastery moves, put in the order their attempts were counted, do not
    chain from a fresh learner to `final` (each starting where the one before ended, moved by
    its own score): None when they do, as applying every score in turn would."""
    ordered = sorted(moves, key=lambda move: move["after"]["attempts"])
    if [move["after"]["attempts"] for move in ordered] != list(range(1, len(moves) + 1)):
        return "two answers counted the same attempt: one of them was lost"
    current = 0.0
    for move in ordered:
        before, after = move["before"]["wma"], move["after"]["wma"]
        if before != current:
            return f"attempt {move['after']['attempts']} started from {before}, not {current}"
        wanted = current + move["certainty"] * (
            weighted_moving_average(current, move["score"]) - current
        )
        if abs(after - wanted) > 1e-6:
            return f"{current} -> {after} is not a move by {move['score']}"
        current = after
    return None if abs(current - final) < 1e-9 else f"the chain ends at {current}, not {final}"


@pytest.mark.timeout(300)
def test_forty_grades_at_once_by_one_learner_all_count(tmp_path: Path, backend: str) -> None:
    settings = make_settings(tmp_path, backend)
    with _live(settings) as server:
        graded, mastery, reviews = asyncio.run(_grades_at_once(server.url))
    assert [response.status_code for response in graded] == [200] * AT_ONCE, [
        response.text for response in graded if response.status_code != 200
    ][:2]
    assert [(row["concept"], row["attempts"]) for row in mastery] == [("self-attention", AT_ONCE)]
    moves = [
        {**body["mastery"], "score": body["score"], "certainty": body["certainty"]}
        for body in (response.json() for response in graded)
    ]
    assert _why_not_applied_in_turn(moves, mastery[0]["wma"]) is None
    assert [(card["concept"], card["reviews"]) for card in reviews] == [("self-attention", AT_ONCE)]


def _each_at_once(settings: Settings, count: int, work: Callable[[Session], None]) -> list[str]:
    """`work` in `count` threads at once, each in its own transaction; the errors they raised."""
    database = Database(settings)
    start = threading.Barrier(count)
    errors: list[str] = []

    def one() -> None:
        start.wait()
        try:
            with database.session() as session:
                work(session)
        except Exception as exc:
            errors.append(repr(exc))

    threads = [threading.Thread(target=one) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    database.dispose()
    return errors


def test_reviews_scheduled_at_once_all_count(tmp_path: Path, backend: str) -> None:
    settings = make_settings(tmp_path, backend)
    migrate.upgrade(settings)
    database = Database(settings)
    with database.session() as session:
        user = users.create_user(
            session=session, email="r@example.org", name="R", password_hash="!"
        )
    database.dispose()
    at = datetime(2026, 1, 1, tzinfo=UTC)

    def review(session: Session) -> None:
        reviews.schedule(session=session, user_id=user.id, concept="first-seen", due=at)
        reviews.record_review(
            session=session, user_id=user.id, concept="self-attention", score=0.2, at=at
        )

    assert _each_at_once(settings, AT_ONCE, review) == []
    database = Database(settings)
    with database.session() as session:
        cards = {row.concept: row for row in session.scalars(select(ConceptReview))}
    database.dispose()
    assert sorted(cards) == ["first-seen", "self-attention"]
    assert cards["self-attention"].reviews == AT_ONCE
    assert cards["self-attention"].lapses == AT_ONCE  # every one of them a failed recall


async def _quiz_answers_at_once(
    url: str, lesson: int, cards: list[QuizCard]
) -> tuple[list[httpx.Response], list, list]:  # type: ignore[type-arg]
    async with _client(url) as http:
        headers = await _login(http, "cards@example.org")
        stream = await http.post(
            "/api/v1/tutor/chat", json={"message": "quiz me", "lesson_id": lesson}, headers=headers
        )
        session_id = stream.headers["x-session-id"]
        shown = public_cards(
            "".join(f["delta"] for f in parse_sse(stream.text) if f["type"] == "text")
        )[0]
        card = next(card for card in cards if card.id == shown["id"])
        answers = await asyncio.gather(
            *(
                http.post(
                    "/api/v1/tutor/quiz-answer",
                    json={
                        "lesson_id": lesson,
                        "session_id": session_id,
                        "quiz_id": card.id,
                        "selected_index": n % len(card.options),
                    },
                    headers=headers,
                )
                for n in range(CARD_ANSWERS)
            )
        )
        mastery = (await http.get("/api/v1/mastery", headers=headers)).json()
        reviews = (await http.get("/api/v1/me/reviews", headers=headers)).json()
    return answers, mastery, reviews


def test_ten_answers_to_one_quiz_card_at_once_count_once(tmp_path: Path, backend: str) -> None:
    settings = make_settings(tmp_path, backend, content_dir=REPO_CONTENT)
    migrate.upgrade(settings)
    run_seed(settings)
    database = Database(settings)
    with database.session() as session:
        lesson = session.scalars(select(Lesson).where(Lesson.slug == "self-attention")).one()
        lesson_id, cards = lesson.id, lesson_quiz(lesson)
    database.dispose()
    with LiveServer(create_app(settings), name="tutorgraph") as server:
        answers, mastery, reviews = asyncio.run(_quiz_answers_at_once(server.url, lesson_id, cards))
    assert [response.status_code for response in answers] == [200] * CARD_ANSWERS
    assert sum(response.json()["recorded"] for response in answers) == 1
    assert [row["attempts"] for row in mastery] == [1]
    assert [card["reviews"] for card in reviews] == [1]


async def _submits_at_once(url: str) -> tuple[list[httpx.Response], dict, list]:  # type: ignore[type-arg]
    async with _client(url) as http:
        headers = await _login(http, "clicks@example.org")
        started = await http.post(
            "/api/v1/practice/rounds",
            json={"domain": "python", "topic": "decorators-closures"},
            headers=headers,
        )
        round_ = started.json()
        body = {
            "answer": "A closure keeps the variables of the enclosing scope.",
            "question_id": round_["current"]["id"],  # the question the learner saw
        }
        submits = await asyncio.gather(
            *(
                http.post(
                    f"/api/v1/practice/rounds/{round_['id']}/answers", json=body, headers=headers
                )
                for _ in range(CARD_ANSWERS)
            )
        )
        after = (await http.get(f"/api/v1/practice/rounds/{round_['id']}", headers=headers)).json()
        mastery = (await http.get("/api/v1/mastery", headers=headers)).json()
    return submits, after, mastery


def test_one_answer_submitted_ten_times_at_once_is_recorded_once(
    tmp_path: Path, backend: str
) -> None:
    settings = make_settings(tmp_path, backend)
    with _live(settings) as server:
        submits, round_, mastery = asyncio.run(_submits_at_once(server.url))
    statuses = sorted(response.status_code for response in submits)
    # the first counts; the others find that question answered, never answer the next one
    assert statuses == [200] + [409] * (CARD_ANSWERS - 1), [r.text for r in submits][:2]
    assert len(round_["answered"]) == 1 and round_["current"]["position"] == 1
    assert [row["attempts"] for row in mastery] == [1]


async def _takes_at_once(url: str) -> tuple[list[httpx.Response], list]:  # type: ignore[type-arg]
    async with _client(url) as http:
        headers = await _login(http, "continue@example.org")
        answer = {"question_id": QUESTION_ID, "answer": "no idea"}
        assert (await http.post("/api/v1/grade", json=answer, headers=headers)).status_code == 200
        step = (await http.get("/api/v1/me/next", headers=headers)).json()
        assert "start_topic" in step["target"], step
        takes = await asyncio.gather(
            *(
                http.post(
                    "/api/v1/me/next/take", json={"step_id": step["step_id"]}, headers=headers
                )
                for _ in range(CARD_ANSWERS)
            )
        )
        rounds = (await http.get("/api/v1/practice/rounds", headers=headers)).json()
    return takes, rounds


def test_a_step_taken_ten_times_at_once_starts_one_round(tmp_path: Path, backend: str) -> None:
    settings = make_settings(tmp_path, backend)
    with _live(settings) as server:
        takes, rounds = asyncio.run(_takes_at_once(server.url))
    assert [response.status_code for response in takes] == [200] * CARD_ANSWERS
    assert len(rounds) == 1
    assert {response.json()["url"] for response in takes} == {f"/quiz/{rounds[0]['id']}"}


def test_two_transactions_moving_the_same_concepts_in_opposite_orders_both_commit(
    tmp_path: Path, backend: str
) -> None:
    """An interview's end (A then B) beside an assessment's (B then A): without one lock per
    learner, PostgreSQL found a deadlock and failed one of them."""
    settings = make_settings(tmp_path, backend)
    migrate.upgrade(settings)
    database = Database(settings)
    with database.session() as session:
        user_id = users.create_user(
            session=session, email="both@example.org", name="Both", password_hash="!"
        ).id
    first_moved = threading.Event()
    errors: list[str] = []

    def moves(concepts: list[str], *, wait: bool) -> None:
        try:
            if wait:
                first_moved.wait(timeout=10)
            with database.session() as session:
                for n, concept in enumerate(concepts):
                    mastery.record_score(session=session, user_id=user_id, concept=concept, score=1)
                    if n == 0 and not wait:
                        first_moved.set()
                        time.sleep(0.5)  # the other transaction starts meanwhile
        except Exception as exc:  # the test reports what failed
            errors.append(repr(exc))

    threads = [
        threading.Thread(target=moves, args=(["a", "b"],), kwargs={"wait": False}),
        threading.Thread(target=moves, args=(["b", "a"],), kwargs={"wait": True}),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    with database.session() as session:
        attempts = {
            row.concept: row.attempts
            for row in mastery.learner_mastery(session=session, user_id=user_id)
        }
    database.dispose()
    assert errors == []
    assert attempts == {"a": 2, "b": 2}


async def _joins_and_completions(url: str, slug: str, lesson: int, owner_email: str) -> list[int]:
    async with _client(url) as http:
        owner = await _login(http, owner_email)
        token = (await http.post(f"/api/v1/courses/{slug}/share", headers=owner)).json()
        learner = await _login(http, "joiner@example.org")
        joins = await asyncio.gather(
            *(
                http.post(f"/api/v1/shares/{token['share_token']}", headers=learner)
                for _ in range(CARD_ANSWERS)
            )
        )
        completions = await asyncio.gather(
            *(
                http.put(f"/api/v1/lessons/{lesson}/progress", json={}, headers=learner)
                for _ in range(CARD_ANSWERS)
            )
        )
    return [reply.status_code for reply in [*joins, *completions]]


def test_a_share_link_and_a_lesson_completed_from_ten_tabs_count_once(
    tmp_path: Path, backend: str
) -> None:
    settings = make_settings(tmp_path, backend, content_dir=REPO_CONTENT)
    migrate.upgrade(settings)
    run_seed(settings)
    database = Database(settings)
    with database.session() as session:
        owner = users.create_user(
            session=session, email="owner@example.org", name="Owner", password=PASSWORD
        )
        lesson = session.scalars(select(Lesson).where(Lesson.slug == "self-attention")).one()
        course = lesson.module.learning_path
        course.visibility, course.created_by = "private", owner.id
        slug, lesson_id = course.slug, lesson.id
    with LiveServer(create_app(settings), name="tutorgraph") as server:
        statuses = asyncio.run(
            _joins_and_completions(server.url, slug, lesson_id, "owner@example.org")
        )
    with database.session() as session:
        shares = session.scalars(select(CourseShare)).all()
        progress = session.scalars(select(UserLessonProgress)).all()
        completed = session.scalars(
            select(XapiStatement).where(XapiStatement.verb == "completed")
        ).all()
    database.dispose()
    assert statuses == [200] * (2 * CARD_ANSWERS)
    assert len(shares) == 1 and len(progress) == 1 and progress[0].completed
    assert len(completed) == 1  # one xAPI `completed` statement, not one per tab
