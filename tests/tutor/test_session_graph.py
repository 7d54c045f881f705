"""The coordinator graph: table-driven routing, and whole turns on a real SQLite checkpointer."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from sqlalchemy import select

from tutorgraph.learner_model import mastery
from tutorgraph.settings import Settings
from tutorgraph.store.db import Database
from tutorgraph.store.models import Lesson
from tutorgraph.tutor.quiz_grading import lesson_quiz
from tutorgraph.tutor.session_graph import build_session_graph, run_turn
from tutorgraph.tutor.session_graph.router import (
    action_for,
    quiz_after,
    route_after_explainer,
    route_after_quiz,
    route_by_action,
)
from tutorgraph.tutor.session_graph.state import SessionState

CARD = {"id": "q", "question": "?", "options": ["a", "b"], "correct_index": 0}


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        ({}, "end_turn"),
        ({"pending_input": None}, "end_turn"),
        ({"pending_input": "   "}, "end_turn"),
        ({"pending_input": "Why divide by sqrt(d_k)?"}, "explain"),
        ({"pending_input": "quiz me please"}, "quiz"),
        ({"pending_input": "Explain causal masking, then quiz me"}, "explain"),
        ({"pending_input": "quiz me on what we covered"}, "quiz"),
        ({"pending_input": "anything", "pending_kind": "end"}, "summarize"),
        ({"pending_input": None, "pending_kind": "end"}, "summarize"),
        ({"pending_input": "what should I review?"}, "gap_analysis"),
        ({"pending_input": "let's wrap up"}, "summarize"),
        ({"pending_input": "B", "awaiting_quiz_answer": True}, "quiz_answer"),
        ({"pending_input": "summarize", "awaiting_quiz_answer": True}, "summarize"),
        (
            {"pending_input": "quiz", "awaiting_quiz_answer": True, "pending_kind": "quiz_answer"},
            "quiz_answer",
        ),
    ],
)
def test_intake_actions(state: SessionState, expected: str) -> None:
    assert action_for(state) == expected


@pytest.mark.parametrize(
    ("action", "target"),
    [
        ("explain", "explainer"),
        ("gap_analysis", "gap_analysis"),
        ("quiz", "quiz"),
        ("quiz_answer", "grade_quiz"),
        ("summarize", "summarize"),
        ("end_turn", "end_turn"),
    ],
)
def test_route_by_action(action: Any, target: str) -> None:
    assert route_by_action({"next_action": action}) == target


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        ({"awaiting_quiz_answer": True, "current_quiz": [CARD, CARD]}, "intake"),
        ({"current_quiz": [CARD, CARD], "quiz_position": 1}, "quiz"),
        ({"current_quiz": [CARD, CARD], "quiz_position": 2, "quiz_completed": True}, "intake"),
        ({"current_quiz": []}, "intake"),
    ],
)
def test_route_after_quiz(state: SessionState, expected: str) -> None:
    assert route_after_quiz(state) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Explain causal masking, then quiz me", True),
        ("Why divide by sqrt(d_k)? Then test me", True),
        ("Why divide by sqrt(d_k)?", False),
        ("quiz me", False),
        ("quiz me on what we covered", False),
    ],
)
def test_a_quiz_follows_the_explanation_when_asked_for(text: str, expected: bool) -> None:
    assert quiz_after(text) is expected


def test_route_after_explainer_returns_to_intake() -> None:
    assert route_after_explainer({"next_action": "end_turn"}) == "intake"
    assert route_after_explainer({"next_action": "quiz"}) == "quiz"


async def test_a_session_on_a_sqlite_checkpointer(
    settings: Settings, seeded_database: Database, tmp_path: Any
) -> None:
    from tutorgraph.store.models import User

    with seeded_database.session() as session:
        user = User(email="g@example.org", name="G", password_hash="x")
        session.add(user)
        session.flush()
        user_id = user.id
        lesson = session.scalars(select(Lesson).where(Lesson.slug == "self-attention")).one()
        lesson_id = lesson.id
        cards = lesson_quiz(lesson)[:3]
    assert cards
    asked: list[str] = []

    async def explain(question: str) -> str:
        asked.append(question)
        return "Scaling keeps the softmax from saturating."

    async with AsyncSqliteSaver.from_conn_string(str(tmp_path / "ckpt.sqlite")) as saver:
        graph = build_session_graph(saver)

        async def turn(text: str | None, kind: Any = "message") -> SessionState:
            return await run_turn(
                graph,
                session_id="s-1",
                database=seeded_database,
                user_id=user_id,
                lesson_id=lesson_id,
                text=text,
                kind=kind,
                explain=explain,
            )

        first = await turn(None)
        assert first["welcomed"] and "Welcome" in first["replies"][0]["text"]
        again = await turn(None)
        assert again["replies"] == []  # idempotent welcome, no self-loop without input

        explained = await turn("Why divide by sqrt(d_k)?")
        assert asked == ["Why divide by sqrt(d_k)?"]
        assert [r["text"] for r in explained["replies"]] == [
            "Scaling keeps the softmax from saturating."
        ]

        # explainer -> quiz: the explanation, then the first question, in one turn
        started = await turn("Explain the scaling, then quiz me")
        assert asked[-1] == "Explain the scaling, then quiz me"
        assert started["replies"][0]["text"] == "Scaling keeps the softmax from saturating."
        assert started["awaiting_quiz_answer"] and started["quiz_position"] == 0
        assert started["replies"][-1]["quiz"]["id"] == cards[0].id
        assert "correct_index" not in started["replies"][-1]["quiz"]

        concept = cards[0].concept or str(lesson.concepts[0])
        with seeded_database.session() as session:
            before = mastery.current_mastery(session=session, user_id=user_id, concept=concept)
        right = chr(65 + cards[0].correct_index)
        graded = await turn(right, "quiz_answer")
        assert graded["last_answer_correct"] is True
        assert graded["last_feedback"].startswith("Correct!")
        assert graded["quiz_position"] == 1
        # one pass: graded, then the next question, and the turn ends awaiting it
        assert len(graded["replies"]) == (2 if len(cards) > 1 else 1)
        with seeded_database.session() as session:
            after = mastery.current_mastery(session=session, user_id=user_id, concept=concept)
        assert after.attempts == before.attempts + 1 and after.wma > before.wma

        if len(cards) > 1:
            wrong = chr(65 + (cards[1].correct_index + 1) % len(cards[1].options))
            missed = await turn(wrong, "quiz_answer")
            assert missed["last_answer_correct"] is False
            assert missed["review"]

        state = missed if len(cards) > 1 else graded
        while not state["quiz_completed"]:
            state = await turn("A", "quiz_answer")
        retake = await turn("quiz me")
        assert retake["replies"][-1]["quiz"]["id"] == cards[0].id
        with seeded_database.session() as session:
            before_retake = mastery.current_mastery(
                session=session, user_id=user_id, concept=concept
            )
        retaken = await turn(right, "quiz_answer")
        assert retaken["last_answer_correct"] is True
        assert "mastery unchanged" in retaken["last_feedback"]  # the first pass showed it
        with seeded_database.session() as session:
            unchanged = mastery.current_mastery(session=session, user_id=user_id, concept=concept)
        assert unchanged == before_retake

        summary = await turn("summarize")
        assert summary["ended"]
        text = summary["replies"][-1]["text"]
        assert "Covered:" in text and "To review:" in text and "sqrt(d_k)" in text
        assert (await turn(None, "end"))["replies"][-1]["text"] == text  # ending says it again

        restarted = await turn("quiz me")  # a new session of the quiz...
        assert restarted["graded_cards"] == [] and restarted["awaiting_quiz_answer"]
        asked_card = next(c for c in cards if c.id == restarted["replies"][-1]["quiz"]["id"])
        asked_concept = asked_card.concept or str(lesson.concepts[0])
        with seeded_database.session() as session:
            before_farm = mastery.current_mastery(
                session=session, user_id=user_id, concept=asked_concept
            )
        farmed = await turn(chr(65 + asked_card.correct_index), "quiz_answer")
        assert farmed["last_answer_correct"] is True  # ...but a card counts once per learner
        assert "mastery unchanged" in farmed["last_feedback"]
        with seeded_database.session() as session:
            still = mastery.current_mastery(session=session, user_id=user_id, concept=asked_concept)
        assert still == before_farm

        # the state survives a fresh graph on the same checkpointer (durable)
        reopened = build_session_graph(saver)
        state = await reopened.aget_state({"configurable": {"thread_id": "tutor-session:s-1"}})
        assert state.values["welcomed"] and state.values["covered"]
