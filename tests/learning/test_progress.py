"""The misconception ledger: open when shown, cleared by a later good answer, open again."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tutorgraph.learning.progress import CLEARED_SCORE, MisconceptionEntry, _update_ledger
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
