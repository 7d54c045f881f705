"""One place that turns errors into responses: JSON problem documents for the API, pages for
the browser (drawn by the `ErrorPage` the app factory passes in: `web.error_pages`). Stack
traces never leave the server."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from tutorgraph.errors import AuthenticationError, RateLimitedError, TutorgraphError
from tutorgraph.http.security_headers import security_headers
from tutorgraph.settings import Settings

log = logging.getLogger(__name__)


_HTTP_TITLES = {
    400: "Bad request",
    404: "Not found",
    405: "Method not allowed",
    413: "Content too large",
    422: "Invalid input",
}


def _wants_html(request: Request) -> bool:
    path = request.url.path
    if path.startswith("/api/") or path in {"/healthz", "/openapi.json"}:
        return False
    return "text/html" in request.headers.get("accept", "")


def problem(status: int, title: str, detail: str, **extra: Any) -> JSONResponse:
    body = {"type": "about:blank", "title": title, "status": status, "detail": detail, **extra}
    return JSONResponse(body, status_code=status, media_type="application/problem+json")


ErrorPage = Callable[[Request, int, str, str], Response]
"""What a browser gets for an error: (request, status, title, detail) -> the response."""


def install_exception_handlers(app: FastAPI, *, error_page: ErrorPage) -> None:
    @app.exception_handler(TutorgraphError)
    async def _domain_error(request: Request, exc: TutorgraphError) -> Response:
        if exc.status_code >= 500:
            log.error("%s on %s: %s", type(exc).__name__, request.url.path, exc.message)
        if _wants_html(request):
            return error_page(request, exc.status_code, exc.title, exc.message)
        response = problem(exc.status_code, exc.title, exc.message)
        if isinstance(exc, AuthenticationError):
            response.headers["WWW-Authenticate"] = "Bearer"
        if isinstance(exc, RateLimitedError) and exc.retry_after is not None:
            response.headers["Retry-After"] = str(exc.retry_after)
        return response

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> Response:
        errors = [
            {"field": ".".join(str(p) for p in e["loc"] if p != "body"), "message": e["msg"]}
            for e in exc.errors()
        ]
        detail = "; ".join(f"{e['field']}: {e['message']}" for e in errors)
        if _wants_html(request):
            return error_page(request, 422, "Invalid input", detail)
        return problem(422, "Invalid input", detail, errors=errors)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        title = _HTTP_TITLES.get(exc.status_code, "Error")
        detail = str(exc.detail) if exc.detail else title
        if _wants_html(request):
            return error_page(request, exc.status_code, title, detail)
        return problem(exc.status_code, title, detail)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> Response:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        detail = "Something went wrong on our side; the error was logged."
        if _wants_html(request):
            response = error_page(request, 500, "Internal error", detail)
        else:
            response = problem(500, "Internal error", detail)
        # Starlette answers unhandled errors outside the middleware stack: add the headers here.
        settings: Settings = request.app.state.settings
        response.headers.update(security_headers(hsts=settings.cookies_secure))
        return response
