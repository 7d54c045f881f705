"""The knowledge-graph update after each evaluated answer (pure: returns a new graph).

- existing node: confidence = 0.7 * old + 0.3 * new; the higher Bloom level is kept; the
  evaluation's evidence is appended;
- new node: the evaluation's confidence, Bloom level and evidence, with its prerequisites from the
  target graph (the KB prerequisites that are on the agenda), and one edge per prerequisite."""

from __future__ import annotations

from collections.abc import Iterable

from tutorgraph.assessment.state import (
    EvaluationRecord,
    KnowledgeEdgeState,
    KnowledgeGraphState,
    KnowledgeNodeState,
)
from tutorgraph.knowledge import BloomLevel

OLD_WEIGHT = 0.7
NEW_WEIGHT = 0.3


def empty_graph() -> KnowledgeGraphState:
    return {"nodes": {}, "edges": []}


def merge_evaluation(
    graph: KnowledgeGraphState,
    evaluation: EvaluationRecord,
    *,
    prerequisites: Iterable[str],
) -> KnowledgeGraphState:
    topic = evaluation["topic"]
    nodes = dict(graph["nodes"])
    edges = list(graph["edges"])
    existing = nodes.get(topic)
    if existing is not None:
        nodes[topic] = {
            **existing,
            "confidence": round(
                OLD_WEIGHT * existing["confidence"] + NEW_WEIGHT * evaluation["confidence"], 4
            ),
            "bloom_level": max(
                BloomLevel(existing["bloom_level"]), BloomLevel(evaluation["bloom_level"])
            ).value,
            "evidence": [*existing["evidence"], *evaluation["evidence"]],
        }
        return {"nodes": nodes, "edges": edges}
    node: KnowledgeNodeState = {
        "topic_id": topic,
        "confidence": round(evaluation["confidence"], 4),
        "bloom_level": evaluation["bloom_level"],
        "evidence": list(evaluation["evidence"]),
        "prerequisites": list(prerequisites),
    }
    nodes[topic] = node
    present = {(edge["source"], edge["target"]) for edge in edges}
    for prerequisite in node["prerequisites"]:
        if (prerequisite, topic) not in present:
            edge: KnowledgeEdgeState = {"source": prerequisite, "target": topic}
            edges.append(edge)
    return {"nodes": nodes, "edges": edges}
