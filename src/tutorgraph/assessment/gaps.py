"""Gap analysis and enrichment, in pure Python.

- A gap is an assessed target-graph topic whose current confidence is below its target
  confidence. Gaps come out in prerequisite (topological) order. A topic the assessment never
  reached (it was finished early, or stopped at its topic limit) has no evidence: it is listed
  as not assessed (`not_assessed`), never as a gap and never as 0% (decision record 0050; it
  counted with confidence 0 before).
- Overall readiness (0-100) is the target-weighted average of current/target confidence over
  the assessed topics, each ratio capped at 1: 100 * sum(min(current, target)) / sum(target).
- Priority by gap size (target - current): critical > 0.6, high > 0.4, medium > 0.2, else low.
- Enriched gaps are sorted by priority (critical first), then by gap size, largest first."""

from __future__ import annotations

from collections.abc import Mapping

from tutorgraph.assessment.state import (
    EnrichedGap,
    EnrichedGapAnalysis,
    GapNode,
    KnowledgeGraphState,
    Priority,
)
from tutorgraph.knowledge import KnowledgeBase, Resource, TargetLevel, Topic
from tutorgraph.wording import counted

PRIORITY_THRESHOLDS: tuple[tuple[Priority, float], ...] = (
    ("critical", 0.6),
    ("high", 0.4),
    ("medium", 0.2),
)
PRIORITY_ORDER: tuple[Priority, ...] = ("critical", "high", "medium", "low")


def analyze_gaps(
    kb: KnowledgeBase, target_level: TargetLevel, graph: KnowledgeGraphState
) -> list[GapNode]:
    target = kb.target_graph(target_level)
    gaps: list[GapNode] = []
    for topic_id in kb.sort(target):
        node = graph["nodes"].get(topic_id)
        if node is None:  # no evidence: not assessed, not a gap
            continue
        current = node["confidence"]
        if current >= target[topic_id]:
            continue
        gaps.append(
            {
                "topic_id": topic_id,
                "title": kb.topic(topic_id).title,
                "current_confidence": round(current, 4),
                "target_confidence": target[topic_id],
                "gap": round(target[topic_id] - current, 4),
                "bloom_level": node["bloom_level"],
                "prerequisites": [p for p in kb.topic(topic_id).prerequisites if p in target],
                "assessed": True,
            }
        )
    return gaps


def not_assessed(
    kb: KnowledgeBase, target_level: TargetLevel, graph: KnowledgeGraphState
) -> list[str]:
    """The level's topics the assessment has no evidence on, in prerequisite order."""
    return [t for t in kb.sort(kb.target_graph(target_level)) if t not in graph["nodes"]]


def overall_readiness(target: Mapping[str, float], graph: KnowledgeGraphState) -> int:
    """Over the assessed topics only (module docstring); 0 when none was assessed."""
    assessed = {t: wanted for t, wanted in target.items() if t in graph["nodes"]}
    total = sum(assessed.values())
    if not assessed:
        return 0
    if total <= 0:
        return 100
    reached = sum(
        min(graph["nodes"][topic_id]["confidence"], wanted) for topic_id, wanted in assessed.items()
    )
    return round(100 * reached / total)


def priority(gap: float) -> Priority:
    for name, threshold in PRIORITY_THRESHOLDS:
        if gap > threshold:
            return name
    return "low"


def enrich(
    gaps: list[GapNode],
    *,
    recommendations: Mapping[str, str],
    readiness: int,
    summary: str,
) -> EnrichedGapAnalysis:
    enriched: list[EnrichedGap] = [
        {
            **gap,
            "priority": priority(gap["gap"]),
            "recommendation": recommendations.get(gap["topic_id"], ""),
        }
        for gap in gaps
    ]
    enriched.sort(key=lambda g: (PRIORITY_ORDER.index(g["priority"]), -g["gap"]))
    return {"overall_readiness": readiness, "summary": summary, "gaps": enriched}


