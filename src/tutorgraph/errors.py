"""The small exception hierarchy of tutorgraph, converted to HTTP and CLI exit codes at the edges.

TutorgraphError
├── ConfigurationError        a setting is missing or wrong: fix the configuration (exit 2)
├── InputError                the caller sent something invalid (HTTP 422, exit 2)
├── AuthenticationError       who you are is unknown or wrong (HTTP 401)
├── PermissionDeniedError     you are known but may not do this (HTTP 403)
├── NotFoundError             no such thing, or not yours to see (HTTP 404)
├── ConflictError             it already exists (HTTP 409)
├── RateLimitedError          slow down (HTTP 429)
├── UnavailableError          this server lacks what the feature needs (HTTP 503)
└── ProviderError             a model or search server failed at run time (HTTP 502)
    ├── ProviderConfigError   the server refused our credentials or request: names the setting
    ├── ProviderUnavailable   timeouts, rate limits, 5xx that outlived their retries
    ├── StructuredOutputError the model's reply did not validate against the schema
    └── OfflineUnsupported    the offline engine has no implementation for this agent
"""

from __future__ import annotations


class TutorgraphError(Exception):
    """Base of every error tutorgraph raises on purpose."""

    status_code = 500
    exit_code = 1
    title = "Internal error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ConfigurationError(TutorgraphError):
    """A setting is missing or invalid; the message names the setting to fix."""

    status_code = 500
    exit_code = 2
    title = "Configuration error"


class InputError(TutorgraphError):
    """The caller's input is invalid."""

    status_code = 422
    exit_code = 2
    title = "Invalid input"


class TooLargeError(InputError):
    """An upload is over its size limit."""

    status_code = 413
    title = "Too large"


class AuthenticationError(TutorgraphError):
    """Credentials are missing or wrong."""

    status_code = 401
    exit_code = 3
    title = "Not authenticated"


class PermissionDeniedError(TutorgraphError):
    """The user is known but lacks the role for this action."""

    status_code = 403
    exit_code = 3
    title = "Forbidden"


class NotFoundError(TutorgraphError):
    """The resource does not exist or is not visible to the caller."""

    status_code = 404
    exit_code = 4
    title = "Not found"


class ConflictError(TutorgraphError):
    """The resource already exists."""

    status_code = 409
    exit_code = 5
    title = "Conflict"


class RateLimitedError(TutorgraphError):
    """Too many requests in a window; `retry_after` (seconds), when known, becomes the
    response's Retry-After header."""

    status_code = 429
    exit_code = 6
    title = "Too many requests"

    def __init__(self, message: str, *, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class UnavailableError(TutorgraphError):
    """A feature this server cannot offer as installed (the code sandbox without bubblewrap)."""

    status_code = 503
    exit_code = 2
    title = "Unavailable"


class ProviderError(TutorgraphError):
    """A model or search provider failed at run time."""

    status_code = 502
    exit_code = 7
    title = "Model provider error"


class ProviderConfigError(ProviderError):
    """The provider rejected our credentials or request; retrying cannot help."""


class ProviderUnavailable(ProviderError):
    """Transient provider failures (timeouts, rate limits, 5xx) that outlived the retries."""


class StructuredOutputError(ProviderError):
    """The model's reply could not be parsed into the requested schema."""


class OfflineUnsupported(ProviderError):
    """The offline engine has no implementation registered for an agent."""
