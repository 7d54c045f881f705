"""Inline quiz answers move mastery, once per learner and card."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import select

from tests.conftest import register_and_login
from tests.tutor.conftest import chat, lesson_id, public_cards
from tutorgraph.settings import Settings
from tutorgraph.store.db import Database
from tutorgraph.store.models import Lesson
from tutorgraph.tutor.context import QuizCard
from tutorgraph.tutor.quiz_grading import lesson_quiz, parse_choice


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
    assert "Have another look" not in body["feedback"]  # the card says why that option is wrong
    assert body["mastery"]["after"] <= body["mastery"]["before"]
    # the first answer is a review of the card's concept (FSRS), and evidence of progress
    [review] = client.get("/api/v1/me/reviews", headers=headers).json()
    assert review["concept"] == body["mastery"]["concept"] and review["lapses"] == 1
    [concept] = client.get("/api/v1/me/progress", headers=headers).json()["concepts"]
    assert concept["evidence"][0]["source_kind"] == "tutor_quiz"

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
            "feedback": retry["feedback"],
            "parts": retry["parts"],
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


def test_the_lesson_api_shows_quiz_questions_without_answers(
    client: TestClient, settings: Settings
) -> None:
    lesson = client.get(f"/api/v1/lessons/{lesson_id(settings)}").json()
    cards = {card.id: card for card in _cards(settings)}
    assert lesson["quiz"] and len(lesson["quiz"]) == len(cards)
    for shown in lesson["quiz"]:
        assert set(shown) <= {"id", "question", "options", "concept"}, shown
        assert shown["options"] == cards[shown["id"]].options


def test_a_typed_answer_of_thousands_of_digits_is_no_option() -> None:
    # int() refuses strings over 4,300 digits: a typed answer like that was a 500
    card = QuizCard(id="q", question="Which?", options=["a", "b", "c"], correct_index=1)
    assert parse_choice("9" * 5000, card) is None
    assert parse_choice("2", card) == 1
