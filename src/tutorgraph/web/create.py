"""The author's pages: /create lists your course builds and starts one; /create/{id} is a
build (its script drives the constructor API: uploads, turns, progress, reviews, publishing)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from tutorgraph.constructor.readiness import LABELS
from tutorgraph.constructor.steps import PHASE_WORDS, STEPS
from tutorgraph.http.deps import CurrentUser, constructor_service
from tutorgraph.web.templating import remember_user, render

router = APIRouter(include_in_schema=False)


@router.get("/create", response_class=HTMLResponse)
async def create_home(request: Request, user: CurrentUser) -> Response:
    remember_user(request, user)
    service = constructor_service(request.app.state)
    builds = service.builds(user=user)
    limit_mb = service.limits.max_bytes // (1024 * 1024)
    return render(
        request,
        "create.html",
        {"builds": builds, "limit_mb": limit_mb, "phase_words": PHASE_WORDS},
    )


@router.post("/create")
async def create_start(
    request: Request,
    user: CurrentUser,
    title: Annotated[str, Form(max_length=300)] = "",
) -> Response:
    view = await constructor_service(request.app.state).start(user=user, title=title)
    return RedirectResponse(f"/create/{view.session_id}", status_code=303)


@router.get("/create/{session_id}", response_class=HTMLResponse)
async def build_page(session_id: str, request: Request, user: CurrentUser) -> Response:
    remember_user(request, user)
    service = constructor_service(request.app.state)
    view = await service.view(session_id=session_id, user=user)
    limit_mb = service.limits.max_bytes // (1024 * 1024)
    return render(
        request,
        "create_build.html",
        {"build": view, "limit_mb": limit_mb, "steps": STEPS, "check_labels": LABELS},
    )
