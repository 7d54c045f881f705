"""The one mastery update rule: bounded moves, weighted by the kind of evidence and the grader's
certainty, and one number read by every page."""

from __future__ import annotations

import pytest

from tutorgraph.learner_model import mastery
from tutorgraph.learner_model.mastery import (
    ANSWER_WEIGHT,
    EVIDENCE_WEIGHT,
    MULTIPLE_CHOICE_WEIGHT,
    mastery_update,
)
from tutorgraph.store import users
from tutorgraph.store.db import Database


def _learner(database: Database, email: str) -> int:
    with database.session() as session:
        return users.create_user(
            session=session, email=email, password="plenty long enough", name="L"
        ).id


def test_a_wrong_multiple_choice_pick_no_longer_takes_sixty_percent_to_twenty_four(
    database: Database,
) -> None:
    """Issue 35: one multiple-choice answer moved mastery 60% -> 24%."""
    user_id = _learner(database, "mc@example.org")
    with database.session() as session:
        # two sure typed answers of 80% bring a new learner to 60%
        for _ in range(2):
            mastery.record_score(session=session, user_id=user_id, concept="c", score=0.8)
        assert mastery.mastery_of(session=session, user_id=user_id, concept="c") == 0.6
        pick = mastery.record_score(
            session=session, user_id=user_id, concept="c", score=0.0, kind="multiple_choice"
        )
    assert pick.kind == "multiple_choice" and pick.payload()["kind"] == "multiple_choice"
    assert pick.before.wma == pytest.approx(0.6)
    assert pick.after.wma == pytest.approx(0.48)  # 0.6 - 0.2 * 0.6
    assert pick.after.bkt < pick.before.bkt  # knowledge tracing still sees the miss


def test_a_typed_answer_moves_mastery_more_than_a_pick_and_never_more_than_its_weight() -> None:
    assert MULTIPLE_CHOICE_WEIGHT < ANSWER_WEIGHT
    for kind, weight in EVIDENCE_WEIGHT.items():
        for before in (0.0, 0.3, 0.6, 1.0):
            for score in (0.0, 0.25, 0.74, 1.0):
                for certainty in (0.0, 0.5, 1.0, 3.0):  # 3.0: clamped to 1
                    after = mastery_update(before, score, weight=weight, certainty=certainty)
                    assert abs(after - before) <= weight + 1e-9, (kind, before, score)
                    assert min(before, score) - 1e-9 <= after <= max(before, score) + 1e-9


@pytest.mark.parametrize(
    ("before", "score", "weight", "certainty", "after"),
    [
        (0.0, 1.0, ANSWER_WEIGHT, 1.0, 0.5),  # a first perfect typed answer: half the way
        (0.5, 1.0, ANSWER_WEIGHT, 1.0, 0.75),
        (0.75, 1.0, ANSWER_WEIGHT, 1.0, 0.875),  # three in a row pass 80%
        (0.6, 0.0, ANSWER_WEIGHT, 1.0, 0.3),
        (0.6, 0.0, ANSWER_WEIGHT, 0.5, 0.45),  # an unsure grade goes half as far
        (0.6, 0.0, MULTIPLE_CHOICE_WEIGHT, 1.0, 0.48),
        (0.0, 1.0, MULTIPLE_CHOICE_WEIGHT, 1.0, 0.2),
        (0.4, 0.4, ANSWER_WEIGHT, 1.0, 0.4),  # an answer at the current mastery confirms it
    ],
)
def test_the_rule_row_by_row(
    before: float, score: float, weight: float, certainty: float, after: float
) -> None:
    assert mastery_update(before, score, weight=weight, certainty=certainty) == pytest.approx(after)


def test_every_page_reads_the_stored_number(database: Database) -> None:
    user_id = _learner(database, "one@example.org")
    other = _learner(database, "other@example.org")
    with database.session() as session:
        change = mastery.record_score(
            session=session, user_id=user_id, concept="a", score=0.74, certainty=0.8
        )
        mastery.record_score(session=session, user_id=other, concept="b", score=1.0)
        by_concept = mastery.mastery_by_concept(session=session, user_id=user_id)
        assert by_concept == {"a": change.after.wma}  # the other learner's concept is not here
        assert mastery.mastery_of(session=session, user_id=user_id, concept="a") == by_concept["a"]
        assert mastery.mastery_of(session=session, user_id=user_id, concept="never") == 0.0
