"""Adaptive skill assessments: start, answer question by question, read the report, list yours.
Only the owner sees an assessment; to anyone else it answers 404."""

from __future__ import annotations

from fastapi import APIRouter, status
from pydantic import BaseModel, Field

from tutorgraph.api.openapi_problems import problem_responses
from tutorgraph.assessment.service import AssessmentSummary, AssessmentView
from tutorgraph.http.deps import AssessmentsDep, CurrentUser, SettingsDep
from tutorgraph.http.unit_of_work import UnitOfWorkRoute
from tutorgraph.knowledge import TargetLevel
from tutorgraph.limits import check_answer

router = APIRouter(route_class=UnitOfWorkRoute, prefix="/assessments", tags=["assessments"])


class StartIn(BaseModel):
    domain: str = Field(max_length=100, examples=["python"])
    target_level: TargetLevel


class AnswerIn(BaseModel):
    answer: str = Field(description="At most `limits.max_answer_chars` characters.")
    question_id: str | None = Field(
        default=None,
        max_length=200,
        description="The question being answered; a stale id (answered already) gives 409.",
    )


@router.post("", status_code=status.HTTP_201_CREATED, responses=problem_responses(404, 502))
async def start_assessment(
    body: StartIn, user: CurrentUser, assessments: AssessmentsDep
) -> AssessmentView:
    """Start an assessment; the reply carries the first question in `interrupt`."""
    return await assessments.start(
        user_id=user.id, domain=body.domain, target_level=body.target_level
    )


@router.post("/{assessment_id}/answers", responses=problem_responses(409, 502))
async def answer_question(
    assessment_id: str,
    body: AnswerIn,
    user: CurrentUser,
    assessments: AssessmentsDep,
    settings: SettingsDep,
) -> AssessmentView:
    """Answer the waiting question: the reply has the next question, or the final `report`.
    If the last step stopped on a model error, this call carries on from there instead (the
    answer given then was already recorded, so this one is not used)."""
    return await assessments.answer(
        assessment_id=assessment_id,
        user_id=user.id,
        answer=check_answer(settings=settings, text=body.answer),
        question_id=body.question_id,
    )


class FinishIn(BaseModel):
    answer: str = Field(
        default="",
        description=(
            "Optional: an answer to the question on screen, graded before the assessment ends "
            "(at most `limits.max_answer_chars` characters). Blank: that question is dropped."
        ),
    )


@router.post("/{assessment_id}/finish", responses=problem_responses(409, 502))
async def finish_assessment(
    assessment_id: str,
    user: CurrentUser,
    assessments: AssessmentsDep,
    settings: SettingsDep,
    body: FinishIn | None = None,
) -> AssessmentView:
    """End the assessment now: the reply carries the `report` on the questions answered so far
    (topics not reached are listed in `report.not_assessed`, not as gaps). Needs at least one
    answer (409 before the first). Finishing a finished assessment returns it unchanged."""
    answer = body.answer if body is not None else ""
    return await assessments.finish(
        assessment_id=assessment_id,
        user_id=user.id,
        answer=check_answer(settings=settings, text=answer) if answer.strip() else "",
    )


@router.get("/{assessment_id}")
async def get_assessment(
    assessment_id: str, user: CurrentUser, assessments: AssessmentsDep
) -> AssessmentView:
    """The waiting question and progress, or the report once complete."""
    return await assessments.get(assessment_id=assessment_id, user_id=user.id)


@router.get("")
async def list_assessments(
    user: CurrentUser, assessments: AssessmentsDep
) -> list[AssessmentSummary]:
    """Your assessments, newest first."""
    return await assessments.list(user_id=user.id)
