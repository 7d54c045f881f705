from __future__ import annotations

from tutorgraph.knowledge import (
    STARTING_BLOOM,
    BloomLevel,
    KnowledgeNode,
    LearnerKnowledgeGraph,
)


def test_bloom_levels_are_ordered_and_advance_up_to_create() -> None:
    assert list(BloomLevel) == [
        BloomLevel.REMEMBER,
        BloomLevel.UNDERSTAND,
        BloomLevel.APPLY,
        BloomLevel.ANALYZE,
        BloomLevel.EVALUATE,
        BloomLevel.CREATE,
    ]
    assert BloomLevel.APPLY < BloomLevel.ANALYZE and BloomLevel.CREATE >= BloomLevel.EVALUATE
    assert BloomLevel.APPLY.next() is BloomLevel.ANALYZE
    assert BloomLevel.CREATE.next() is BloomLevel.CREATE
    assert max(BloomLevel.APPLY, BloomLevel.UNDERSTAND) is BloomLevel.APPLY


def test_target_level_to_starting_bloom() -> None:
    assert STARTING_BLOOM == {
        "junior": BloomLevel.UNDERSTAND,
        "mid": BloomLevel.APPLY,
        "senior": BloomLevel.ANALYZE,
        "staff": BloomLevel.EVALUATE,
    }


def test_learner_graph_json_round_trip_with_edges_added_once() -> None:
    graph = LearnerKnowledgeGraph()
    node = KnowledgeNode(
        topic_id="b",
        confidence=0.4,
        bloom_level=BloomLevel.APPLY,
        evidence=["e1"],
        prerequisites=["a"],
    )
    graph.upsert(node)
    graph.upsert(node.model_copy(update={"confidence": 0.5}))
    assert [(e.source, e.target) for e in graph.edges] == [("a", "b")]
    restored = LearnerKnowledgeGraph.from_json(graph.to_json())
    assert restored == graph
    assert restored.confidence("b") == 0.5 and restored.confidence("zzz") == 0.0
