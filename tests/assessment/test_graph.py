"""The real assessment graph on a real SQLite checkpointer: after each interrupt, the checkpointed
state and `next` are what the spec's diagram says."""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.types import Command, StateSnapshot

from tests.assessment.conftest import ScriptedEvaluations
from tutorgraph.assessment.context import AssessmentContext
from tutorgraph.assessment.graph import AssessmentGraph, compile_graph
from tutorgraph.knowledge import get_domain
from tutorgraph.llm import OfflineEngine

CONFIG: RunnableConfig = {"configurable": {"thread_id": "graph-test"}}


async def _answer(
    graph: AssessmentGraph, context: AssessmentContext, text: str = "an answer"
) -> StateSnapshot:
    await graph.ainvoke(Command(resume=text), CONFIG, context=context)
    return await graph.aget_state(CONFIG)


def _question(snapshot: StateSnapshot) -> dict[str, Any]:
    [pending] = snapshot.interrupts
    payload: dict[str, Any] = pending.value
    return payload


async def test_the_graph_walks_deeper_probe_pivot_and_concludes(
    checkpointer: BaseCheckpointSaver[str], engine: OfflineEngine, scripted: ScriptedEvaluations
) -> None:
    graph = compile_graph(checkpointer)
    context = AssessmentContext.for_model(engine)
    kb = get_domain("python")
    agenda = kb.agenda("mid")

    await graph.ainvoke({"domain": "python", "target_level": "mid"}, CONFIG, context=context)
    snapshot = await graph.aget_state(CONFIG)
    assert snapshot.next == ("await_response",)
    payload = _question(snapshot)
    assert set(payload) == {
        "type",
        "question",
        "topics_evaluated",
        "total_questions",
        "max_questions",
    }
    assert set(payload["question"]) == {"id", "topic", "bloomLevel", "text", "questionType"}
    assert payload["type"] == "assessment"
    assert payload["question"]["topic"] == "python-data-model"
    assert payload["question"]["bloomLevel"] == "apply"  # mid -> apply
    assert (payload["topics_evaluated"], payload["total_questions"]) == (0, 1)
    assert payload["max_questions"] == 40 == min(len(agenda), 10) * 4
    assert snapshot.values["agenda"] == agenda

    # A medium first answer: not enough to trust, not weak enough to leave -> probe.
    scripted.enqueue(0.5)
    snapshot = await _answer(graph, context)
    assert snapshot.next == ("await_probe_response",)
    probe = _question(snapshot)
    assert probe["question"]["topic"] == "python-data-model"
    assert probe["question"]["id"] != payload["question"]["id"]
    node = snapshot.values["knowledge_graph"]["nodes"]["python-data-model"]
    assert (node["confidence"], node["bloom_level"]) == (0.5, "understand")  # one below apply

    # A weak probe answer -> weighted merge, then pivot to the next topic in prerequisite order.
    scripted.enqueue(0.3)
    snapshot = await _answer(graph, context)
    node = snapshot.values["knowledge_graph"]["nodes"]["python-data-model"]
    assert node["confidence"] == round(0.7 * 0.5 + 0.3 * 0.3, 4)
    assert node["bloom_level"] == "understand"  # the higher level is kept
    assert len(node["evidence"]) == 4  # appended
    assert snapshot.next == ("await_response",)
    assert snapshot.values["evaluated_topics"] == ["python-data-model"]
    second = _question(snapshot)
    assert second["question"]["topic"] == agenda[1] == "builtin-data-structures"
    assert second["question"]["bloomLevel"] == "apply"
    assert (second["topics_evaluated"], second["total_questions"]) == (1, 3)

    # Strong answers climb the Bloom levels until the topic's 4 questions are used.
    levels = []
    for _ in range(3):
        scripted.enqueue(0.9)
        snapshot = await _answer(graph, context)
        assert snapshot.next == ("await_response",)
        levels.append(_question(snapshot)["question"]["bloomLevel"])
    assert levels == ["analyze", "evaluate", "create"]
    assert snapshot.values["current_bloom"] == "create"
    edges = snapshot.values["knowledge_graph"]["edges"]
    assert {"source": "python-data-model", "target": "builtin-data-structures"} in edges
    scripted.enqueue(0.9)
    snapshot = await _answer(graph, context)
    assert _question(snapshot)["question"]["topic"] == agenda[2]
    asked = snapshot.values["questions"]
    on_second = [q["question_type"] for q in asked if q["topic"] == "builtin-data-structures"]
    assert len(set(on_second)) >= 3  # types rotate

    # Weak answers pivot topic by topic; once 10 are evaluated (MAX_TOPICS), the 11th topic's
    # answer ends the assessment (the spec's row A), so the 11th agenda topic is assessed too.
    for expected in agenda[3:11]:
        scripted.enqueue(0.1)
        snapshot = await _answer(graph, context)
        assert snapshot.next == ("await_response",)
        assert _question(snapshot)["question"]["topic"] == expected
    scripted.enqueue(0.1)
    snapshot = await _answer(graph, context)
    assert snapshot.next == ()
    assert snapshot.interrupts == ()
    values = snapshot.values
    assert values["evaluated_topics"] == agenda[:11] == agenda  # every agenda topic reached
    assert len({q["id"] for q in values["questions"]}) == len(values["questions"]) == 2 + 4 + 9
    enriched = values["enriched_gap_analysis"]
    gaps = {gap["topic_id"]: gap for gap in enriched["gaps"]}
    assert "builtin-data-structures" not in gaps  # 0.9 everywhere meets 0.75
    assert gaps["packaging-environments"]["assessed"] is True  # the 11th topic, asked once
    assert gaps["python-data-model"]["priority"] == "medium"  # 0.75 - 0.44 = 0.31
    priorities = [gap["priority"] for gap in enriched["gaps"]]
    order = ["critical", "high", "medium", "low"]
    assert priorities == sorted(priorities, key=order.index)
    assert 3 <= len(values["learning_plan"]["phases"]) <= 5
    assert 0 <= enriched["overall_readiness"] <= 100


async def test_an_assessment_resumes_on_a_freshly_compiled_graph(
    checkpointer: BaseCheckpointSaver[str], engine: OfflineEngine, scripted: ScriptedEvaluations
) -> None:
    context = AssessmentContext.for_model(engine)
    first = compile_graph(checkpointer)
    await first.ainvoke(
        {"domain": "machine-learning", "target_level": "junior"}, CONFIG, context=context
    )
    asked = _question(await first.aget_state(CONFIG))

    second = compile_graph(checkpointer)
    snapshot = await second.aget_state(CONFIG)
    assert _question(snapshot) == asked
    scripted.enqueue(0.95)
    snapshot = await _answer(second, context)
    assert _question(snapshot)["question"]["bloomLevel"] == "apply"  # junior starts at understand
    assert scripted.seen[0].answer == "an answer"
