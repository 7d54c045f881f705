"""The one place where OpenAI SDK exceptions become tutorgraph errors."""

from __future__ import annotations

import json

import openai

from tutorgraph.errors import (
    ProviderConfigError,
    ProviderError,
    ProviderUnavailable,
)
from tutorgraph.settings import LLMSettings

RETRYABLE_ERRORS: tuple[type[Exception], ...] = (
    openai.APITimeoutError,
    openai.APIConnectionError,
    openai.RateLimitError,
    openai.InternalServerError,
)
# A body that is not JSON surfaces from the SDK as a bare JSONDecodeError.
SDK_ERRORS: tuple[type[Exception], ...] = (openai.OpenAIError, json.JSONDecodeError)

API_KEY_MESSAGE = "the model server rejected the API key: set TUTORGRAPH_LLM_API_KEY (llm.api_key)"

_RESPONSE_FORMAT_WORDS = ("response_format", "json_schema", "unsupported", "not supported")


class ResponseFormatUnsupported(ProviderConfigError):
    """The server refused `response_format`; the caller may retry with a simpler one."""


def translate_error(exc: Exception, *, settings: LLMSettings, attempts: int) -> ProviderError:
    """Map an SDK exception to the tutorgraph error a caller can act on."""
    where = f"the model server at {settings.base_url}"
    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
        return ProviderConfigError(API_KEY_MESSAGE)
    if isinstance(exc, openai.NotFoundError):
        return ProviderConfigError(
            f"{where} has no model {settings.model!r}: set TUTORGRAPH_LLM_MODEL (llm.model), "
            "or check TUTORGRAPH_LLM_BASE_URL (llm.base_url)"
        )
    if isinstance(exc, openai.APIStatusError) and refuses_response_format(exc):
        return ResponseFormatUnsupported(f"{where} refused response_format: {server_message(exc)}")
    if isinstance(exc, RETRYABLE_ERRORS):
        return ProviderUnavailable(
            f"{where} is unavailable after {attempts} attempt(s): {describe_sdk_error(exc)}"
        )
    if isinstance(exc, openai.APIStatusError):
        detail = server_message(exc)
        return ProviderConfigError(
            f"{where} refused the request (HTTP {exc.status_code}): {detail}"
        )
    if isinstance(exc, json.JSONDecodeError | openai.APIResponseValidationError):
        return ProviderUnavailable(f"{where} sent a malformed response (not the expected JSON)")
    return ProviderError(f"{where} failed: {describe_sdk_error(exc)}")


def describe_sdk_error(exc: BaseException) -> str:
    """A short, content-free label for logs: the error type and the HTTP status if any."""
    if isinstance(exc, openai.APIStatusError):
        return f"{type(exc).__name__} (HTTP {exc.status_code})"
    return type(exc).__name__


def server_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return str(body["message"])
    return exc.message


def refuses_response_format(exc: openai.APIStatusError) -> bool:
    """A 400/422, or a 500 from servers that answer every validation error with 500 (llama.cpp's
    Python server), whose message is about `response_format`: not worth retrying as is."""
    return exc.status_code in (400, 422, 500) and _mentions_response_format(server_message(exc))


def _mentions_response_format(detail: str) -> bool:
    lowered = detail.lower()
    return any(word in lowered for word in _RESPONSE_FORMAT_WORDS)
