"""The mock interview pages: /interview starts one from a resume and lists your interviews and
resumes; /interview/{id} is the session (its script drives the interview API: answers over a
WebSocket, code runs, ending and the scorecard)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from tutorgraph.http.deps import CurrentUser, SettingsDep, interview_service
from tutorgraph.knowledge import TARGET_LEVELS
from tutorgraph.web.templating import remember_user, render

router = APIRouter(include_in_schema=False)

DEFAULT_ROLE = "Software engineer"


@router.get("/interview", response_class=HTMLResponse)
async def interview_home(request: Request, user: CurrentUser, settings: SettingsDep) -> Response:
    remember_user(request, user)
    limits = settings.interview  # the API enforces them; the page says them and checks first
    context = {
        "levels": TARGET_LEVELS,
        "default_role": DEFAULT_ROLE,
        "max_bytes": limits.max_resume_bytes,
        "max_mb": f"{limits.max_resume_bytes / (1024 * 1024):.3g}",
        "max_chars": limits.max_resume_chars,
    }
    return render(request, "interview.html", context)


@router.get("/interview/{interview_id}", response_class=HTMLResponse)
async def interview_page(interview_id: str, request: Request, user: CurrentUser) -> Response:
    remember_user(request, user)
    view = await interview_service(request.app.state).get(
        interview_id=interview_id, user_id=user.id
    )
    return render(request, "interview_session.html", {"interview": view.model_dump(mode="json")})
