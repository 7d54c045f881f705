"""The learning loop for the signed-in learner: the next activity, the review queue, progress."""

from __future__ import annotations

from datetime import datetime

from fastapi import APIRouter
from pydantic import BaseModel, Field

from tutorgraph.api.deps import CurrentUser, NowDep, SessionDep
from tutorgraph.api.unit_of_work import UnitOfWorkRoute
from tutorgraph.learning import planner, progress, reviews

router = APIRouter(route_class=UnitOfWorkRoute, prefix="/me", tags=["learning loop"])


class TakeIn(BaseModel):
    step_id: int | None = Field(default=None, description="The step shown; omitted: the current.")


class TakeOut(BaseModel):
    url: str


class ReviewOut(BaseModel):
    concept: str
    due: datetime
    is_due: bool
    reviews: int
    lapses: int
    retrievability: float | None = Field(description="FSRS probability of recall now.")
    state: str


@router.get("/next")
def get_next(session: SessionDep, user: CurrentUser, now: NowDep) -> planner.NextActivity:
    """What to do next: `{kind, target, title, reason}`, decided by the path planner."""
    return planner.next_activity(session, user=user, now=now)


@router.post("/next/take")
def take_next(body: TakeIn, session: SessionDep, user: CurrentUser, now: NowDep) -> TakeOut:
    """Take the step: marks it taken and starts the practice round it names, if any."""
    return TakeOut(url=planner.take(session, user=user, step_id=body.step_id, now=now))


@router.get("/reviews")
def get_reviews(session: SessionDep, user: CurrentUser, now: NowDep) -> list[ReviewOut]:
    """The learner's FSRS cards, soonest due first."""
    planner.plan_pending(session, user_id=user.id)
    items = reviews.queue(session=session, user_id=user.id, now=now)
    return [ReviewOut(**item.__dict__) for item in items]


class EvidenceOut(BaseModel):
    at: datetime
    question: str
    answer: str
    score: float
    before: float | None
    after: float | None
    source: str


class ConceptOut(BaseModel):
    concept: str
    title: str
    domain: str
    mastery: float
    bkt: float
    attempts: int
    bloom_reached: str | None
    trend: str
    evidence: list[EvidenceOut]


class MisconceptionOut(BaseModel):
    id: str
    concept: str
    description: str
    first_seen: datetime
    last_seen: datetime
    times: int
    example: str
    status: str
    cleared_at: datetime | None


class ProgressOut(BaseModel):
    concepts: list[ConceptOut]
    misconceptions: list[MisconceptionOut]


@router.get("/progress")
def get_progress(session: SessionDep, user: CurrentUser) -> ProgressOut:
    """Mastery per concept with its evidence, and the misconception ledger."""
    planner.plan_pending(session, user_id=user.id)
    model = progress.learner_model(session, user_id=user.id)
    return ProgressOut(
        concepts=[
            ConceptOut(
                **{k: v for k, v in c.__dict__.items() if k not in {"scores", "evidence"}},
                trend=c.trend,
                evidence=[EvidenceOut(**e.__dict__) for e in c.evidence],
            )
            for c in model.concepts
        ],
        misconceptions=[
            MisconceptionOut(**m.__dict__, status=m.status) for m in model.misconceptions
        ],
    )
