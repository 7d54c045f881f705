"""Phase 7: instructor alerts for critical failures (score below 0.4)."""

from __future__ import annotations

from sqlalchemy.orm import Session

from tutorgraph.store import learning as record
from tutorgraph.store.models import InstructorAlert

THRESHOLD_ALERT = 0.4
ALERT_TEXT_CHARS = 2000


def needs_alert(score: float) -> bool:
    """Critical failure: the instructor is told."""
    return score < THRESHOLD_ALERT


def raise_alert(
    *, session: Session, user_id: int, concept: str, score: float, question: str, answer: str = ""
) -> InstructorAlert:
    return record.add_alert(
        session,
        user_id=user_id,
        concept=concept,
        score=score,
        question=question[:ALERT_TEXT_CHARS],
        answer=answer[:ALERT_TEXT_CHARS],
        message=f"Critical failure on {concept or 'a question'}: score {score:.2f}",
    )