def offline_recommendation(topic: Topic, gap: GapNode) -> str:
    """A recommendation built from the topic's key points and its knowledge-base resources."""
    points = "; ".join(_short(point) for point in topic.key_points[:2])
    if gap["assessed"]:
        # No percentage here: the report's number for a topic is the learner's mastery (one
        # number everywhere, issue 35); the assessment's own confidence is not shown beside it.
        opening = f"Your answers on {topic.title} showed less than the level needs."
    else:
        opening = f"{topic.title} was not reached in this assessment; study it to the target level."
    parts = [opening, f"Start from the essentials: {points}."]
    resources = mixed_resources(list(topic.resources))[:2]
    if resources:
        listed = " and ".join(f"{r.title} ({r.type})" for r in resources)
        parts.append(f"Work through {listed}.")
    parts.append("You have closed the gap when you can explain and apply these points unaided.")
    return " ".join(parts)


def _short(text: str, limit: int = 110) -> str:
    """A key point without its asides in brackets, cut at its first clause, at most `limit`
    characters, on a word boundary, never inside a bracket."""
    text = _without_asides(" ".join(text.split())).rstrip(".")
    for stop in ("; ", ": "):
        head = text.split(stop, 1)[0]
        if len(head) >= 40:
            text = head
            break
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    opened = _unclosed(cut)
    if opened is not None:
        head = cut[:opened].rsplit(" ", 1)[0]  # before the word the bracket belongs to
        cut = head if len(head) >= 40 else cut
    return cut.rstrip(" ,;:") + "…"


def _without_asides(text: str) -> str:
    """The text without its bracketed asides: "an identity (id(), ...; ...), a type" becomes
    "an identity, a type". Brackets that are notation ("E[(y - f(x))^2]", "TP / (TP + FP)")
    stay: an aside follows a word (or a call) and a space."""
    out: list[str] = []
    depth = 0
    for i, ch in enumerate(text):
        if (
            depth == 0
            and ch == "("
            and i >= 2
            and text[i - 1] == " "
            and _ends_a_word(text[: i - 1])
        ):
            depth = 1
            if out and out[-1] == " ":
                out.pop()
            continue
        if depth:
            depth += {"(": 1, ")": -1}.get(ch, 0)
            continue
        out.append(ch)
    return "".join(out) if depth == 0 else text


def _ends_a_word(text: str) -> bool:
    """Whether `text` ends with a word or a call ("O(1)"), not an operator ("TP /")."""
    return bool(text) and (text[-1].isalnum() or text[-1] in ")'\"`")


def _unclosed(text: str) -> int | None:
    """Where the first bracket left open in `text` starts, if one is."""
    opened: list[int] = []
    for i, ch in enumerate(text):
        if ch in "([":
            opened.append(i)
        elif ch in ")]" and opened:
            opened.pop()
    return opened[0] if opened else None


def offline_summary(gaps: list[GapNode], readiness: int, *, target_level: TargetLevel) -> str:
    if not gaps:
        return (
            f"Readiness {readiness}/100: every assessed topic meets the {target_level} target. "
            "Keep the knowledge fresh with projects and the next level's topics."
        )
    biggest = max(gaps, key=lambda g: g["gap"])
    return (
        f"Readiness {readiness}/100 for the {target_level} level, with "
        f"{counted(len(gaps), 'gap')}. "
        f"The largest is {biggest['title']}; work through the gaps in the plan's order."
    )


def mixed_resources(resources: list[Resource]) -> list[Resource]:
    """Resources reordered round-robin over their types, so the first few differ in kind."""
    by_type: dict[str, list[Resource]] = {}
    for resource in resources:
        by_type.setdefault(resource.type, []).append(resource)
    ordered: list[Resource] = []
    while any(by_type.values()):
        for queue in by_type.values():
            if queue:
                ordered.append(queue.pop(0))
    return ordered
