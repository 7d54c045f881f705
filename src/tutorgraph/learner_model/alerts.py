"""Phase 7: instructor alerts for critical failures (score below 0.4)."""

from __future__ import annotations

from sqlalchemy.orm import Session

from tutorgraph.store.models import InstructorAlert

ALERT_TEXT_CHARS = 2000


def raise_alert(
    *, session: Session, user_id: int, concept: str, score: float, question: str, answer: str = ""
) -> InstructorAlert:
    alert = InstructorAlert(
        user_id=user_id,
        concept=concept,
        score=score,
        question=question[:ALERT_TEXT_CHARS],
        answer=answer[:ALERT_TEXT_CHARS],
        message=f"Critical failure on {concept or 'a question'}: score {score:.2f}",
    )
    session.add(alert)
    session.flush()
    return alert
