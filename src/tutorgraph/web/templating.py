"""Jinja2 environment shared by every page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

WEB_DIR = Path(__file__).parent
STATIC_DIR = WEB_DIR / "static"
templates = Jinja2Templates(directory=WEB_DIR / "templates")

NAV = (
    ("Learn", "/learn"),
    ("Explore", "/explore"),
    ("Assess", "/assess"),
    ("Practice", "/quiz"),
    ("Interview", "/interview"),
    ("Create", "/create"),
)


def render(
    request: Request,
    template: str,
    context: dict[str, Any] | None = None,
    *,
    status_code: int = 200,
) -> HTMLResponse:
    values = {"nav": NAV, "user": getattr(request.state, "user", None), **(context or {})}
    return templates.TemplateResponse(request, template, values, status_code=status_code)
