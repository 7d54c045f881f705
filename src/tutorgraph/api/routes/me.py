"""The learning loop for the signed-in learner: the next activity, the review queue, progress."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, Field

from tutorgraph.http.deps import CurrentUser, NowDep, SessionDep
from tutorgraph.http.unit_of_work import UnitOfWorkRoute
from tutorgraph.ids import DbId
from tutorgraph.learning import planner, progress, reviews

router = APIRouter(route_class=UnitOfWorkRoute, prefix="/me", tags=["learning loop"])


class TakeIn(BaseModel):
    step_id: DbId | None = Field(default=None, description="The step shown; omitted: the current.")


class TakeOut(BaseModel):
    url: str


@router.get("/next")
def get_next(session: SessionDep, user: CurrentUser, now: NowDep) -> planner.NextActivity:
    """What to do next: `{kind, target, title, reason}`, decided by the path planner."""
    return planner.next_activity(session, user=user, now=now)


@router.post("/next/take")
def take_next(body: TakeIn, session: SessionDep, user: CurrentUser, now: NowDep) -> TakeOut:
    """Take the step: marks it taken and starts the practice round it names, if any."""
    return TakeOut(url=planner.take(session, user=user, step_id=body.step_id, now=now))


@router.get("/reviews")
def get_reviews(session: SessionDep, user: CurrentUser, now: NowDep) -> list[reviews.ReviewItem]:
    """The learner's FSRS cards, soonest due first."""
    planner.plan_pending(session, user_id=user.id)
    return reviews.queue(session=session, user_id=user.id, now=now)


@router.get("/progress")
def get_progress(session: SessionDep, user: CurrentUser) -> progress.LearnerModel:
    """Mastery per concept with its evidence, and the misconception ledger."""
    planner.plan_pending(session, user_id=user.id)
    return progress.learner_model(session, user_id=user.id)
