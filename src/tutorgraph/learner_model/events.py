"""Phase 8: EVALUATION_COMPLETED events, stored (the durable copy the path planner reads as its
outbox) and published on an in-process bus. A failing subscriber is logged and never breaks
grading."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from sqlalchemy.orm import Session

from tutorgraph.store import learning as record
from tutorgraph.store.models import EvaluationEvent

log = logging.getLogger(__name__)

EVALUATION_COMPLETED = "EVALUATION_COMPLETED"
EVENT_TEXT_CHARS = 2000  # the question and answer kept in an event, for the learner's evidence
Subscriber = Callable[[str, dict[str, Any]], None]


class EventBus:
    def __init__(self) -> None:
        self._subscribers: dict[str, list[Subscriber]] = {}

    def subscribe(self, event: str, subscriber: Subscriber) -> None:
        self._subscribers.setdefault(event, []).append(subscriber)

    def publish(self, event: str, payload: dict[str, Any]) -> None:
        for subscriber in self._subscribers.get(event, []):
            try:
                subscriber(event, payload)
            except Exception:
                log.exception("subscriber %r of %s failed; grading goes on", subscriber, event)


def store_event(
    session: Session,
    *,
    user_id: int,
    concept: str,
    score: float,
    decision: str,
    payload: dict[str, Any],
) -> EvaluationEvent:
    """Store one EVALUATION_COMPLETED event in the caller's transaction. `payload["source"]`
    says where the answer was given (`kind`: practice, api, tutor_quiz, assessment...)."""
    return record.add_event(
        session, user_id=user_id, concept=concept, score=score, decision=decision, payload=payload
    )
