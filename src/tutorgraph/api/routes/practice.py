"""Practice rounds: pick a topic, answer graded questions one at a time, resume later."""

from __future__ import annotations

import anyio.to_thread
from fastapi import APIRouter, Request, status
from pydantic import BaseModel, Field

from tutorgraph import practice
from tutorgraph.api.openapi_problems import problem_responses
from tutorgraph.http.deps import CurrentUser, NowDep, SessionDep, SettingsDep
from tutorgraph.http.unit_of_work import UnitOfWorkRoute
from tutorgraph.ids import DbId
from tutorgraph.learner_model.evaluator import Evaluator, GradeResult
from tutorgraph.learning import planner
from tutorgraph.limits import check_answer, require_answer

router = APIRouter(route_class=UnitOfWorkRoute, prefix="/practice", tags=["practice"])


class StartIn(BaseModel):
    domain: str = Field(max_length=100)
    topic: str = Field(max_length=200)


class AnswerIn(BaseModel):
    answer: str = Field(description="At most `limits.max_answer_chars` characters.")
    question_id: DbId | None = Field(
        default=None,
        description="The question answered (`round.current.id`): when another is waiting, a "
        "repeated submit, the answer is refused with 409 instead of answering that one.",
    )


class AnswerOut(BaseModel):
    result: GradeResult
    round: practice.RoundOut
    next: planner.NextActivity = Field(description="The path planner's next step.")


@router.post("/rounds", status_code=status.HTTP_201_CREATED, responses=problem_responses(404))
def start(body: StartIn, session: SessionDep, user: CurrentUser) -> practice.RoundOut:
    quiz = practice.start_round(
        session=session, user_id=user.id, domain=body.domain, topic=body.topic
    )
    return practice.view_round(session=session, user_id=user.id, round_id=quiz.id)


@router.get("/rounds")
def list_rounds(session: SessionDep, user: CurrentUser) -> list[practice.RoundOut]:
    return [
        practice.view_round(session=session, user_id=user.id, round_id=q.id)
        for q in practice.my_rounds(session=session, user_id=user.id)
    ]


@router.get("/rounds/{round_id}")
def get_round(round_id: str, session: SessionDep, user: CurrentUser) -> practice.RoundOut:
    return practice.view_round(session=session, user_id=user.id, round_id=round_id)


@router.post("/rounds/{round_id}/answers", responses=problem_responses(409, 502))
async def answer(
    round_id: str,
    body: AnswerIn,
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    settings: SettingsDep,
    now: NowDep,
) -> AnswerOut:
    """Grade the answer to the round's current question and move on."""
    require_answer(check_answer(settings=settings, text=body.answer))
    evaluator: Evaluator = request.app.state.evaluator
    result, _ = await practice.submit_answer(
        evaluator,
        session=session,
        user_id=user.id,
        round_id=round_id,
        answer=body.answer,
        question_id=body.question_id,
    )

    def after_planning() -> tuple[planner.NextActivity, practice.RoundOut]:
        # the planner may have queued the question again: the round is read after it
        upcoming = planner.next_activity(session, user=user, now=now)
        return upcoming, practice.view_round(session=session, user_id=user.id, round_id=round_id)

    upcoming, round_ = await anyio.to_thread.run_sync(after_planning)
    return AnswerOut(result=result, round=round_, next=upcoming)


class RetryIn(BaseModel):
    question_id: DbId = Field(
        description="An answered question whose decision was RETRY, REMEDIATE or ALTERNATE."
    )


@router.post("/rounds/{round_id}/retry", responses=problem_responses(404, 409))
def retry(
    round_id: str, body: RetryIn, session: SessionDep, user: CurrentUser
) -> practice.RoundOut:
    """Ask an answered question again, as the next question of the round (at most 3 attempts)."""
    practice.retry_question(
        session=session, user_id=user.id, round_id=round_id, question_id=body.question_id
    )
    return practice.view_round(session=session, user_id=user.id, round_id=round_id)
