"""The web shell: home, log in, register, log out, and the sections not built yet."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlparse

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from tutorgraph import auth
from tutorgraph.errors import AuthenticationError, InputError, RateLimitedError
from tutorgraph.http.cookies import clear_session_cookie, set_session_cookie
from tutorgraph.http.deps import (
    NowDep,
    OptionalUser,
    SessionDep,
    SettingsDep,
    client_key,
    request_token,
)
from tutorgraph.http.unit_of_work import UnitOfWorkRoute
from tutorgraph.learner_model import mastery
from tutorgraph.learning import planner
from tutorgraph.web.templating import remember_user, render

router = APIRouter(route_class=UnitOfWorkRoute, include_in_schema=False)

ABOUT = {
    "learn": "Learn: browse the courses and study a lesson.",
    "explore": "Explore: open-ended chat with the tutor across every course.",
    "assess": "Assess: an adaptive skill assessment that ends in a gap analysis and a plan.",
    "quiz": "Practice: graded questions with mastery tracking.",
    "interview": "Interview: a mock technical interview built from your resume.",
    "create": "Create: turn your material into a course with a quiz bank.",
}
# Sections of the navigation that later releases fill in; each gets an honest placeholder page.
PLANNED: frozenset[str] = frozenset()


def _safe_next(target: str | None) -> str:
    """Only same-site relative paths are followed after login."""
    if not target:
        return "/"
    parsed = urlparse(target)
    if parsed.scheme or parsed.netloc or not target.startswith("/") or target.startswith("//"):
        return "/"
    return target


@router.get("/", response_class=HTMLResponse)
def home(request: Request, session: SessionDep, user: OptionalUser, now: NowDep) -> Response:
    remember_user(request, user)
    upcoming = planner.next_activity(session, user=user, now=now) if user else None
    # "Welcome" until the learner's first graded answer, "Welcome back" from then on.
    first_visit = user is not None and not mastery.learner_mastery(session=session, user_id=user.id)
    return render(
        request,
        "home.html",
        {"sections": ABOUT, "next": upcoming, "first_visit": first_visit},
    )


@router.get("/login", response_class=HTMLResponse)
def login_page(request: Request, user: OptionalUser, next: str | None = None) -> Response:
    remember_user(request, user)
    return render(request, "login.html", {"next": _safe_next(next), "email": ""})


@router.post("/login", response_class=HTMLResponse)
async def login_submit(
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    email: Annotated[str, Form(max_length=320)],
    password: Annotated[str, Form(max_length=1024)],
    next: Annotated[str, Form()] = "/",
) -> Response:
    try:
        _, token = await auth.login(
            session=session,
            settings=settings,
            email=email,
            password=password,
            client=client_key(request),
        )
    except (AuthenticationError, RateLimitedError) as exc:
        context = {"next": _safe_next(next), "email": email, "error": exc.message}
        return render(request, "login.html", context, status_code=exc.status_code)
    response = RedirectResponse(_safe_next(next), status_code=303)
    set_session_cookie(response, settings=settings, token=token)
    return response


@router.get("/register", response_class=HTMLResponse)
def register_page(request: Request, user: OptionalUser) -> Response:
    remember_user(request, user)
    return render(request, "register.html", {"email": "", "name": ""})


@router.post("/register", response_class=HTMLResponse)
async def register_submit(
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    email: Annotated[str, Form(max_length=320)],
    password: Annotated[str, Form(max_length=1024)],
    name: Annotated[str, Form(max_length=200)],
) -> Response:
    try:
        created = await auth.register(
            session=session,
            settings=settings,
            email=email,
            password=password,
            name=name,
            client=client_key(request),
        )
    except (InputError, RateLimitedError) as exc:
        context = {"email": email, "name": name, "error": exc.message}
        return render(request, "register.html", context, status_code=exc.status_code)
    if created is None:
        # The email already has an account: nothing was changed and nobody is signed in; the
        # owner logs in with the password they already have (the page says no more than that).
        return RedirectResponse("/login?registered=1", status_code=303)
    # A new account is signed in at once, with the session cookie a login sets.
    response = RedirectResponse("/", status_code=303)
    set_session_cookie(response, settings=settings, token=auth.token_for_launch(settings, created))
    return response


@router.post("/logout")
def logout(request: Request, session: SessionDep, settings: SettingsDep) -> Response:
    auth.logout(session=session, settings=settings, token=request_token(request))
    response = RedirectResponse("/", status_code=303)
    clear_session_cookie(response, settings=settings)
    return response


@router.get("/{section}", response_class=HTMLResponse)
def planned_section(section: str, request: Request, user: OptionalUser) -> Response:
    """Sections of the navigation that later releases fill in."""
    remember_user(request, user)
    if section not in PLANNED:
        return render(
            request,
            "error.html",
            {"status": 404, "title": "Not found", "detail": "There is no such page."},
            status_code=404,
        )
    return render(request, "planned.html", {"section": section, "about": ABOUT[section]})
