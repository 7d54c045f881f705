"""The Assess pages: choose a domain and level, answer question by question, read the report."""

from __future__ import annotations

from contextlib import suppress
from typing import Annotated

import anyio.to_thread
from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from tutorgraph.assessment.agents import DEMONSTRATED_PARTIAL
from tutorgraph.assessment.lessons import LessonSource, lesson_for_topic
from tutorgraph.assessment.service import AssessmentReport, AssessmentService
from tutorgraph.content.rendering import render_markdown
from tutorgraph.errors import ConflictError, InputError
from tutorgraph.http.deps import AssessmentsDep, CurrentUser, SettingsDep
from tutorgraph.http.unit_of_work import UnitOfWorkRoute
from tutorgraph.knowledge import (
    STARTING_BLOOM,
    TARGET_LEVELS,
    KnowledgeBase,
    get_domain,
    shipped_domains,
    starting_bloom,
)
from tutorgraph.learner_model.mastery import mastery_by_concept
from tutorgraph.limits import check_answer
from tutorgraph.settings import Settings
from tutorgraph.store import courses
from tutorgraph.store.db import Database
from tutorgraph.store.models import User
from tutorgraph.web.knowledge_svg import SvgGraph, layout
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
    error: InputError | ConflictError | None = None,
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


@router.post("/assess/{assessment_id}/finish")
async def assess_finish(
    assessment_id: str,
    request: Request,
    user: CurrentUser,
    assessments: AssessmentsDep,
    settings: SettingsDep,
    answer: Annotated[str, Form()] = "",
) -> Response:
    """Finish now: the answer in the box (if any) is graded first, then the report is made from
    the answers so far."""
    try:
        check_answer(settings=settings, text=answer)
        await assessments.finish(assessment_id=assessment_id, user_id=user.id, answer=answer)
    except (ConflictError, InputError) as exc:  # e.g. nothing answered yet: say so, keep the text
        return await _question_page(
            request,
            assessments,
            settings,
            user=user,
            assessment_id=assessment_id,
            error=exc,
            answer=answer,
        )
    return RedirectResponse(f"/assess/{assessment_id}/report", status_code=303)


@router.get("/assess/{assessment_id}/report", response_class=HTMLResponse)
async def assess_report(
    assessment_id: str, request: Request, user: CurrentUser, assessments: AssessmentsDep
) -> Response:
    view = await assessments.get(assessment_id=assessment_id, user_id=user.id)
    remember_user(request, user)
    if view.report is None:
        return RedirectResponse(f"/assess/{view.id}", status_code=303)
    kb = get_domain(view.domain)
    report = view.report
    lessons, known = await anyio.to_thread.run_sync(
        _learner_view, request.app.state.db, user, view.domain
    )
    plan_topics = {t for phase in report.plan["phases"] for t in phase["topics"]}
    mastery = {t: known[t] for t in report.target_graph if t in known}
    return render(
        request,
        "assess_report.html",
        {
            "view": view,
            "report": report,
            "graph": mastery_graph(kb, report, mastery),
            "domain_title": kb.domain.title,
            "plan_lessons": {t: lesson_for_topic(kb.topic(t), lessons) for t in plan_topics},
            "mastery": mastery,
            "target_bloom": starting_bloom(report.target_level).value,
            # Below this, the evaluator records "remember" for want of a level: not shown as one.
            "level_shown_from": DEMONSTRATED_PARTIAL,
            "review_html": {item.number: render_markdown(item.text) for item in report.review},
            "answered": [item for item in report.review if item.answer is not None],
        },
    )


def mastery_graph(
    kb: KnowledgeBase, report: AssessmentReport, mastery: dict[str, float]
) -> SvgGraph:
    """The report's knowledge graph coloured and captioned by the learner's mastery (the number
    Progress shows), not by the assessment's own confidence: the report's copy with each
    assessed topic's confidence replaced by its mastery. Topics not assessed stay grey."""
    nodes = {
        topic_id: {**node, "confidence": mastery.get(topic_id, node["confidence"])}
        for topic_id, node in report.knowledge_graph["nodes"].items()
    }
    shown = report.model_copy(
        update={"knowledge_graph": {**report.knowledge_graph, "nodes": nodes}}
    )
    return layout(kb, shown)


def _learner_view(
    database: Database, user: User, domain: str
) -> tuple[list[LessonSource], dict[str, float]]:
    """The lessons the user may open in courses of the domain, and the user's mastery."""
    with database.session() as session:
        lessons = [
            LessonSource(
                course_slug=visible.course.slug,
                lesson_slug=lesson.slug,
                title=lesson.title,
                concepts=tuple(str(c) for c in lesson.concepts or []),
                content=lesson.content,
            )
            for visible in courses.visible_courses(session=session, user=user)
            if visible.course.domain in ("", domain)
            for lesson in courses.course_lessons(visible.course)
            if lesson.concepts
        ]
        return lessons, mastery_by_concept(session=session, user_id=user.id)
