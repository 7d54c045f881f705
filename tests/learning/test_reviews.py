"""FSRS reviews: the score-to-rating map, the schedule it produces (a missed concept comes back
within the hour), recall shown honestly, and where "review now" starts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from fsrs import Rating

from tutorgraph.learner_model import mastery
from tutorgraph.learning.reviews import (
    STEP_MINUTES,
    due_concepts,
    due_words,
    queue,
    rating_for,
    record_review,
    weakest_concepts,
)
from tutorgraph.store.db import Database
from tutorgraph.store.models import User


@pytest.mark.parametrize(
    ("score", "rating"),
    [
        (0.0, Rating.Again),
        (0.39, Rating.Again),
        (0.4, Rating.Hard),
        (0.59, Rating.Hard),
        (0.6, Rating.Good),
        (0.89, Rating.Good),
        (0.9, Rating.Easy),
        (1.0, Rating.Easy),
    ],
)
def test_scores_map_to_ratings_at_the_evaluator_thresholds(score: float, rating: Rating) -> None:
    assert rating_for(score) == rating


def test_a_better_answer_is_reviewed_later_and_a_lapse_soon(database: Database) -> None:
    at = datetime(2026, 11, 1, tzinfo=UTC)
    with database.session() as session:
        users = [User(email=f"u{i}@example.org", name="U", password_hash="x") for i in range(3)]
        session.add_all(users)
        session.flush()
        dues = [
            record_review(session=session, user_id=u.id, concept="c", score=s, at=at).due
            for u, s in zip(users, (0.1, 0.7, 0.95), strict=True)
        ]
        assert at < dues[0] < dues[1] < dues[2]  # Again < Good < Easy
        lapsed = record_review(
            session=session, user_id=users[2].id, concept="c", score=0.0, at=dues[2]
        )
        assert lapsed.lapses == 1 and lapsed.reviews == 2
        assert (lapsed.due - dues[2]) < (dues[2] - at)  # a lapse comes back sooner


def _learners(database: Database, count: int) -> list[int]:
    with database.session() as session:
        made = [User(email=f"r{i}@example.org", name="R", password_hash="x") for i in range(count)]
        session.add_all(made)
        session.flush()
        return [u.id for u in made]


def test_a_failed_concept_is_due_again_within_the_hour_not_tomorrow(database: Database) -> None:
    """Issue 35: after an assessment with 0% answers every concept was due tomorrow."""
    at = datetime(2026, 11, 1, 9, tzinfo=UTC)
    first, lapsing = _learners(database, 2)
    with database.session() as session:
        missed = record_review(session=session, user_id=first, concept="c", score=0.0, at=at)
        assert timedelta(0) < missed.due - at <= timedelta(hours=1)
        assert missed.due - at == timedelta(minutes=STEP_MINUTES)
        # a concept recalled before and missed now (a lapse) comes back as soon
        recalled = record_review(
            session=session, user_id=lapsing, concept="c", score=0.7, at=at
        ).due
        assert recalled - at >= timedelta(days=1)
        lapsed = record_review(
            session=session, user_id=lapsing, concept="c", score=0.1, at=recalled
        ).due
        assert lapsed - recalled == timedelta(minutes=STEP_MINUTES)
        # answered right when it comes back: spaced by days again
        again = record_review(session=session, user_id=lapsing, concept="c", score=0.8, at=lapsed)
        assert again.due - lapsed >= timedelta(days=1)


def test_recall_is_not_shown_as_certain_right_after_a_miss(database: Database) -> None:
    at = datetime(2026, 11, 1, 9, tzinfo=UTC)
    (user_id,) = _learners(database, 1)
    with database.session() as session:
        mastery.record_score(session=session, user_id=user_id, concept="missed", score=0.0)
        record_review(session=session, user_id=user_id, concept="missed", score=0.0, at=at)
        mastery.record_score(session=session, user_id=user_id, concept="known", score=0.95)
        record_review(session=session, user_id=user_id, concept="known", score=0.95, at=at)
        items = {i.concept: i for i in queue(session=session, user_id=user_id, now=at)}
        later = {
            i.concept: i
            for i in queue(session=session, user_id=user_id, now=at + timedelta(minutes=11))
        }
    missed, known = items["missed"], items["known"]
    assert missed.retrievability is None and missed.last_result == "missed"
    assert missed.mastery == 0.0 and not missed.is_due and later["missed"].is_due
    assert known.last_result == "recalled easily" and known.mastery == 0.475
    assert known.retrievability is not None and known.retrievability <= 1.0


def test_review_now_starts_from_the_weakest_concept_due_or_not(database: Database) -> None:
    at = datetime(2026, 11, 1, 9, tzinfo=UTC)
    (user_id,) = _learners(database, 1)
    with database.session() as session:
        for concept, score in (("strong", 1.0), ("weak", 0.7), ("hidden", 0.0)):
            mastery.record_score(session=session, user_id=user_id, concept=concept, score=score)
            record_review(session=session, user_id=user_id, concept=concept, score=score, at=at)
        assert due_concepts(session=session, user_id=user_id, now=at + timedelta(hours=1)) == [
            "hidden"
        ]
        weakest = weakest_concepts(
            session=session, user_id=user_id, now=at, eligible=lambda c: c != "hidden"
        )
    assert weakest == ["weak", "strong"]  # nothing eligible is due: still the weakest first


@pytest.mark.parametrize(
    ("minutes", "words"),
    [
        (0, "now"),
        (10, "in 10 minutes"),
        (1, "in 1 minute"),
        (180, "today at 12:00 UTC"),
        (24 * 60, "tomorrow at 09:00 UTC"),
        (3 * 24 * 60, "04 Nov 2026"),
    ],
)
def test_due_words(minutes: int, words: str) -> None:
    now = datetime(2026, 11, 1, 9, tzinfo=UTC)
    assert due_words(now + timedelta(minutes=minutes), now) == words
