"""The coordinator's nodes: plain async callables over the state (support code is called
directly, never wrapped as LangChain tools). Each node returns only the fields it changes.

Runtime dependencies come from `config["configurable"]`: `database` (a store Database) and
`explain` (an async callable `(question) -> answer text` — the agent loop in production)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, cast

from langchain_core.runnables import RunnableConfig

from tutorgraph.learner_model import mastery
from tutorgraph.offload import run_blocking
from tutorgraph.store import courses
from tutorgraph.store.db import Database
from tutorgraph.tutor.context import QuizCard
from tutorgraph.tutor.quiz_grading import (
    card_concept,
    count_answer,
    lesson_quiz,
    mark_shown,
    parse_choice,
)
from tutorgraph.tutor.session_graph.router import action_for, quiz_after
from tutorgraph.tutor.session_graph.state import SessionState
from tutorgraph.wording import percent

Explain = Callable[[str], Awaitable[str]]
Update = dict[str, Any]
QUIZ_LENGTH = 3
REVIEW_BELOW = 0.6


def _deps(config: RunnableConfig) -> tuple[Database, Explain | None]:
    configurable = config.get("configurable") or {}
    return cast(Database, configurable["database"]), cast(
        "Explain | None", configurable.get("explain")
    )


def _say(state: SessionState, text: str, **extra: Any) -> Update:
    reply = {"type": "assistant", "text": text, **extra}
    return {
        "replies": [*state.get("replies", []), reply],
        "messages": [*state.get("messages", []), {"role": "assistant", "content": text}],
    }


def _lesson_title(database: Database, lesson_id: int) -> str:
    with database.session() as session:
        lesson = courses.lesson_by_id(session=session, lesson_id=lesson_id)
        return lesson.title if lesson is not None else "this lesson"


async def welcome(state: SessionState, config: RunnableConfig) -> Update:
    """Idempotent: greets once per thread; every turn starts with an empty outbox."""
    if state.get("welcomed"):
        return {"replies": []}
    database, _ = _deps(config)
    title = await run_blocking(_lesson_title, database, state["lesson_id"])
    text = (
        f"Welcome! We're studying **{title}**. Ask me anything about it, say *quiz me* for a "
        "check, *what should I review* for your gaps, or *summarize* to wrap up."
    )
    base: SessionState = {**state, "replies": []}
    return {
        **_say(base, text),
        "welcomed": True,
        "quiz_position": 0,
        "current_quiz": [],
        "quiz_completed": False,
        "awaiting_quiz_answer": False,
        "last_answer_correct": None,
        "last_feedback": "",
        "covered": [],
        "review": [],
    }


async def intake(state: SessionState) -> Update:
    """Consumes the fresh input (if any) and decides the action; no input means end the turn."""
    action = action_for(state)
    text = state.get("pending_input")
    update: Update = {"next_action": action, "pending_input": None, "quiz_after": False}
    if text and text.strip():
        update["messages"] = [*state.get("messages", []), {"role": "user", "content": text}]
        update["quiz_after"] = action == "explain" and quiz_after(text)
    return update


async def explainer(state: SessionState, config: RunnableConfig) -> Update:
    _, explain = _deps(config)
    messages = state.get("messages", [])
    question = next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")
    answer = await explain(question) if explain is not None else ""
    update = _say(state, answer or "Let's look at the lesson together: what part is unclear?")
    update["replies"][-1]["streamed"] = explain is not None
    update["covered"] = [*state.get("covered", []), question[:120]]
    update["next_action"] = "quiz" if state.get("quiz_after") else "end_turn"
    update["quiz_after"] = False
    return update


def _weak_concepts(database: Database, user_id: int, lesson_id: int) -> list[tuple[str, float]]:
    with database.session() as session:
        lesson = courses.lesson_by_id(session=session, lesson_id=lesson_id)
        if lesson is None:
            return []
        rows = []
        for concept in [str(c) for c in lesson.concepts]:
            snap = mastery.current_mastery(session=session, user_id=user_id, concept=concept)
            rows.append((concept, snap.wma))
        return sorted(rows, key=lambda row: row[1])


async def gap_analysis(state: SessionState, config: RunnableConfig) -> Update:
    database, _ = _deps(config)
    rows = await run_blocking(_weak_concepts, database, state["user_id"], state["lesson_id"])
    weak = [(c, m) for c, m in rows if m < REVIEW_BELOW]
    if not rows:
        text = "This lesson lists no concepts to measure yet."
    elif not weak:
        text = "Your mastery is solid on every concept of this lesson. Try a quiz to confirm it."
    else:
        listed = "\n".join(f"- {c}: {percent(m)} mastery" for c, m in weak)
        text = f"Here is what to work on next, weakest first:\n\n{listed}"
    update = _say(state, text)
    update["review"] = sorted({*state.get("review", []), *(c for c, _ in weak)})
    return update


def _cards(database: Database, lesson_id: int) -> list[dict[str, Any]]:
    with database.session() as session:
        lesson = courses.lesson_by_id(session=session, lesson_id=lesson_id)
        if lesson is None:
            return []
        return [card.model_dump() for card in lesson_quiz(lesson)[:QUIZ_LENGTH]]


def _show(database: Database, user_id: int, lesson_id: int, quiz_id: str) -> None:
    with database.session() as session:
        mark_shown(session=session, user_id=user_id, lesson_id=lesson_id, quiz_ids=[quiz_id])


def _question_text(card: QuizCard, number: int, total: int) -> str:
    options = "\n".join(f"{chr(65 + i)}. {option}" for i, option in enumerate(card.options))
    return f"Question {number} of {total}: {card.question}\n\n{options}"


async def quiz(state: SessionState, config: RunnableConfig) -> Update:
    """Starts the quiz if needed and sends the current question."""
    database, _ = _deps(config)
    cards = state.get("current_quiz") or []
    position = state.get("quiz_position", 0)
    update: Update = {}
    if not cards or state.get("quiz_completed"):
        cards = await run_blocking(_cards, database, state["lesson_id"])
        position = 0
        update = {"current_quiz": cards, "quiz_position": 0, "quiz_completed": False}
    if not cards:
        return {**_say(state, "This lesson has no quiz questions yet."), **update}
    card = QuizCard.model_validate(cards[position])
    await run_blocking(_show, database, state["user_id"], state["lesson_id"], card.id)
    public = card.model_dump(include={"id", "question", "options"})
    said = _say(state, _question_text(card, position + 1, len(cards)), quiz=public)
    return {**update, **said, "awaiting_quiz_answer": True}


def _grade(
    database: Database, user_id: int, lesson_id: int, card: QuizCard, answer: str
) -> tuple[bool, str]:
    """Grade a typed answer; only the learner's first answer to the card, in any session,
    moves mastery (the same rule as the inline cards)."""
    choice = parse_choice(answer, card)
    correct = choice == card.correct_index
    with database.session() as session:
        lesson = courses.lesson_by_id(session=session, lesson_id=lesson_id)
        concept = card_concept(card, lesson) or "lesson"
        first = count_answer(
            session=session,
            user_id=user_id,
            lesson_id=lesson_id,
            quiz_id=card.id,
            selected_index=-1 if choice is None else choice,
        )
        if first:
            change = mastery.record_score(
                session=session,
                user_id=user_id,
                concept=concept,
                score=1.0 if correct else 0.0,
                kind="multiple_choice",
            )
            before, after = percent(change.before.wma), percent(change.after.wma)
            move = f" (mastery of {concept}: {before} → {after})"
        else:
            move = " (only your first answer to a card counts: mastery unchanged)"
    right = f"{chr(65 + card.correct_index)}. {card.options[card.correct_index]}"
    verdict = "Correct!" if correct else f"Not quite: the answer is {right}."
    why = f" {card.explanation}" if card.explanation else ""
    return correct, f"{verdict}{why}{move}"


async def grade_quiz(state: SessionState, config: RunnableConfig) -> Update:
    database, _ = _deps(config)
    cards = state.get("current_quiz") or []
    position = state.get("quiz_position", 0)
    if not cards or position >= len(cards):
        return {"awaiting_quiz_answer": False, "last_feedback": "There is no open question."}
    card = QuizCard.model_validate(cards[position])
    answer = next(
        (m["content"] for m in reversed(state.get("messages", [])) if m["role"] == "user"), ""
    )
    graded = state.get("graded_cards", [])
    first = card.id not in graded
    correct, feedback = await run_blocking(
        _grade, database, state["user_id"], state["lesson_id"], card, answer
    )
    position += 1
    done = position >= len(cards)
    text = feedback + ("\n\nThat was the last question." if done else "")
    update = _say(state, text, feedback=True, correct=correct)  # the verdict, said once
    review = state.get("review", [])
    if not correct:
        review = sorted({*review, card.concept or card.question[:80]})
    return {
        **update,
        "last_answer_correct": correct,
        "last_feedback": feedback,
        "quiz_position": position,
        "quiz_completed": done,
        "awaiting_quiz_answer": False,
        "covered": [*state.get("covered", []), card.question[:120]],
        "review": review,
        "graded_cards": [*graded, card.id] if first else graded,
    }


async def summarize(state: SessionState) -> Update:
    covered = state.get("covered", [])
    review = state.get("review", [])
    lines = ["Session summary", "", "Covered:"]
    lines += [f"- {item}" for item in covered] or ["- nothing yet"]
    lines += ["", "To review:"]
    lines += [f"- {item}" for item in review] or ["- nothing flagged"]
    update = _say(state, "\n".join(lines))
    return {**update, "ended": True, "awaiting_quiz_answer": False}


async def end_turn(state: SessionState) -> Update:
    return {"next_action": "end_turn"}
