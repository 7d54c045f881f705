"""The Progress page's learner model: the misconception ledger (open when shown, cleared by a
later good answer, open again), the trend of the last answers, and the evidence."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.orm import Session

from tutorgraph.learner_model import mastery
from tutorgraph.learning.progress import (
    CLEARED_SCORE,
    MisconceptionEntry,
    _update_ledger,
    learner_model,
    trend_of,
)
from tutorgraph.store import users
from tutorgraph.store.db import Database
from tutorgraph.store.models import EvaluationEvent

START = datetime(2026, 11, 1, tzinfo=UTC)
CONCEPT = "python-data-model"


def event(minute: int, score: float, *shown: str, concept: str = CONCEPT) -> EvaluationEvent:
    return EvaluationEvent(
        user_id=1,
        concept=concept,
        score=score,
        decision="RETRY",
        payload={"misconceptions": list(shown), "answer": f"answer {minute}"},
        created_at=START + timedelta(minutes=minute),
    )


def test_a_misconception_opens_clears_and_reopens() -> None:
    ledger: dict[tuple[str, str], MisconceptionEntry] = {}
    _update_ledger(ledger, event(0, 0.1, "is-equals-equality"))
    entry = ledger[(CONCEPT, "is-equals-equality")]
    assert entry.status == "open" and entry.times == 1 and entry.example == "answer 0"
    assert entry.description.startswith("Believes the is operator")
    _update_ledger(ledger, event(1, CLEARED_SCORE - 0.01))  # not good enough to clear it
    _update_ledger(ledger, event(2, 0.95, concept="builtin-data-structures"))  # another concept
    assert entry.status == "open"
    _update_ledger(ledger, event(3, CLEARED_SCORE))
    assert entry.status == "cleared" and entry.cleared_at == START + timedelta(minutes=3)
    _update_ledger(ledger, event(4, 0.2, "is-equals-equality"))
    assert entry.status == "open" and entry.times == 2 and entry.example == "answer 4"


def test_a_good_answer_that_still_shows_it_does_not_clear_it() -> None:
    ledger: dict[tuple[str, str], MisconceptionEntry] = {}
    _update_ledger(ledger, event(0, 0.1, "is-equals-equality"))
    _update_ledger(ledger, event(1, 0.9, "is-equals-equality"))
    assert ledger[(CONCEPT, "is-equals-equality")].status == "open"


@pytest.mark.parametrize(
    ("scores", "trend"),
    [
        ([0.74, 0.42, 0.25], "falling"),  # issue 35: shown as "rising"
        ([0.0, 0.74, 0.42, 0.25], "falling"),  # an early miss does not make a fall look like a rise
        ([0.25, 0.42, 0.74], "rising"),
        ([0.6, 0.62, 0.58], "steady"),
        ([0.9], "new"),
        ([], "new"),
    ],
)
def test_the_trend_reads_the_last_answers_in_the_order_given(
    scores: list[float], trend: str
) -> None:
    assert trend_of(scores) == trend


def _add_event(
    session: Session, user_id: int, score: float, kind: str, before: float, after: float
) -> None:
    session.add(
        EvaluationEvent(
            user_id=user_id,
            concept=CONCEPT,
            score=score,
            decision="RETRY",
            payload={
                "source": {"kind": kind},
                "question": f"question {kind}",
                "answer": f"answer {score}",
                "mastery": {"before": {"wma": before}, "after": {"wma": after}},
            },
        )
    )
    session.flush()


def test_progress_shows_the_one_mastery_the_evidence_newest_first_in_plain_words(
    database: Database,
) -> None:
    with database.session() as session:
        user_id = users.create_user(
            session=session, email="p@example.org", password="plenty long enough", name="P"
        ).id
        other = users.create_user(
            session=session, email="o@example.org", password="plenty long enough", name="O"
        ).id
        current = 0.0
        for score, kind in ((0.74, "practice"), (0.42, "assessment"), (0.25, "tutor_quiz")):
            change = mastery.record_score(
                session=session,
                user_id=user_id,
                concept=CONCEPT,
                score=score,
                kind="multiple_choice" if kind == "tutor_quiz" else "answer",
            )
            _add_event(session, user_id, score, kind, current, change.after.wma)
            current = change.after.wma
        mastery.record_score(session=session, user_id=other, concept=CONCEPT, score=1.0)
        model = learner_model(session, user_id=user_id)
        expected = mastery.mastery_by_concept(session=session, user_id=user_id)[CONCEPT]
    (concept,) = model.concepts
    assert concept.mastery == expected == current  # the one number, this learner's own
    assert concept.trend == "falling" and concept.attempts == 3
    assert [e.source for e in concept.evidence] == ["tutor quiz", "assessment", "practice"]
    assert [e.score for e in concept.evidence] == [0.25, 0.42, 0.74]
    assert concept.evidence[0].after == current
    dumped = model.model_dump()["concepts"][0]
    assert "bkt" not in dumped and dumped["trend"] == "falling"
