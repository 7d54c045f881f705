"""Practice rounds as stored: a round (QuizSession), its questions in order and the learner's
answers to them."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from tutorgraph.store import atomic
from tutorgraph.store.models import QuizAnswer, QuizQuestion, QuizSession


def add_round(session: Session, *, user_id: int, domain: str, topic: str) -> QuizSession:
    """A new, empty round, flushed so its id is known."""
    quiz = QuizSession(user_id=user_id, domain=domain, topic=topic)
    session.add(quiz)
    session.flush()
    return quiz


def add_question(
    session: Session,
    *,
    round_id: str,
    position: int,
    source_id: str,
    text: str,
    reference_answer: str,
    payload: dict[str, Any],
) -> None:
    """Queue a question of a round (written at the caller's next flush)."""
    session.add(
        QuizQuestion(
            quiz_session_id=round_id,
            position=position,
            source_id=source_id,
            text=text,
            reference_answer=reference_answer,
            payload=payload,
        )
    )


def round_by_id(session: Session, round_id: str, *, lock: bool = False) -> QuizSession | None:
    """The round; with `lock`, locked until the transaction ends and read afresh."""
    if lock:
        return atomic.locked(session, select(QuizSession).where(QuizSession.id == round_id))
    return session.get(QuizSession, round_id)


def questions_of(session: Session, round_id: str) -> list[QuizQuestion]:
    """A round's questions in the order they are asked."""
    return list(
        session.scalars(
            select(QuizQuestion)
            .where(QuizQuestion.quiz_session_id == round_id)
            .order_by(QuizQuestion.position)
        )
    )


def answers_to(session: Session, question_ids: Collection[int]) -> dict[int, QuizAnswer]:
    """The answers to these questions, by question id."""
    return {
        a.quiz_question_id: a
        for a in session.scalars(
            select(QuizAnswer).where(QuizAnswer.quiz_question_id.in_(list(question_ids)))
        )
    }


def answer_to(session: Session, question_id: int) -> QuizAnswer | None:
    return session.scalar(select(QuizAnswer).where(QuizAnswer.quiz_question_id == question_id))


def add_answer(
    session: Session,
    *,
    question_id: int,
    user_id: int,
    answer: str,
    score: float | None,
    result: dict[str, Any],
) -> None:
    session.add(
        QuizAnswer(
            quiz_question_id=question_id,
            user_id=user_id,
            answer=answer,
            score=score,
            result=result,
        )
    )


def rounds_of(session: Session, user_id: int) -> list[QuizSession]:
    """A learner's rounds, most recently changed first."""
    return list(
        session.scalars(
            select(QuizSession)
            .where(QuizSession.user_id == user_id)
            .order_by(QuizSession.updated_at.desc())
        )
    )
