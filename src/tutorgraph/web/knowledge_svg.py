"""Layout of the learner's knowledge graph as an SVG picture, computed on the server.

Topics are placed in columns by prerequisite depth (longest chain of prerequisites before them),
so every edge points right; each box is filled on a red-to-green scale by confidence, and topics
the assessment never reached are grey and dashed."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass

from tutorgraph.assessment.service import AssessmentReport
from tutorgraph.knowledge import KnowledgeBase
from tutorgraph.wording import percent

BOX_W, BOX_H = 208, 62
GAP_X, GAP_Y = 64, 22
MARGIN = 16
LINE_CHARS = 25


@dataclass(frozen=True)
class SvgNode:
    topic_id: str
    lines: list[str]
    caption: str
    x: int
    y: int
    fill: str
    stroke: str
    assessed: bool
    meets_target: bool


@dataclass(frozen=True)
class SvgEdge:
    source: str
    target: str
    path: str


@dataclass(frozen=True)
class SvgGraph:
    width: int
    height: int
    box_w: int
    box_h: int
    nodes: list[SvgNode]
    edges: list[SvgEdge]


def confidence_colours(confidence: float) -> tuple[str, str]:
    """Fill and stroke for a confidence: hue 0 (red) at 0 to 130 (green) at 1."""
    hue = round(130 * max(0.0, min(1.0, confidence)))
    return f"hsl({hue}, 70%, 86%)", f"hsl({hue}, 60%, 32%)"


def layout(kb: KnowledgeBase, report: AssessmentReport) -> SvgGraph:
    """The assessment report's picture: its target graph, coloured by assessed confidence."""
    return _layout(
        kb, kb.sort(report.target_graph), lambda topic_id, x, y: _node(report, topic_id, x, y)
    )


def mastery_layout(
    kb: KnowledgeBase, mastery: dict[str, float], reached: dict[str, str]
) -> SvgGraph:
    """The Progress page's picture: every topic of a domain, coloured by the learner's mastery,
    captioned with the Bloom level reached; topics never practised are grey and dashed."""

    def node(topic_id: str, x: int, y: int) -> SvgNode:
        lines = _lines(kb.topic(topic_id).title, topic_id)
        if topic_id not in mastery:
            return SvgNode(
                topic_id, lines, "not practised yet", x, y,
                "hsl(220, 10%, 90%)", "hsl(220, 8%, 55%)", False, False,
            )  # fmt: skip
        fill, stroke = confidence_colours(mastery[topic_id])
        level = reached.get(topic_id)
        caption = f"mastery {percent(mastery[topic_id])}" + (f" · {level}" if level else "")
        return SvgNode(topic_id, lines, caption, x, y, fill, stroke, True, mastery[topic_id] >= 0.8)

    return _layout(kb, list(kb.order), node)


def _layout(
    kb: KnowledgeBase, topics: list[str], make_node: Callable[[str, int, int], SvgNode]
) -> SvgGraph:
    """Topics in columns by prerequisite depth (`topics` in prerequisite order)."""
    shown = set(topics)
    depth: dict[str, int] = {}
    for topic_id in topics:  # prerequisite order: every prerequisite is placed first
        prerequisites = [p for p in kb.topic(topic_id).prerequisites if p in shown]
        depth[topic_id] = 1 + max((depth[p] for p in prerequisites), default=-1)
    columns: dict[int, list[str]] = {}
    for topic_id in topics:
        columns.setdefault(depth[topic_id], []).append(topic_id)
    tallest = max((len(c) for c in columns.values()), default=1)
    height = 2 * MARGIN + tallest * BOX_H + (tallest - 1) * GAP_Y
    width = 2 * MARGIN + len(columns) * BOX_W + max(len(columns) - 1, 0) * GAP_X
    position: dict[str, tuple[int, int]] = {}
    nodes: list[SvgNode] = []
    for column, members in sorted(columns.items()):
        offset = (height - (len(members) * BOX_H + (len(members) - 1) * GAP_Y)) // 2
        for row, topic_id in enumerate(members):
            x = MARGIN + column * (BOX_W + GAP_X)
            y = offset + row * (BOX_H + GAP_Y)
            position[topic_id] = (x, y)
            nodes.append(make_node(topic_id, x, y))
    edges = []
    for topic_id in topics:
        for prerequisite in kb.topic(topic_id).prerequisites:
            if prerequisite in position:
                edges.append(_edge(prerequisite, topic_id, position))
    return SvgGraph(width, height, BOX_W, BOX_H, nodes, edges)


def _lines(title: str, fallback: str) -> list[str]:
    wrapped = textwrap.wrap(title, LINE_CHARS)
    lines = wrapped[:2] or [fallback]
    if len(wrapped) > 2:
        lines[-1] = lines[-1][: LINE_CHARS - 1].rstrip() + "…"
    return lines


def _node(report: AssessmentReport, topic_id: str, x: int, y: int) -> SvgNode:
    lines = _lines(report.topic_titles.get(topic_id, topic_id), topic_id)
    node = report.knowledge_graph["nodes"].get(topic_id)
    target = report.target_graph[topic_id]
    if node is None:
        return SvgNode(
            topic_id, lines, f"not assessed · target {percent(target)}", x, y,
            "hsl(220, 10%, 90%)", "hsl(220, 8%, 55%)", False, False,
        )  # fmt: skip
    fill, stroke = confidence_colours(node["confidence"])
    caption = f"{percent(node['confidence'])} of {percent(target)} · {node['bloom_level']}"
    return SvgNode(topic_id, lines, caption, x, y, fill, stroke, True, node["confidence"] >= target)


def _edge(source: str, target: str, position: dict[str, tuple[int, int]]) -> SvgEdge:
    sx, sy = position[source]
    tx, ty = position[target]
    x1, y1 = sx + BOX_W, sy + BOX_H // 2
    x2, y2 = tx - 6, ty + BOX_H // 2
    bend = max((x2 - x1) // 2, 20)
    path = f"M{x1},{y1} C{x1 + bend},{y1} {x2 - bend},{y2} {x2},{y2}"
    return SvgEdge(source, target, path)
