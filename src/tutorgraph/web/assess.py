"""The Assess pages: choose a domain and level, answer question by question, read the report."""

from __future__ import annotations

from contextlib import suppress
from typing import Annotated

import anyio.to_thread
from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from tutorgraph.assessment.service import AssessmentService
from tutorgraph.content.rendering import render_markdown
from tutorgraph.errors import ConflictError, InputError
from tutorgraph.http.deps import AssessmentsDep, CurrentUser, SettingsDep
from tutorgraph.http.unit_of_work import UnitOfWorkRoute
from tutorgraph.knowledge import STARTING_BLOOM, TARGET_LEVELS, get_domain, shipped_domains
from tutorgraph.limits import check_answer
from tutorgraph.settings import Settings
from tutorgraph.store import courses
from tutorgraph.store.courses import LessonLink
from tutorgraph.store.db import Database
from tutorgraph.store.models import User
from tutorgraph.web.knowledge_svg import layout
from tutorgraph.web.templating import remember_user, render

router = APIRouter(route_class=UnitOfWorkRoute, include_in_schema=False)


@router.get("/assess", response_class=HTMLResponse)
async def assess_home(request: Request, user: CurrentUser, assessments: AssessmentsDep) -> Response:
    remember_user(request, user)
    domains = [(name, kb.domain.title, len(kb.topics)) for name, kb in shipped_domains().items()]
    levels = [(level, STARTING_BLOOM[level].value) for level in TARGET_LEVELS]
    mine = await assessments.list(user_id=user.id)
    titles = {name: kb.domain.title for name, kb in shipped_domains().items()}
    return render(
        request,
        "assess.html",
        {
            "domains": domains,
            "levels": levels,
            "assessments": mine,
            "titles": titles,
            "offline": request.app.state.settings.llm.engine == "offline",
        },
    )


@router.post("/assess")
async def assess_start(
    user: CurrentUser,
    assessments: AssessmentsDep,
    domain: Annotated[str, Form(max_length=100)],
    target_level: Annotated[str, Form(max_length=20)],
) -> Response:
    view = await assessments.start(user_id=user.id, domain=domain, target_level=target_level)
    return RedirectResponse(f"/assess/{view.id}", status_code=303)


@router.get("/assess/{assessment_id}", response_class=HTMLResponse)
async def assess_question(
    assessment_id: str,
    request: Request,
    user: CurrentUser,
    assessments: AssessmentsDep,
    settings: SettingsDep,
) -> Response:
    return await _question_page(
        request, assessments, settings, user=user, assessment_id=assessment_id
    )


async def _question_page(
    request: Request,
    assessments: AssessmentService,
    settings: Settings,
    *,
    user: User,
    assessment_id: str,
    error: InputError | None = None,
    answer: str = "",
) -> Response:
    view = await assessments.get(assessment_id=assessment_id, user_id=user.id)
    remember_user(request, user)  # after the lookup: an error page must not touch a closed session
    if view.report is not None:
        return RedirectResponse(f"/assess/{view.id}/report", status_code=303)
    question = view.interrupt["question"] if view.interrupt else None
    return render(
        request,
        "assess_question.html",
        {
            "view": view,
            "progress": view.interrupt,
            "question": question,
            "question_html": render_markdown(question["text"]) if question else "",
            "domain_title": get_domain(view.domain).domain.title,
            "max_answer": settings.limits.max_answer_chars,
            "error": error,
            "answer": answer,
        },
        status_code=error.status_code if error else 200,
    )


@router.post("/assess/{assessment_id}/answers")
async def assess_answer(
    assessment_id: str,
    request: Request,
    user: CurrentUser,
    assessments: AssessmentsDep,
    settings: SettingsDep,
    answer: Annotated[str, Form()] = "",
    question_id: Annotated[str | None, Form(max_length=200)] = None,
) -> Response:
    try:
        check_answer(settings=settings, text=answer)
        with suppress(ConflictError):  # a repeated submit: the page shows where it is now
            await assessments.answer(
                assessment_id=assessment_id,
                user_id=user.id,
                answer=answer,
                question_id=question_id,
            )
    except InputError as exc:  # nothing counted: the same question, the text kept, the reason
        return await _question_page(
            request,
            assessments,
            settings,
            user=user,
            assessment_id=assessment_id,
            error=exc,
            answer=answer,
        )
    return RedirectResponse(f"/assess/{assessment_id}", status_code=303)


@router.get("/assess/{assessment_id}/report", response_class=HTMLResponse)
async def assess_report(
    assessment_id: str, request: Request, user: CurrentUser, assessments: AssessmentsDep
) -> Response:
    view = await assessments.get(assessment_id=assessment_id, user_id=user.id)
    remember_user(request, user)
    if view.report is None:
        return RedirectResponse(f"/assess/{view.id}", status_code=303)
    kb = get_domain(view.domain)
    lessons = await anyio.to_thread.run_sync(_lessons_by_concept, request.app.state.db, user)
    return render(
        request,
        "assess_report.html",
        {
            "view": view,
            "report": view.report,
            "graph": layout(kb, view.report),
            "domain_title": kb.domain.title,
            "lessons": lessons,
            "review_html": {item.number: render_markdown(item.text) for item in view.report.review},
        },
    )


def _lessons_by_concept(database: Database, user: User) -> dict[str, list[LessonLink]]:
    with database.session() as session:
        return courses.lessons_by_concept(session=session, user=user)
