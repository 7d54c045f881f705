"""Retries with exponential backoff and full jitter, for transient failures only."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import openai

from tutorgraph.errors import ProviderError
from tutorgraph.llm._calllog import CallLog
from tutorgraph.llm._errors import (
    RETRYABLE_ERRORS,
    SDK_ERRORS,
    describe_sdk_error,
    refuses_response_format,
)
from tutorgraph.settings import LLMSettings

T = TypeVar("T")

Translate = Callable[[Exception, int], ProviderError]


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently to retry timeouts, connection errors, 429 and 5xx."""

    max_attempts: int = 3
    backoff_seconds: float = 0.5
    max_backoff_seconds: float = 30.0

    @classmethod
    def from_settings(cls, settings: LLMSettings) -> RetryPolicy:
        return cls(max_attempts=settings.max_attempts, backoff_seconds=settings.backoff_seconds)

    def should_retry(self, exc: BaseException, attempt: int) -> bool:
        if isinstance(exc, openai.APIStatusError) and refuses_response_format(exc):
            return False  # the same request would be refused again: simplify it instead
        return isinstance(exc, RETRYABLE_ERRORS) and attempt < self.max_attempts

    def delay(self, attempt: int) -> float:
        """Full jitter: uniform between zero and the exponential ceiling for this attempt."""
        ceiling = min(self.max_backoff_seconds, self.backoff_seconds * 2 ** (attempt - 1))
        return random.uniform(0.0, ceiling)

    async def wait(self, exc: BaseException, record: CallLog) -> None:
        """Log the failed attempt and sleep before the next one."""
        delay = self.delay(record.attempt)
        record.retry(describe_sdk_error(exc), delay)
        await asyncio.sleep(delay)
        record.attempt += 1


async def call_with_retry(
    call: Callable[[], Awaitable[T]],
    *,
    policy: RetryPolicy,
    record: CallLog,
    translate: Translate,
) -> T:
    """Run `call` until it succeeds, fails for good, or runs out of attempts; logs the outcome."""
    while True:
        try:
            result = await call()
        except SDK_ERRORS as exc:
            if policy.should_retry(exc, record.attempt):
                await policy.wait(exc, record)
                continue
            record.error(describe_sdk_error(exc))
            raise translate(exc, record.attempt) from exc
        record.ok()
        return result
