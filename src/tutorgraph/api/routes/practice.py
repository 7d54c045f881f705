"""Practice rounds: pick a topic, answer graded questions one at a time, resume later."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

from fastapi import APIRouter, Request, status
from pydantic import BaseModel, Field

from tutorgraph import practice
from tutorgraph.api.deps import CurrentUser, DatabaseDep, SessionDep
from tutorgraph.grading import mastery
from tutorgraph.grading.evaluator import Evaluator, GradeResult
from tutorgraph.store.db import Database

router = APIRouter(prefix="/practice", tags=["practice"])


class StartIn(BaseModel):
    domain: str = Field(max_length=100)
    topic: str = Field(max_length=200)


class AnswerIn(BaseModel):
    answer: str = Field(max_length=10_000)


class QuestionOut(BaseModel):
    id: int
    position: int
    text: str
    bloom_level: str
    type: str


class AnsweredOut(QuestionOut):
    answer: str
    result: dict[str, Any]


class RoundOut(BaseModel):
    id: str
    domain: str
    topic: str
    status: str
    total: int
    answered: list[AnsweredOut]
    current: QuestionOut | None
    updated_at: datetime


class AnswerOut(BaseModel):
    result: GradeResult
    round: RoundOut


def _question(q: Any) -> QuestionOut:
    return QuestionOut(
        id=q.id,
        position=q.position,
        text=q.text,
        bloom_level=str(q.payload.get("bloom_level", "")),
        type=str(q.payload.get("type", "")),
    )


def round_out(progress: practice.Progress) -> RoundOut:
    answered = [
        AnsweredOut(
            **_question(q).model_dump(),
            answer=progress.answers[q.id].answer,
            result=progress.answers[q.id].result,
        )
        for q in progress.questions
        if q.id in progress.answers
    ]
    current = progress.current
    return RoundOut(
        id=progress.session.id,
        domain=progress.session.domain,
        topic=progress.session.topic,
        status=progress.session.status,
        total=len(progress.questions),
        answered=answered,
        current=_question(current) if current is not None else None,
        updated_at=progress.session.updated_at,
    )


@router.post("/rounds", status_code=status.HTTP_201_CREATED)
def start(body: StartIn, session: SessionDep, user: CurrentUser) -> RoundOut:
    quiz = practice.start_round(
        session=session, user_id=user.id, domain=body.domain, topic=body.topic
    )
    return round_out(practice.load_round(session=session, user_id=user.id, round_id=quiz.id))


@router.get("/rounds")
def list_rounds(session: SessionDep, user: CurrentUser) -> list[RoundOut]:
    return [
        round_out(practice.load_round(session=session, user_id=user.id, round_id=q.id))
        for q in practice.my_rounds(session=session, user_id=user.id)
    ]


@router.get("/rounds/{round_id}")
def get_round(round_id: str, session: SessionDep, user: CurrentUser) -> RoundOut:
    return round_out(practice.load_round(session=session, user_id=user.id, round_id=round_id))


@router.post("/rounds/{round_id}/answers")
async def answer(
    round_id: str, body: AnswerIn, request: Request, database: DatabaseDep, user: CurrentUser
) -> AnswerOut:
    """Grade the answer to the round's current question and move on."""
    evaluator: Evaluator = request.app.state.evaluator
    result, progress = await submit_answer(
        evaluator, database=database, user_id=user.id, round_id=round_id, answer=body.answer
    )
    return AnswerOut(result=result, round=round_out(progress))


async def submit_answer(
    evaluator: Evaluator, *, database: Database, user_id: int, round_id: str, answer: str
) -> tuple[GradeResult, practice.Progress]:
    """Shared by the API and the Practice page: grade, record mastery, store the answer."""

    def current() -> tuple[int, Any, float]:
        with database.session() as session:
            progress = practice.load_round(session=session, user_id=user_id, round_id=round_id)
            question, request = practice.grading_request(progress, answer)
            snapshot = mastery.current_mastery(
                session=session, user_id=user_id, concept=request.concept or ""
            )
            return question.id, request, snapshot.wma

    question_id, request, wma = await asyncio.to_thread(current)
    graded = await evaluator.grade(request, current_mastery=wma)

    def store() -> tuple[GradeResult, practice.Progress]:
        with database.session() as session:
            result = evaluator.record(session, request, graded, user_id)
            practice.save_answer(
                session=session,
                user_id=user_id,
                round_id=round_id,
                question_id=question_id,
                answer=answer,
                result=result,
            )
            return result, practice.load_round(session=session, user_id=user_id, round_id=round_id)

    result, progress = await asyncio.to_thread(store)
    evaluator.publish_completed(request, result, user_id)
    return result, progress
