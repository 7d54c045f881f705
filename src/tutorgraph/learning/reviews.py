"""Spaced review with FSRS (the `fsrs` package): every graded answer is a review of its concept.

A score maps to an FSRS rating by the evaluator's own thresholds:

| score          | rating | why                                              |
|----------------|--------|--------------------------------------------------|
| below 0.4      | Again  | the alert threshold: the idea was not recalled   |
| 0.4 to < 0.6   | Hard   | recalled in part, below the ALTERNATE threshold  |
| 0.6 to < 0.9   | Good   | recalled, short of MASTERED                      |
| 0.9 and above  | Easy   | the MASTERED threshold                           |

A concept is one card. A concept the learner missed (Again) comes back within the sitting: one
learning step (a first answer) and one relearning step (after a lapse) of STEP_MINUTES, so a
failed concept is due again in ten minutes, not tomorrow (issue 35; decision record 0046). A
first Hard answer comes back after one and a half steps; Good and Easy, and any answer after the
step, schedule the card by its stability, in days. Fuzzing is off so a schedule is reproducible.

Recall is shown honestly: FSRS's retrievability right after any review is 1 by construction, so
it is reported only for a card in the Review state (one recalled at its last answer and spaced
by days), never for one just missed; the page shows the last result and the mastery instead.

Due reviews become short practice rounds (`REVIEW_ROUND`); "review now" starts one on the weakest
concept at any time (`weakest_concepts`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Literal

from fsrs import Card, Rating, Scheduler, State
from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from tutorgraph.learner_model import mastery
from tutorgraph.learner_model.alerts import THRESHOLD_ALERT
from tutorgraph.learner_model.decision import ALTERNATE_THRESHOLD, MASTERED_THRESHOLD
from tutorgraph.store import learning as record
from tutorgraph.store.models import ConceptReview

REVIEW_ROUND = 3  # questions in a review round
# A missed concept comes back after FSRS's default relearning step: long enough to be recalled
# rather than still in view, short enough to be in the same sitting.
STEP_MINUTES = 10
STEP = timedelta(minutes=STEP_MINUTES)
SCHEDULER = Scheduler(learning_steps=(STEP,), relearning_steps=(STEP,), enable_fuzzing=False)

LastResult = Literal["missed", "partly recalled", "recalled", "recalled easily"]
RESULT_OF_RATING: dict[Rating, LastResult] = {
    Rating.Again: "missed",
    Rating.Hard: "partly recalled",
    Rating.Good: "recalled",
    Rating.Easy: "recalled easily",
}


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
    last_result: LastResult | None = Field(
        default=None, description="How the last graded answer on it went; null before one."
    )
    mastery: float = Field(
        default=mastery.INITIAL_WMA, description="The learner's mastery of it (the one number)."
    )
    retrievability: float | None = Field(
        description="FSRS's probability of recall now, for a card recalled at its last review "
        "and spaced by days (state `review`); null before a first review and while a missed or "
        "new concept is coming back within minutes (`learning`, `relearning`), where FSRS's "
        "1.0 right after the review would say nothing."
    )
    state: str


def queue(*, session: Session, user_id: int, now: datetime) -> list[ReviewItem]:
    """The learner's cards, soonest due first."""
    rows = record.review_cards(session, user_id)
    known = mastery.mastery_by_concept(session=session, user_id=user_id)
    items = []
    for row in rows:
        card = Card.from_dict(row.card)  # type: ignore[arg-type]
        recall = (
            round(SCHEDULER.get_card_retrievability(card, now), 3)
            if card.last_review is not None and card.state == State.Review
            else None
        )
        items.append(
            ReviewItem(
                concept=row.concept,
                due=row.due,
                is_due=row.due <= now,
                reviews=row.reviews,
                lapses=row.lapses,
                last_result=(
                    RESULT_OF_RATING[Rating(row.last_rating)] if row.last_rating else None
                ),
                mastery=known.get(row.concept, mastery.INITIAL_WMA),
                retrievability=recall,
                state=State(card.state).name.lower(),
            )
        )
    return items


def weakest_concepts(
    *, session: Session, user_id: int, now: datetime, eligible: Callable[[str], bool]
) -> list[str]:
    """The concepts a "review now" round starts from, weakest first: every concept the learner
    has a mastery or a review card for (and `eligible` accepts: one they may see, with
    questions), by mastery, then due ones before others, then soonest due."""
    known = mastery.mastery_by_concept(session=session, user_id=user_id)
    due = {row.concept: row.due for row in record.review_cards(session, user_id)}
    candidates = [c for c in {**known, **due} if eligible(c)]
    far = now + timedelta(days=36500)
    return sorted(
        candidates,
        key=lambda c: (
            known.get(c, mastery.INITIAL_WMA),
            due.get(c, far) > now,
            due.get(c, far),
            c,
        ),
    )


def due_words(due: datetime, now: datetime) -> str:
    """When a review is due, in words: "now", "in 10 minutes", "today at 14:05 UTC",
    "tomorrow at 09:00 UTC", "02 Dec 2026"."""
    if due <= now:
        return "now"
    if due - now < timedelta(hours=1):
        minutes = max(1, round((due - now).total_seconds() / 60))
        return f"in {minutes} minute{'' if minutes == 1 else 's'}"
    if due.date() == now.date():
        return f"today at {due:%H:%M} UTC"
    if due.date() == (now + timedelta(days=1)).date():
        return f"tomorrow at {due:%H:%M} UTC"
    return f"{due:%d %b %Y}"


def due_concepts(*, session: Session, user_id: int, now: datetime) -> list[str]:
    return [
        item.concept for item in queue(session=session, user_id=user_id, now=now) if item.is_due
    ]
