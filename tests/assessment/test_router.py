"""The router's decision tree, row by row as the spec draws it, plus the pivot-with-nowhere-to-go
rule. Each row names the diagram path it walks (A..E are the spec's decision nodes)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tutorgraph.assessment.router import (
    HIGH_CONFIDENCE,
    MAX_QUESTIONS_PER_TOPIC,
    MAX_TOPICS,
    MIN_EVIDENCE_FOR_CONFIDENCE,
    Route,
    RouteInputs,
    decide_route,
    max_total_questions,
    route_after_update,
)
from tutorgraph.assessment.state import AssessmentState
from tutorgraph.knowledge import BloomLevel

BASE = RouteInputs(
    topics_evaluated=2,
    total_questions=6,
    max_questions=40,
    confidence=0.5,
    bloom_level=BloomLevel.APPLY,
    questions_on_topic=1,
    evidence=3,
    node_confidence=0.5,
    topics_remaining=5,
)

ALIASES = {
    "conf": "confidence",
    "node": "node_confidence",
    "on_topic": "questions_on_topic",
    "evidence": "evidence",
    "bloom": "bloom_level",
    "evaluated": "topics_evaluated",
    "total": "total_questions",
    "left": "topics_remaining",
}
C = BloomLevel.CREATE


def row(path: str, expected: Route, **changes: object) -> tuple[str, dict[str, object], Route]:
    return path, {ALIASES[k]: v for k, v in changes.items()}, expected


ROWS = [
    # A: topics >= 10 or questions >= max -> conclude
    row("A yes: topics evaluated reach MAX_TOPICS", "conclude", evaluated=10, conf=0.95),
    row("A yes: questions reach the maximum", "conclude", total=40, conf=0.95),
    row("A yes: questions past the maximum", "conclude", total=41),
    # A no -> B: confidence > 0.7 and Bloom < create and questions on topic < 4 -> deeper
    row("A no, B yes: strong answer below create", "deeper", conf=0.9),
    row("A no, B yes: 3 on topic still leave room", "deeper", conf=0.9, on_topic=3),
    row("A no, B yes: one below create", "deeper", conf=0.71, bloom=BloomLevel.EVALUATE),
    # B no -> C: confidence > 0.4 and evidence < 2 and questions on topic < 4 -> probe
    row("B no (create), C yes: little evidence", "probe", conf=0.9, bloom=C, evidence=1),
    row("B no (0.7 is not > 0.7), C yes", "probe", conf=0.7, evidence=1),
    row("B no, C yes: medium answer, one evidence item", "probe", conf=0.55, evidence=1),
    # C no -> D: node confidence > 0.7 or questions on topic >= 4 -> pivot
    row("B no, C no (evidence), D yes: node confident", "pivot", conf=0.9, bloom=C, node=0.8),
    row("B no (4 on topic), C no, D yes: budget spent", "pivot", conf=0.9, on_topic=4),
    row("B no, C no (4 on topic), D yes", "pivot", conf=0.55, evidence=1, on_topic=4),
    row("B no, C no (weak), D yes: confident node", "pivot", conf=0.2, node=0.75),
    # D no -> E: confidence <= 0.4 -> pivot, else probe
    row("D no, E yes: weak answer", "pivot", conf=0.3, node=0.3),
    row("D no, E yes: exactly 0.4", "pivot", conf=0.4, node=0.4, evidence=1),
    row("D no, E no: medium answer with evidence", "probe", conf=0.55, node=0.6),
    row("D no, E no: strong at create, unsure node", "probe", conf=0.9, bloom=C, node=0.6),
    # A pivot with nowhere to go concludes
    row("D yes, no topic left -> conclude", "conclude", conf=0.9, on_topic=4, left=0),
    row(
        "E yes, 9 evaluated: the 10th is still pivoted to", "pivot", conf=0.1, node=0.1, evaluated=9
    ),
    row("E yes with 8 evaluated: pivot", "pivot", conf=0.1, node=0.1, evaluated=8),
]


@pytest.mark.parametrize(("path", "changes", "expected"), ROWS, ids=[row[0] for row in ROWS])
def test_decision_tree_row(path: str, changes: dict[str, object], expected: Route) -> None:
    assert decide_route(replace(BASE, **changes)) == expected  # type: ignore[arg-type]


def test_every_route_and_every_decision_node_is_covered() -> None:
    assert {row[2] for row in ROWS} == {"deeper", "probe", "pivot", "conclude"}
    for node in "ABCDE":
        assert any(row[0].startswith(node) or f", {node}" in row[0] for row in ROWS), node


def test_constants_are_the_spec_values() -> None:
    assert (MAX_TOPICS, HIGH_CONFIDENCE, MAX_QUESTIONS_PER_TOPIC, MIN_EVIDENCE_FOR_CONFIDENCE) == (
        10,
        0.7,
        4,
        2,
    )
    assert max_total_questions(7) == 28
    assert max_total_questions(13) == 40  # min(agenda, MAX_TOPICS) * 4


def _state(**changes: object) -> AssessmentState:
    state: AssessmentState = {
        "domain": "python",
        "target_level": "mid",
        "agenda": ["a", "b", "c"],
        "max_questions": 12,
        "current_topic": "a",
        "current_bloom": "apply",
        "current_question": None,
        "pending_answer": "",
        "questions": [],
        "responses": [],
        "topic_questions": {"a": 1},
        "evaluated_topics": [],
        "last_evaluation": {
            "question_id": "q1",
            "topic": "a",
            "confidence": 0.9,
            "bloom_level": "apply",
            "evidence": ["x", "y"],
        },
        "knowledge_graph": {
            "nodes": {
                "a": {
                    "topic_id": "a",
                    "confidence": 0.9,
                    "bloom_level": "apply",
                    "evidence": ["x", "y"],
                    "prerequisites": [],
                }
            },
            "edges": [],
        },
        "gap_analysis": [],
        "enriched_gap_analysis": None,
        "learning_plan": None,
    }
    state.update(changes)  # type: ignore[typeddict-item]
    return state


def test_routing_reads_the_state_after_update_graph() -> None:
    assert route_after_update(_state()) == "deeper"
    assert route_after_update(_state(current_bloom="create")) == "pivot"
    assert route_after_update(_state(current_bloom="create", agenda=["a"])) == "conclude"
    assert route_after_update(_state(topic_questions={"a": 4}, evaluated_topics=["b"])) == "pivot"
    assert (
        route_after_update(_state(topic_questions={"a": 4}, evaluated_topics=["b", "c"]))
        == "conclude"
    )
