"""Tracing, off by default. With LangSmith settings (`tracing.langsmith_api_key`), LangGraph
runs go to LangSmith (its own client reads the LANGSMITH_* variables set here). Otherwise, with
`tracing.exporter` console or otlp, OpenTelemetry spans: one per graph node (a LangChain
callback on the runs this module configures) and one per model call (from the call log).

Spans carry names and ids (graph, node, agent, model, session), never message contents."""

from __future__ import annotations

import os
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.runnables import RunnableConfig
from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    ConsoleSpanExporter,
    SimpleSpanProcessor,
    SpanExporter,
)

from tutorgraph.errors import ConfigurationError
from tutorgraph.settings import TracingSettings

_provider: TracerProvider | None = None


def configure(settings: TracingSettings, *, exporter: SpanExporter | None = None) -> str:
    """Turn tracing on as configured; returns "langsmith", "opentelemetry" or "off".
    `exporter` replaces the configured one (tests pass an in-memory exporter)."""
    global _provider
    if settings.langsmith_api_key is not None:
        os.environ["LANGSMITH_TRACING"] = "true"
        os.environ["LANGSMITH_API_KEY"] = settings.langsmith_api_key.get_secret_value()
        os.environ["LANGSMITH_PROJECT"] = settings.langsmith_project
        if settings.langsmith_endpoint:
            os.environ["LANGSMITH_ENDPOINT"] = settings.langsmith_endpoint
        return "langsmith"
    if exporter is None and settings.exporter == "none":
        _provider = None
        return "off"
    provider = TracerProvider(resource=Resource.create({"service.name": settings.service_name}))
    if exporter is not None:
        provider.add_span_processor(SimpleSpanProcessor(exporter))
    elif settings.exporter == "console":
        provider.add_span_processor(BatchSpanProcessor(ConsoleSpanExporter()))
    else:
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import (  # type: ignore[import-not-found,unused-ignore]
                OTLPSpanExporter,
            )
        except ImportError as exc:
            raise ConfigurationError(
                "tracing.exporter: otlp needs the tracing extra: pip install 'tutorgraph[tracing]'"
            ) from exc
        provider.add_span_processor(
            BatchSpanProcessor(OTLPSpanExporter(endpoint=settings.otlp_endpoint))
        )
    _provider = provider
    return "opentelemetry"


def shutdown() -> None:
    """Flush and stop the span processors (at process exit)."""
    global _provider
    if _provider is not None:
        _provider.shutdown()
    _provider = None


def enabled() -> bool:
    return _provider is not None


def tracer() -> trace.Tracer:
    """The tracer spans come from (a no-op one while tracing is off)."""
    return _provider.get_tracer("tutorgraph") if _provider else trace.get_tracer("tutorgraph")


def record_model_call(
    *, agent: str, model: str, started_ns: int, outcome: str, attempt: int, tokens: int
) -> None:
    """One span for a finished model call, from its start to now."""
    if _provider is None:
        return
    span = tracer().start_span(
        f"llm {agent}",
        start_time=started_ns,
        attributes={
            "llm.agent": agent,
            "llm.model": model,
            "llm.outcome": outcome,
            "llm.attempt": attempt,
            "llm.total_tokens": tokens,
        },
    )
    if outcome == "error":
        span.set_status(trace.Status(trace.StatusCode.ERROR))
    span.end()


class NodeSpans(BaseCallbackHandler):
    """A span for every LangGraph node run (LangGraph marks a node's run with `langgraph_node`
    metadata); its parent is the node run that started it, so sub-graph nodes nest."""

    def __init__(self, graph: str) -> None:
        self.graph = graph
        self._spans: dict[UUID, trace.Span] = {}

    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        node = (metadata or {}).get("langgraph_node")
        name = kwargs.get("name")
        if not node or name != node:
            return
        parent = self._nearest(parent_run_id)
        context = trace.set_span_in_context(parent) if parent is not None else None
        self._spans[run_id] = tracer().start_span(
            f"{self.graph}.{node}",
            context=context,
            attributes={
                "graph.name": self.graph,
                "graph.node": str(node),
                "graph.thread": str((metadata or {}).get("thread_id", "")),
            },
        )

    def _nearest(self, run_id: UUID | None) -> trace.Span | None:
        return self._spans.get(run_id) if run_id is not None else None

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        span = self._spans.pop(run_id, None)
        if span is not None:
            span.end()

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        span = self._spans.pop(run_id, None)
        if span is not None:
            from langgraph.errors import GraphInterrupt

            if not isinstance(error, GraphInterrupt):  # an interrupt is a pause, not a failure
                span.set_status(trace.Status(trace.StatusCode.ERROR, type(error).__name__))
            span.end()


def run_config(
    graph: str, thread_id: str, *, tags: list[str], metadata: dict[str, Any]
) -> RunnableConfig:
    """The config a graph run is invoked with: tags and metadata (LangSmith groups runs by
    them) and, when OpenTelemetry tracing is on, the node-span callback."""
    config: RunnableConfig = {
        "configurable": {"thread_id": thread_id},
        "tags": [graph, *tags],
        "metadata": {"thread_id": thread_id, **metadata},
    }
    if _provider is not None:
        config["callbacks"] = [NodeSpans(graph)]
    return config
