"""Another way into a question the learner missed: what this answer got wrong, explained from
the knowledge base (never a pitfall the answer did not show)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tutorgraph.grading.feedback import misconception_warning
from tutorgraph.knowledge import get_domain
from tutorgraph.knowledge.schema import Topic
from tutorgraph.text.meaning import Analysis

# A topic key point explains a missed point or a mix-up when at least this share of the missed
# text's content words is in it; below, the missed point is shown on its own, unexplained,
# rather than beside a key point about something else.
EXPLAINS_FROM = 0.3
RESOURCES_SHOWN = 2


@dataclass(frozen=True)
class Fix:
    """One thing the answer got wrong and the knowledge base's idea that sets it right."""

    wrong: str  # what the answer missed or mixed up, said to the learner
    idea: str  # the topic's key point that explains it ("" when none does)


@dataclass(frozen=True)
class Explanation:
    """Another way into a question the learner missed, from the knowledge base."""

    topic_title: str
    summary: str
    fixes: list[Fix]
    picture: str  # an analogy of the topic that touches what was missed ("" when none does)
    resources: list[tuple[str, str]]  # (title, url)

    @property
    def key_points(self) -> list[str]:
        return [fix.idea for fix in self.fixes if fix.idea]


def another_explanation(*, domain: str, topic: str, result: dict[str, Any]) -> Explanation:
    """For each misconception the answer showed and each key point it missed, in that order:
    what went wrong and the topic's key point that explains it; then an analogy and reading
    that touch the same ideas. Deterministic and grounded in the knowledge base."""
    kb_topic = get_domain(domain).topic(topic)
    fixes: list[Fix] = []
    for shown in result.get("misconceptions") or []:
        known = kb_topic.misconception(str(shown.get("id", "")))
        description = known.description if known else str(shown.get("description", ""))
        if description:
            fixes.append(Fix(misconception_warning(description), _explains(kb_topic, description)))
    for point in result.get("missing_key_points") or []:
        fixes.append(Fix(f"A full answer says: {point}", _explains(kb_topic, str(point))))
    missed = " ".join(f.wrong for f in fixes)
    return Explanation(
        topic_title=kb_topic.title,
        summary=kb_topic.summary,
        fixes=_unique(fixes),
        picture=_picture(kb_topic, missed),
        resources=_reading(kb_topic, missed),
    )


def _explains(topic: Topic, missed: str) -> str:
    best = max(topic.key_points, key=lambda point: _overlap(point, missed))
    return best if _overlap(best, missed) >= EXPLAINS_FROM else ""


def _unique(fixes: list[Fix]) -> list[Fix]:
    """One key point explains one thing: a second fix naming the same key point keeps its
    wrong part and drops the repeated idea."""
    seen: set[str] = set()
    kept: list[Fix] = []
    for fix in fixes:
        kept.append(fix if fix.idea not in seen else Fix(fix.wrong, ""))
        seen.add(fix.idea)
    return kept


def _picture(topic: Topic, missed: str) -> str:
    if not missed:
        return ""
    scored = [(_overlap(" ".join([a.idea, *a.keywords]), missed), a) for a in topic.analogies]
    best = max(scored, key=lambda pair: pair[0], default=None)
    return best[1].picture if best is not None and best[0] > 0 else ""


def _reading(topic: Topic, missed: str) -> list[tuple[str, str]]:
    """The topic's reading on what was missed first (all of it when nothing was missed)."""
    ranked = sorted(topic.resources, key=lambda r: -_overlap(f"{r.title} {r.why}", missed))
    return [(r.title, str(r.url)) for r in ranked[:RESOURCES_SHOWN]]


def _overlap(text: str, missed: str) -> float:
    """The share of the content words of the shorter of the two that the other has (a long
    misconception and a short key point about the same thing overlap as much as two short
    ones)."""
    left, right = Analysis.of(text).texts, Analysis.of(missed).texts
    return len(left & right) / max(1, min(len(left), len(right)))
