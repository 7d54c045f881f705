"""Phase 8: an in-process event bus. A failing subscriber is logged and never breaks grading."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

EVALUATION_COMPLETED = "EVALUATION_COMPLETED"
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
