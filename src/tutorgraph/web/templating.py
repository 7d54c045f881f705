"""Jinja2 environment shared by every page."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from markupsafe import Markup, escape
from sqlalchemy.orm import object_session

from tutorgraph.content.rendering import render_markdown
from tutorgraph.http.csrf import attach_csrf_cookie, page_token
from tutorgraph.store import courses
from tutorgraph.store.courses import TEACHING_ROLES
from tutorgraph.store.models import User
from tutorgraph.wording import BLOOM_LEVEL, EXPLAIN, counted, percent

WEB_DIR = Path(__file__).parent
STATIC_DIR = WEB_DIR / "static"
templates = Jinja2Templates(directory=WEB_DIR / "templates")
_CODE_SPAN = re.compile(r"`([^`]+)`")


def inline_code(text: str) -> Markup:
    """Plain text with its `code spans` shown as code (everything else escaped)."""
    return Markup(_CODE_SPAN.sub(r"<code>\1</code>", str(escape(text))))


templates.env.filters["inline_code"] = inline_code
templates.env.filters["percent"] = percent
templates.env.filters["counted"] = counted
templates.env.globals["explain"] = EXPLAIN
templates.env.globals["bloom_level_means"] = BLOOM_LEVEL
templates.env.filters["markdown"] = lambda text: Markup(render_markdown(text))

NAV = (
    ("Learn", "/learn"),
    ("Explore", "/explore"),
    ("Assess", "/assess"),
    ("Practice", "/quiz"),
    ("Review", "/review"),
    ("Progress", "/progress"),
    ("Interview", "/interview"),
    ("Create", "/create"),
)


@dataclass(frozen=True)
class UserView:
    """What pages show of the signed-in user: a plain snapshot, safe after the session closed."""

    id: int
    name: str
    email: str
    role: str
    teaches: bool = False  # sees Teach: an instructor or admin, or the owner of a course


def remember_user(request: Request, user: User | None) -> None:
    """Make the user available to every template rendered for this request (errors included)."""
    request.state.user = (
        UserView(
            id=user.id, name=user.name, email=user.email, role=user.role, teaches=_teaches(user)
        )
        if user
        else None
    )


def _teaches(user: User) -> bool:
    if user.role in TEACHING_ROLES:
        return True
    session = object_session(user)  # the request's session, still open while the page is made
    return session is not None and courses.owns_a_course(session=session, user_id=user.id)


def render(
    request: Request,
    template: str,
    context: dict[str, Any] | None = None,
    *,
    status_code: int = 200,
) -> HTMLResponse:
    values = {
        "nav": NAV,
        "user": getattr(request.state, "user", None),
        "csrf_token": page_token(request),
        **(context or {}),
    }
    response = templates.TemplateResponse(request, template, values, status_code=status_code)
    attach_csrf_cookie(request, response)
    return response
