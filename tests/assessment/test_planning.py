"""The offline learning plan: 3-5 phases in prerequisite order, mixed resources, hours."""

from __future__ import annotations

import random

import pytest

from tutorgraph.assessment.gaps import analyze_gaps, enrich
from tutorgraph.assessment.knowledge_map import empty_graph, merge_evaluation
from tutorgraph.assessment.planning import (
    EXERCISE_TITLE_CHARS,
    exercise_title,
    offline_plan,
    plan_respects_prerequisites,
)
from tutorgraph.assessment.schemas import PlanRequest
from tutorgraph.knowledge import TargetLevel, get_domain


def _request(domain: str, level: TargetLevel, **confidences: float) -> PlanRequest:
    kb = get_domain(domain)
    graph = empty_graph()
    for topic in kb.agenda(level):
        evaluation = {
            "question_id": "q",
            "topic": topic,
            "confidence": confidences.get(topic, 0.1),
            "bloom_level": "apply",
            "evidence": [],
        }
        graph = merge_evaluation(graph, evaluation, prerequisites=[])  # type: ignore[arg-type]
    gaps = enrich(analyze_gaps(kb, level, graph), recommendations={}, readiness=0, summary="")
    return PlanRequest(domain=domain, target_level=level, overall_readiness=0, gaps=gaps["gaps"])


@pytest.mark.parametrize(("domain", "level"), [("python", "mid"), ("machine-learning", "senior")])
def test_many_gaps_make_3_to_5_phases_in_prerequisite_order(
    domain: str, level: TargetLevel
) -> None:
    kb = get_domain(domain)
    request = _request(domain, level)
    plan = offline_plan(request)
    assert 3 <= len(plan.phases) <= 5
    assert plan_respects_prerequisites(kb, plan)
    placed = [topic for phase in plan.phases for topic in phase.topics]
    assert sorted(placed) == sorted(g["topic_id"] for g in request.gaps)  # each gap once
    assert placed == kb.sort(placed)
    types = {r.type for phase in plan.phases for r in phase.resources}
    assert {"exercise", "project"} <= types and len(types) >= 4
    assert all(phase.estimated_hours > 0 and phase.rationale for phase in plan.phases)
    assert plan.total_hours == pytest.approx(sum(p.estimated_hours for p in plan.phases))


@pytest.mark.parametrize("gaps", [0, 1, 2])
def test_few_gaps_still_make_three_phases(gaps: int) -> None:
    kb = get_domain("machine-learning")
    agenda = kb.agenda("junior")
    strong = {topic: 0.95 for topic in agenda[gaps:]}
    request = _request("machine-learning", "junior", **strong)
    assert len(request.gaps) == gaps
    plan = offline_plan(request)
    assert len(plan.phases) == 3
    assert plan_respects_prerequisites(kb, plan)
    assert any(r.type == "project" for phase in plan.phases for r in phase.resources)


def test_a_plan_that_puts_a_topic_before_its_prerequisite_is_detected() -> None:
    kb = get_domain("python")
    plan = offline_plan(_request("python", "mid"))
    assert plan_respects_prerequisites(kb, plan)
    reversed_plan = plan.model_copy(update={"phases": list(reversed(plan.phases))})
    assert not plan_respects_prerequisites(kb, reversed_plan)


@pytest.mark.parametrize(
    ("domain", "level"),
    [("python", "junior"), ("python", "staff"), ("machine-learning", "mid")],
)
def test_plans_for_random_outcomes_always_respect_prerequisites(
    domain: str, level: TargetLevel
) -> None:
    kb = get_domain(domain)
    rng = random.Random(5)
    for _ in range(150):
        strong = {t: rng.choice([0.1, 0.5, 0.99]) for t in kb.agenda(level)}
        plan = offline_plan(_request(domain, level, **strong))
        assert 3 <= len(plan.phases) <= 5
        assert plan_respects_prerequisites(kb, plan), [p.topics for p in plan.phases]


@pytest.mark.parametrize(
    ("question", "title"),
    [
        (
            "Explain why this raises `UnboundLocalError: cannot access local variable 'count'` "
            "and how\nto fix it.\n\n    count = 0\n    def increment():\n        count += 1",
            "Explain why this raises `UnboundLocalError: cannot access local variable 'count'` "
            "and how to fix it.",
        ),
        ("What does `x.y()` return? Say why. " + "Then more. " * 20, "What does `x.y()` return?"),
    ],
)
def test_an_exercise_title_is_the_question_without_its_code(question: str, title: str) -> None:
    assert exercise_title(question) == title


def test_a_long_exercise_title_is_cut_at_a_word() -> None:
    question = "Estimate " + " ".join(f"word{i}" for i in range(80))
    title = exercise_title(question)
    assert len(title) <= EXERCISE_TITLE_CHARS and title.endswith("…")
    assert question.startswith(title[:-1] + " ")
