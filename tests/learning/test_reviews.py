"""FSRS reviews: the score-to-rating map and the schedule it produces."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from fsrs import Rating

from tutorgraph.learning.reviews import rating_for, record_review
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
