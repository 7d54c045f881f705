"""The instructor's pages: the courses they teach and each course's cohort dashboard. A course's
owner sees the same pages for the courses they wrote, whatever their role (`instructor.scope`
decides who sees which course); refitting the mastery model stays with instructors and admins."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.orm import Session

from tutorgraph import instructor
from tutorgraph.http.deps import CurrentUser, DatabaseDep, InstructorUser, SessionDep
from tutorgraph.http.unit_of_work import UnitOfWorkRoute
from tutorgraph.ids import DbId
from tutorgraph.learner_model.refit import RefitReport, last_refit
from tutorgraph.learner_model.refit_schedule import refit
from tutorgraph.store.courses import TEACHING_ROLES
from tutorgraph.store.models import User
from tutorgraph.web.templating import remember_user, render

router = APIRouter(route_class=UnitOfWorkRoute, include_in_schema=False)


@router.get("/teach", response_class=HTMLResponse)
def teach_home(request: Request, session: SessionDep, user: CurrentUser) -> Response:
    return _teach_page(request, session, user)


@router.post("/teach/refit", response_class=HTMLResponse)
def refit_now(
    request: Request, session: SessionDep, user: InstructorUser, database: DatabaseDep
) -> Response:
    """Refit mastery (BKT) from every stored answer now, and show what it did."""
    report = refit(database, request.app.state.settings.mastery)
    return _teach_page(request, session, user, report=report)


def _teach_page(
    request: Request, session: Session, user: User, *, report: RefitReport | None = None
) -> Response:
    """The courses this user teaches or owns, and how mastery is estimated (with a refit's
    report right after one)."""
    remember_user(request, user)
    return render(
        request,
        "teach.html",
        {
            "scopes": instructor.scopes(session, user=user),
            "last_refit": last_refit(session=session),
            "mastery": request.app.state.settings.mastery,
            "report": report,
            "teaches": user.role in TEACHING_ROLES,
        },
    )


@router.get("/teach/{slug}", response_class=HTMLResponse)
def cohort_page(slug: str, request: Request, session: SessionDep, user: CurrentUser) -> Response:
    remember_user(request, user)
    board = instructor.dashboard(session, scope=instructor.scope_of(session, user=user, slug=slug))
    width = 100 // instructor.BUCKETS
    bands = [f"{width * i}–{width * (i + 1)}%" for i in range(instructor.BUCKETS)]
    return render(
        request,
        "teach_course.html",
        {"board": board, "bands": bands, "teaches": user.role in TEACHING_ROLES},
    )


@router.post("/teach/{slug}/alerts/{alert_id}")
def handle_alert(slug: str, alert_id: DbId, session: SessionDep, user: CurrentUser) -> Response:
    """Mark an alert handled, then back to the dashboard."""
    instructor.scope_of(session, user=user, slug=slug)  # 404 for a course they do not teach
    instructor.handle_alert(session, user=user, alert_id=alert_id)
    return RedirectResponse(f"/teach/{slug}#alerts", status_code=303)
