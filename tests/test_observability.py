"""Tracing: off by default; with an exporter, a span per graph node (sub-graph nodes nested in
their wrapper) and per model call, carrying names and ids, not contents."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tests.conftest import register_and_login
from tests.constructor.sources import FUNCTIONS_MD
from tutorgraph import observability
from tutorgraph.constructor.build import build_course
from tutorgraph.constructor.context import Upload
from tutorgraph.engines import offline_engine
from tutorgraph.llm._calllog import CallLog
from tutorgraph.settings import TracingSettings


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    assert observability.configure(TracingSettings(), exporter=exporter) == "opentelemetry"
    yield exporter
    observability.shutdown()


def test_tracing_is_off_by_default() -> None:
    assert observability.configure(TracingSettings()) == "off"
    assert not observability.enabled()
    assert "callbacks" not in observability.run_config("g", "t", tags=[], metadata={})


async def test_every_graph_node_and_model_call_gets_a_span(spans: InMemorySpanExporter) -> None:
    await build_course(
        [Upload("f1", "functions.md", FUNCTIONS_MD.encode())], model=offline_engine()
    )
    finished = spans.get_finished_spans()
    names = {span.name for span in finished}
    assert {"constructor.welcome", "constructor.ingestion", "constructor.review"} <= names
    assert {"constructor.detect_types", "constructor.generate_questions"} <= names
    by_id = {span.context.span_id: span for span in finished}
    inner = next(span for span in finished if span.name == "constructor.detect_types")
    ancestors = []
    parent = inner.parent
    while parent is not None and parent.span_id in by_id:
        ancestors.append(by_id[parent.span_id].name)
        parent = by_id[parent.span_id].parent
    assert "constructor.ingestion" in ancestors  # the sub-graph's nodes nest in its wrapper

    record = CallLog(agent="grader", schema="Verdict", model="m")
    record.add_usage(None)
    record.ok()
    call = next(s for s in spans.get_finished_spans() if s.name == "llm grader")
    assert call.attributes is not None and call.attributes["llm.outcome"] == "ok"
    assert set(call.attributes) == {
        "llm.agent",
        "llm.model",
        "llm.outcome",
        "llm.attempt",
        "llm.total_tokens",
    }


def test_langsmith_settings_switch_langsmith_on(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("LANGSMITH_TRACING", "LANGSMITH_API_KEY", "LANGSMITH_PROJECT"):
        monkeypatch.delenv(name, raising=False)
    settings = TracingSettings(langsmith_api_key="ls-key", langsmith_project="demo")  # type: ignore[arg-type]
    assert observability.configure(settings) == "langsmith"
    import os

    assert os.environ["LANGSMITH_TRACING"] == "true" and os.environ["LANGSMITH_PROJECT"] == "demo"
    monkeypatch.delenv("LANGSMITH_TRACING")
    monkeypatch.delenv("LANGSMITH_API_KEY")
    monkeypatch.delenv("LANGSMITH_PROJECT")


def test_an_assessment_started_over_the_api_is_traced_node_by_node(
    client: TestClient, spans: InMemorySpanExporter
) -> None:
    # (the client starts the app first: its start-up configures tracing from settings, off)
    headers = register_and_login(client)
    started = client.post(
        "/api/v1/assessments", json={"domain": "python", "target_level": "mid"}, headers=headers
    )
    assert started.status_code == 201, started.text
    names = {span.name for span in spans.get_finished_spans()}
    assert {"assessment.build_agenda", "assessment.generate_question"} <= names
