"""Grading answers, learner mastery, and instructor alerts."""

from __future__ import annotations

import functools
from datetime import datetime

import anyio.to_thread
from fastapi import APIRouter, Request
from pydantic import BaseModel, Field, model_validator

from tutorgraph import instructor
from tutorgraph.api.openapi_problems import problem_responses
from tutorgraph.errors import NotFoundError, PermissionDeniedError
from tutorgraph.grading.types import GradingRequest, KnownMisconception
from tutorgraph.http.deps import CurrentUser, InstructorUser, NowDep, SessionDep, SettingsDep
from tutorgraph.http.unit_of_work import UnitOfWorkRoute
from tutorgraph.ids import DbId
from tutorgraph.knowledge import VisibleKnowledge, find_topic, visible_knowledge
from tutorgraph.learner_model import mastery
from tutorgraph.learner_model.evaluator import Evaluator, GradeResult
from tutorgraph.learning import planner
from tutorgraph.limits import check_answer, require_answer

router = APIRouter(route_class=UnitOfWorkRoute, tags=["grading"])


class GradeIn(BaseModel):
    """A knowledge-base `question_id`, or `question` + `reference_answer`; always `answer`.
    The texts are at most `limits.max_answer_chars` characters each."""

    answer: str
    question_id: str | None = Field(default=None, max_length=200)
    question: str | None = None
    reference_answer: str | None = None
    rubric: list[str] = Field(default_factory=list, max_length=20)
    concept: str | None = Field(default=None, max_length=200)
    difficulty: int | None = Field(default=None, ge=1, le=5)

    @model_validator(mode="after")
    def _one_source(self) -> GradeIn:
        if self.question_id is None and not (self.question and self.reference_answer):
            raise ValueError("give a question_id, or both question and reference_answer")
        return self


def grading_request(body: GradeIn, knowledge: VisibleKnowledge) -> GradingRequest:
    """Resolve a knowledge-base question id among the domains the caller may see, or take the
    caller's question as given (its `concept`, when a knowledge-base topic, one they may see:
    grading reads that topic's misconceptions and key points)."""
    if body.question_id is not None:
        found = knowledge.question(body.question_id)
        if found is None:
            raise NotFoundError(f"no knowledge-base question {body.question_id!r}")
        topic, question = found
        return GradingRequest(
            question=question.text,
            reference_answer=question.reference_answer,
            answer=body.answer,
            rubric=list(question.rubric),
            misconceptions=[
                KnownMisconception(id=m.id, description=m.description, cues=list(m.cues))
                for m in topic.misconceptions
            ],
            difficulty=question.difficulty,
            concept=topic.id,
        )
    if body.concept and knowledge.topic(body.concept) is None and find_topic(body.concept):
        raise NotFoundError(f"no knowledge-base concept {body.concept!r}")
    values: dict[str, object] = {
        "question": body.question,
        "reference_answer": body.reference_answer,
        "answer": body.answer,
        "rubric": body.rubric,
        "concept": body.concept,
    }
    if body.difficulty is not None:
        values["difficulty"] = body.difficulty
    return GradingRequest.model_validate(values)


class GradedOut(GradeResult):
    next: planner.NextActivity | None = Field(
        default=None,
        description="The path planner's next step after this answer (also `GET /me/next`); "
        "null for an answer without a concept.",
    )


@router.post("/grade", responses=problem_responses(403, 404, 502))
async def grade(
    body: GradeIn,
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    settings: SettingsDep,
    now: NowDep,
) -> GradedOut:
    """Grade one answer: score, rubric, error type, misconceptions, feedback, decision, and the
    learner's mastery before and after (WMA and BKT) when the answer has a concept.

    A knowledge-base question (`question_id`) moves the caller's mastery of its topic. A
    question brought with its own reference answer moves a `concept` only for instructors and
    admins: a learner who wrote the reference could grade themselves into mastery (403)."""
    for field in ("answer", "question", "reference_answer"):
        check_answer(settings=settings, text=getattr(body, field) or "", field=field)
    require_answer(body.answer)
    if body.question_id is None and body.concept and user.role == "learner":
        raise PermissionDeniedError(
            "concept: a learner's mastery moves only with knowledge-base questions "
            "(question_id), not with a reference answer the caller supplies"
        )
    evaluator: Evaluator = request.app.state.evaluator
    knowledge = await anyio.to_thread.run_sync(
        functools.partial(visible_knowledge, session=session, user=user)
    )
    graded = grading_request(body, knowledge)
    result = await evaluator.evaluate(graded, session=session, user_id=user.id)
    upcoming = (
        await anyio.to_thread.run_sync(
            functools.partial(planner.next_activity, session, user=user, now=now)
        )
        if graded.concept
        else None
    )
    return GradedOut(**result.model_dump(), next=upcoming)


class MasteryRow(BaseModel):
    concept: str
    wma: float = Field(
        description="Your mastery, the one number every page shows (docs/mastery.md)."
    )
    bkt: float = Field(
        description="Knowledge tracing's P(known), kept for instructors' model fits; not a "
        "second mastery, and no page shows it to a learner."
    )
    attempts: int
    updated_at: datetime


@router.get("/mastery")
def my_mastery(session: SessionDep, user: CurrentUser) -> list[MasteryRow]:
    """Your mastery per concept."""
    return [
        MasteryRow(
            concept=row.concept,
            wma=row.wma,
            bkt=row.bkt,
            attempts=row.attempts,
            updated_at=row.updated_at,
        )
        for row in mastery.learner_mastery(session=session, user_id=user.id)
    ]


@router.get("/alerts", responses=problem_responses(403))
def list_alerts(
    session: SessionDep, user: InstructorUser, unread: bool = False
) -> list[instructor.AlertView]:
    """Alerts for critical failures (score < 0.4) of the learners of the courses you teach, on
    those courses' concepts (admins: every course)."""
    return instructor.visible_alerts(session, user=user, open_only=unread)


@router.post("/alerts/{alert_id}/read", responses=problem_responses(403, 404))
def read_alert(alert_id: DbId, session: SessionDep, user: InstructorUser) -> instructor.AlertView:
    """Mark an alert handled."""
    return instructor.handle_alert(session, user=user, alert_id=alert_id)
