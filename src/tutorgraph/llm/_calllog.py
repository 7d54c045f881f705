"""One structured log record per model call: agent, schema, model, duration, attempt, outcome."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Literal

from openai.types import CompletionUsage

from tutorgraph import observability

log = logging.getLogger("tutorgraph.llm")

Outcome = Literal["ok", "retry", "error"]


@dataclass
class CallLog:
    """Collects what one call did and logs it; never sees the API key or message contents."""

    agent: str
    schema: str | None
    model: str
    attempt: int = 1
    prompt_tokens: int = 0
    completion_tokens: int = 0
    started: float = field(default_factory=time.perf_counter)
    started_ns: int = field(default_factory=time.time_ns)

    def add_usage(self, usage: CompletionUsage | None) -> None:
        if usage is not None:
            self.prompt_tokens += usage.prompt_tokens
            self.completion_tokens += usage.completion_tokens

    def _span(self, outcome: Outcome) -> None:
        observability.record_model_call(
            agent=self.agent,
            model=self.model,
            started_ns=self.started_ns,
            outcome=outcome,
            attempt=self.attempt,
            tokens=self.prompt_tokens + self.completion_tokens,
        )

    def ok(self) -> None:
        self._span("ok")
        log.info(
            "llm call agent=%s schema=%s model=%s ok in %d ms (attempt %d, %d+%d tokens)",
            self.agent,
            self.schema,
            self.model,
            self.duration_ms,
            self.attempt,
            self.prompt_tokens,
            self.completion_tokens,
            extra=self._extra("ok"),
        )

    def retry(self, error: str, delay: float) -> None:
        log.warning(
            "llm call agent=%s schema=%s model=%s attempt %d failed with %s; retrying in %.2f s",
            self.agent,
            self.schema,
            self.model,
            self.attempt,
            error,
            delay,
            extra=self._extra("retry"),
        )

    def error(self, error: str) -> None:
        self._span("error")
        log.warning(
            "llm call agent=%s schema=%s model=%s failed with %s after %d ms (attempt %d)",
            self.agent,
            self.schema,
            self.model,
            error,
            self.duration_ms,
            self.attempt,
            extra=self._extra("error"),
        )

    @property
    def duration_ms(self) -> int:
        return round((time.perf_counter() - self.started) * 1000)

    def _extra(self, outcome: Outcome) -> dict[str, object]:
        return {
            "agent": self.agent,
            "schema": self.schema,
            "model": self.model,
            "duration_ms": self.duration_ms,
            "attempt": self.attempt,
            "outcome": outcome,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
        }
