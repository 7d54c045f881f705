"""Another way into a question the learner missed, drawn from the knowledge base."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tutorgraph.knowledge import get_domain
from tutorgraph.text.meaning import Analysis


@dataclass(frozen=True)
class Explanation:
    """Another way into a question the learner missed, from the knowledge base."""

    topic_title: str
    summary: str
    key_points: list[str]
    misconceptions: list[str]
    resources: list[tuple[str, str]]  # (title, url)


def another_explanation(*, domain: str, topic: str, result: dict[str, Any]) -> Explanation:
    """The topic's key points closest to what the answer missed, the misconceptions it showed
    (in the knowledge base's words), and the topic's reading: deterministic, grounded."""
    kb_topic = get_domain(domain).topic(topic)
    missing = [str(p) for p in result.get("missing_key_points") or []]
    ranked = sorted(
        kb_topic.key_points,
        key=lambda point: -max((_overlap(point, m) for m in missing), default=0.0),
    )
    shown = [str(m.get("description", "")) for m in result.get("misconceptions") or []]
    return Explanation(
        topic_title=kb_topic.title,
        summary=kb_topic.summary,
        key_points=ranked[:3],
        misconceptions=[d for d in shown if d],
        resources=[(r.title, str(r.url)) for r in kb_topic.resources[:3]],
    )


def _overlap(a: str, b: str) -> float:
    left, right = Analysis.of(a).texts, Analysis.of(b).texts
    return len(left & right) / max(1, len(right))
