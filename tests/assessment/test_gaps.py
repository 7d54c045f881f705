"""Knowledge-graph update, gap analysis and enrichment math."""

from __future__ import annotations

import pytest

from tutorgraph.assessment.gaps import (
    analyze_gaps,
    enrich,
    not_assessed,
    offline_recommendation,
    overall_readiness,
    priority,
)
from tutorgraph.assessment.knowledge_map import empty_graph, merge_evaluation
from tutorgraph.assessment.state import EvaluationRecord, GapNode, KnowledgeGraphState
from tutorgraph.knowledge import get_domain
from tutorgraph.wording import percent


def _evaluation(topic: str, confidence: float, level: str, *evidence: str) -> EvaluationRecord:
    return {
        "question_id": "q",
        "topic": topic,
        "confidence": confidence,
        "bloom_level": level,
        "evidence": list(evidence),
    }


def test_new_nodes_then_weighted_merge_higher_bloom_and_appended_evidence() -> None:
    graph = merge_evaluation(
        empty_graph(), _evaluation("b", 0.8, "analyze", "e1"), prerequisites=["a"]
    )
    assert graph["nodes"]["b"] == {
        "topic_id": "b",
        "confidence": 0.8,
        "bloom_level": "analyze",
        "evidence": ["e1"],
        "prerequisites": ["a"],
    }
    assert graph["edges"] == [{"source": "a", "target": "b"}]
    merged = merge_evaluation(
        graph, _evaluation("b", 0.2, "remember", "e2", "e3"), prerequisites=["a"]
    )
    assert merged["nodes"]["b"]["confidence"] == pytest.approx(0.7 * 0.8 + 0.3 * 0.2)
    assert merged["nodes"]["b"]["bloom_level"] == "analyze"
    assert merged["nodes"]["b"]["evidence"] == ["e1", "e2", "e3"]
    assert merged["edges"] == [{"source": "a", "target": "b"}]  # no duplicate edge
    assert graph["nodes"]["b"]["confidence"] == 0.8  # the input is not mutated
    higher = merge_evaluation(merged, _evaluation("b", 0.9, "create"), prerequisites=["a"])
    assert higher["nodes"]["b"]["bloom_level"] == "create"


def _graph(**confidences: float) -> KnowledgeGraphState:
    graph = empty_graph()
    for topic, value in confidences.items():
        graph = merge_evaluation(graph, _evaluation(topic, value, "apply"), prerequisites=[])
    return graph


def test_gaps_are_assessed_topics_below_target_in_prerequisite_order() -> None:
    """Topics never reached are not gaps and not 0%: they are listed as not assessed."""
    kb = get_domain("machine-learning")
    target = kb.target_graph("junior")
    graph = _graph(**{"trees-ensembles": 0.1, "ml-fundamentals": 0.2, "linear-models": 0.9})
    gaps = analyze_gaps(kb, "junior", graph)
    assert [g["topic_id"] for g in gaps] == ["ml-fundamentals", "trees-ensembles"]
    assert all(g["assessed"] for g in gaps)
    by_id = {g["topic_id"]: g for g in gaps}
    assert by_id["ml-fundamentals"]["gap"] == pytest.approx(target["ml-fundamentals"] - 0.2)
    assert by_id["trees-ensembles"]["prerequisites"] == ["model-evaluation"]
    assert not_assessed(kb, "junior", graph) == [
        "model-evaluation",
        "regularization-generalization",
    ]


def test_readiness_is_the_target_weighted_capped_ratio_over_assessed_topics() -> None:
    target = {"a": 0.8, "b": 0.6, "c": 0.6}
    graph = _graph(a=0.4, b=0.9)  # b capped at its target, c unassessed: left out
    assert overall_readiness(target, graph) == round(100 * (0.4 + 0.6) / (0.8 + 0.6))
    assert overall_readiness(target, _graph(a=1.0, b=1.0, c=1.0)) == 100
    assert overall_readiness(target, _graph(a=0.0, b=0.0, c=0.0)) == 0
    assert overall_readiness(target, empty_graph()) == 0


@pytest.mark.parametrize(
    ("gap", "expected"),
    [(0.61, "critical"), (0.6, "high"), (0.41, "high"), (0.4, "medium"), (0.21, "medium"),
     (0.2, "low"), (0.01, "low")],
)  # fmt: skip
def test_priority_tiers(gap: float, expected: str) -> None:
    assert priority(gap) == expected


def test_enrichment_sorts_by_priority_then_gap_size() -> None:
    kb = get_domain("machine-learning")
    graph = _graph(
        **{
            "ml-fundamentals": 0.6,
            "linear-models": 0.05,
            "model-evaluation": 0.3,
            "regularization-generalization": 0.0,
            "trees-ensembles": 0.0,
        }
    )
    gaps = analyze_gaps(kb, "junior", graph)
    enriched = enrich(gaps, recommendations={"linear-models": "Do X."}, readiness=20, summary="s")
    order = [(g["topic_id"], g["priority"], g["gap"]) for g in enriched["gaps"]]
    assert order == [
        ("regularization-generalization", "critical", 0.65),  # ties keep KB order
        ("trees-ensembles", "critical", 0.65),
        ("linear-models", "high", 0.6),  # 0.6 is not > 0.6
        ("model-evaluation", "medium", 0.35),
        ("ml-fundamentals", "low", 0.1),
    ]
    assert enriched["gaps"][2]["recommendation"] == "Do X."
    assert (enriched["overall_readiness"], enriched["summary"]) == (20, "s")


@pytest.mark.parametrize(
    ("confidence", "shown"),
    [(0.695, "69%"), (0.7, "70%"), (0.29, "29%"), (0.105, "10%"), (1.0, "100%")],
)
def test_a_confidence_shows_rounded_down(confidence: float, shown: str) -> None:
    assert percent(confidence) == shown


def test_a_recommendation_quotes_key_points_without_cutting_inside_brackets() -> None:
    topic = get_domain("python").topic("python-data-model")
    gap: GapNode = {
        "topic_id": topic.id,
        "title": topic.title,
        "current_confidence": 0.1,
        "target_confidence": 0.7,
        "gap": 0.6,
        "bloom_level": "understand",
        "prerequisites": [],
        "assessed": True,
    }
    text = offline_recommendation(topic, gap)
    # the key point's aside "(id(), constant ...; in CPython ...)" is dropped, not cut at its ";"
    assert "Every object has an identity, a type that determines its operations, and a value;" in (
        text
    )
    lists = offline_recommendation(get_domain("python").topic("builtin-data-structures"), gap)
    assert "at the end are O(1), while" in lists  # the aside after a call goes too
    assert "(append amortized)" not in lists
    for domain in ("python", "machine-learning"):
        for each in get_domain(domain).topics.values():
            shown = offline_recommendation(each, gap)
            assert shown.count("(") == shown.count(")"), shown
