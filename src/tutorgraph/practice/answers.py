"""Answering a round's current question: graded outside any transaction, then the answer and
the mastery change stored together."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from tutorgraph.errors import ConflictError
from tutorgraph.grading.types import GradingRequest, KnownMisconception
from tutorgraph.knowledge import get_domain
from tutorgraph.learner_model import mastery
from tutorgraph.learner_model.evaluator import Evaluator, GradeResult
from tutorgraph.offload import run_blocking
from tutorgraph.practice.rounds import Progress, load_round, open_round
from tutorgraph.store import practice as stored
from tutorgraph.store.models import QuizQuestion, utcnow


def grading_request(progress: Progress, answer: str) -> tuple[QuizQuestion, GradingRequest]:
    """The request for the round's current question."""
    question = progress.current
    if question is None:
        raise ConflictError("this practice round is finished")
    kb = get_domain(progress.session.domain)
    topic = kb.topic(progress.session.topic)
    return question, GradingRequest(
        question=question.text,
        reference_answer=question.reference_answer,
        answer=answer,
        rubric=list(question.payload.get("rubric", [])),
        misconceptions=[
            KnownMisconception(id=m.id, description=m.description, cues=list(m.cues))
            for m in topic.misconceptions
        ],
        difficulty=int(question.payload.get("difficulty", topic.difficulty)),
        concept=topic.id,
    )


def save_answer(
    *,
    session: Session,
    user_id: int,
    round_id: str,
    question_id: int,
    answer: str,
    result: GradeResult,
) -> None:
    quiz = stored.round_by_id(session, round_id)
    assert quiz is not None
    if stored.answer_to(session, question_id) is not None:
        raise ConflictError("this question was already answered")
    stored.add_answer(
        session,
        question_id=question_id,
        user_id=user_id,
        answer=answer,
        score=result.score,
        result=result.model_dump(mode="json"),
    )
    quiz.updated_at = utcnow()
    session.flush()
    remaining = load_round(session=session, user_id=user_id, round_id=round_id).current
    if remaining is None:
        quiz.status = "completed"


async def submit_answer(
    evaluator: Evaluator,
    *,
    session: Session,
    user_id: int,
    round_id: str,
    answer: str,
    question_id: int | None = None,
) -> tuple[GradeResult, Progress]:
    """Grade the answer to the round's current question, record mastery, store the answer.
    With `question_id` (the question the learner saw), a submit repeated after that question
    was answered is refused (409) instead of answering the next question with it.

    The read transaction ends before grading, so no connection is held while the answer is
    judged; the answer and the mastery change are then stored in one transaction."""

    def current() -> tuple[int, GradingRequest, float, dict[str, Any]]:
        try:
            progress = open_round(session=session, user_id=user_id, round_id=round_id)
            question, request = grading_request(progress, answer)
            if question_id is not None and question.id != question_id:
                raise ConflictError(
                    f"question {question_id} is not waiting for an answer "
                    f"(question {question.id} is)"
                )
            snapshot = mastery.current_mastery(
                session=session, user_id=user_id, concept=request.concept or ""
            )
            return question.id, request, snapshot.wma, event_source(progress, question)
        finally:
            session.commit()

    asked, request, wma, source = await run_blocking(current)
    graded = await evaluator.grade(request, current_mastery=wma)

    def store() -> tuple[GradeResult, Progress]:
        try:
            # the round locked first: of two submits of one answer, the second finds it answered
            load_round(session=session, user_id=user_id, round_id=round_id, lock=True)
            result = evaluator.record(session, request, graded, user_id, source=source)
            save_answer(
                session=session,
                user_id=user_id,
                round_id=round_id,
                question_id=asked,
                answer=answer,
                result=result,
            )
            progress = load_round(session=session, user_id=user_id, round_id=round_id)
            session.commit()
        except BaseException:
            session.rollback()
            raise
        return result, progress

    result, progress = await run_blocking(store)
    await run_blocking(evaluator.publish_completed, request, result, user_id, source)
    return result, progress


def event_source(progress: Progress, question: QuizQuestion) -> dict[str, Any]:
    """Where an answer was given, for the EVALUATION_COMPLETED event the planner reads."""
    return {
        "kind": "practice",
        "domain": progress.session.domain,
        "round_id": progress.session.id,
        "question_id": question.id,
        "question_source_id": question.source_id,
        "attempt": int(question.payload.get("attempt", 1)),
        "bloom_level": str(question.payload.get("bloom_level", "")) or None,
    }
