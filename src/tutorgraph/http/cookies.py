"""The cookies tutorgraph sets, in one place for the API routes and the web pages: the session
cookie (the access token, HTTP-only) and the CSRF cookie (a random per-browser value that CSRF
tokens are derived from). Both are `Secure` when `settings.cookies_secure` says so."""

from __future__ import annotations

from fastapi import Response

from tutorgraph.settings import Settings

SESSION_COOKIE = "tutorgraph_session"
CSRF_COOKIE = "tutorgraph_csrf"
CSRF_COOKIE_DAYS = 365


def set_session_cookie(response: Response, *, settings: Settings, token: str) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=settings.access_token_minutes * 60,
        httponly=True,
        secure=settings.cookies_secure,
        samesite="lax",
        path="/",
    )


def clear_session_cookie(response: Response, *, settings: Settings) -> None:
    response.delete_cookie(
        SESSION_COOKIE, httponly=True, secure=settings.cookies_secure, samesite="lax", path="/"
    )


def set_csrf_cookie(response: Response, *, settings: Settings, value: str) -> None:
    response.set_cookie(
        CSRF_COOKIE,
        value,
        max_age=CSRF_COOKIE_DAYS * 24 * 3600,
        httponly=True,  # pages carry the derived token; scripts never need the cookie itself
        secure=settings.cookies_secure,
        samesite="lax",
        path="/",
    )
