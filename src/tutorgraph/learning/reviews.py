"""Spaced review with FSRS (the `fsrs` package): every graded answer is a review of its concept.

A score maps to an FSRS rating by the evaluator's own thresholds:

| score          | rating | why                                              |
|----------------|--------|--------------------------------------------------|
| below 0.4      | Again  | the alert threshold: the idea was not recalled   |
| 0.4 to < 0.6   | Hard   | recalled in part, below the ALTERNATE threshold  |
| 0.6 to < 0.9   | Good   | recalled, short of MASTERED                      |
| 0.9 and above  | Easy   | the MASTERED threshold                           |

A concept is one card, so there are no minute-scale learning steps (those suit flash cards seen
again within a sitting): every review schedules the card by its stability, in days. Fuzzing is
off so a schedule is reproducible. Due reviews become short practice rounds (`REVIEW_ROUND`)."""

from __future__ import annotations

from datetime import datetime, timedelta

from fsrs import Card, Rating, Scheduler, State
from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from tutorgraph.learner_model.alerts import THRESHOLD_ALERT
from tutorgraph.learner_model.decision import ALTERNATE_THRESHOLD, MASTERED_THRESHOLD
from tutorgraph.store import learning as record
from tutorgraph.store.models import ConceptReview

REVIEW_ROUND = 3  # questions in a review round
SCHEDULER = Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)


def rating_for(score: float) -> Rating:
    if score < THRESHOLD_ALERT:
        return Rating.Again
    if score < ALTERNATE_THRESHOLD:
        return Rating.Hard
    if score < MASTERED_THRESHOLD:
        return Rating.Good
    return Rating.Easy


def record_review(
    *, session: Session, user_id: int, concept: str, score: float, at: datetime
) -> ConceptReview:
    """Review the learner's card for `concept` with a graded score at time `at`. The card is
    locked from read to write, so reviews graded at once each count (`store.atomic`)."""
    row = record.review_card_locked(session, user_id=user_id, concept=concept, due=at)
    card = Card.from_dict(row.card) if row.card else Card(due=at)  # type: ignore[arg-type]
    rating = rating_for(score)
    card, _ = SCHEDULER.review_card(card, rating, at)
    row.card = card.to_dict()  # type: ignore[assignment]
    row.due = card.due
    row.reviews = (row.reviews or 0) + 1
    row.lapses = (row.lapses or 0) + (1 if rating == Rating.Again else 0)
    row.last_rating = int(rating)
    row.updated_at = at
    session.flush()
    return row


def schedule(
    *, session: Session, user_id: int, concept: str, due: datetime
) -> ConceptReview | None:
    """Put a concept the learner has not been graded on yet into the review queue at `due`
    (the assessment plan does this for each phase); a concept with a card keeps its own date."""
    card = Card(due=due)
    return record.add_review_card(
        session, user_id=user_id, concept=concept, card=card.to_dict(), due=due
    )


STUDY_HOURS_PER_WEEK = 5.0  # the pace a learning plan's phases are scheduled at


def schedule_plan(
    *, session: Session, user_id: int, phases: list[tuple[list[str], float]], start: datetime
) -> int:
    """Put a learning plan's phases into the review queue: each phase's concepts come due when
    the phase starts, at STUDY_HOURS_PER_WEEK (phase 1 at once). Returns how many were added."""
    added = 0
    offset_hours = 0.0
    for concepts, hours in phases:
        due = start + timedelta(weeks=offset_hours / STUDY_HOURS_PER_WEEK)
        for concept in concepts:
            if schedule(session=session, user_id=user_id, concept=concept, due=due) is not None:
                added += 1
        offset_hours += hours
    return added


class ReviewItem(BaseModel):
    """`GET /api/v1/me/reviews`: one concept's FSRS card."""

    concept: str
    due: datetime
    is_due: bool
    reviews: int
    lapses: int
    retrievability: float | None = Field(
        description="FSRS's probability of recall now; null before a first review."
    )
    state: str


def queue(*, session: Session, user_id: int, now: datetime) -> list[ReviewItem]:
    """The learner's cards, soonest due first."""
    rows = record.review_cards(session, user_id)
    items = []
    for row in rows:
        card = Card.from_dict(row.card)  # type: ignore[arg-type]
        recall = (
            round(SCHEDULER.get_card_retrievability(card, now), 3)
            if card.last_review is not None
            else None
        )
        items.append(
            ReviewItem(
                concept=row.concept,
                due=row.due,
                is_due=row.due <= now,
                reviews=row.reviews,
                lapses=row.lapses,
                retrievability=recall,
                state=State(card.state).name.lower(),
            )
        )
    return items


def due_concepts(*, session: Session, user_id: int, now: datetime) -> list[str]:
    return [
        item.concept for item in queue(session=session, user_id=user_id, now=now) if item.is_due
    ]
