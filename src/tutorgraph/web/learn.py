"""The Learn pages: course list, course outline with progress, and the lesson reader."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy import select
from sqlalchemy.orm import Session

from tutorgraph import instructor
from tutorgraph.content.rendering import render_markdown
from tutorgraph.errors import NotFoundError
from tutorgraph.http.deps import CurrentUser, OptionalUser, SessionDep
from tutorgraph.http.unit_of_work import UnitOfWorkRoute
from tutorgraph.store import courses
from tutorgraph.store.models import LearningPath, User
from tutorgraph.tutor import sessions
from tutorgraph.web.templating import remember_user, render

router = APIRouter(route_class=UnitOfWorkRoute, include_in_schema=False)

SECTIONS = (
    ("my", "My Courses"),
    ("shared", "Shared with Me"),
    ("platform", "Platform Courses"),
    ("community", "Community Courses"),  # other users' courses, made public: after the platform's
)


@router.get("/learn", response_class=HTMLResponse)
def learn(request: Request, session: SessionDep, user: OptionalUser) -> Response:
    remember_user(request, user)
    done = courses.completed_lesson_ids(session=session, user=user)
    grouped: dict[str, list[dict[str, object]]] = {key: [] for key, _ in SECTIONS}
    for visible in courses.visible_courses(session=session, user=user):
        lessons = courses.course_lessons(visible.course)
        grouped[visible.section].append(
            {
                "course": visible.course,
                "author": visible.author,
                "lessons": len(lessons),
                "completed": sum(1 for lesson in lessons if lesson.id in done),
            }
        )
    return render(request, "learn.html", {"sections": SECTIONS, "grouped": grouped})


@router.get("/learn/{slug}", response_class=HTMLResponse)
def course_page(slug: str, request: Request, session: SessionDep, user: OptionalUser) -> Response:
    remember_user(request, user)
    return _course_page(request, session, user, slug)


def _course_page(
    request: Request, session: Session, user: User | None, slug: str, *, note: str = ""
) -> Response:
    course = courses.get_course(session=session, slug=slug, user=user)
    done = courses.completed_lesson_ids(session=session, user=user)
    lessons = courses.course_lessons(course)
    owner = user is not None and course.created_by == user.id
    members = (
        courses.course_members(session=session, course=course, user=user)
        if owner and user is not None
        else []
    )
    publisher = user is not None and courses.may_publish(course=course, user=user)
    share_url = (
        str(request.base_url).rstrip("/") + f"/join/{course.share_token}"
        if owner and course.share_token
        else ""
    )
    return render(
        request,
        "course.html",
        {
            "course": course,
            "done": done,
            "total": len(lessons),
            "completed": sum(1 for lesson in lessons if lesson.id in done),
            "owner": owner,
            "author": courses.author_of(session=session, course=course),
            "publisher": publisher,
            "members": members,
            "share_url": share_url,
            "note": note,
        },
    )


@router.post("/learn/{slug}/share", response_class=HTMLResponse)
def share_course(
    slug: str,
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    stop: Annotated[str, Form()] = "",
) -> Response:
    """The owner makes a share link (a new one replaces the old) or turns sharing off."""
    course = courses.get_course(session=session, slug=slug, user=user)
    if stop:
        courses.revoke_share_token(session=session, course=course, user=user)
        note = "Sharing is off: the old link no longer works (members keep their access)."
    else:
        courses.create_share_token(session=session, course=course, user=user)
        note = "Here is the share link: anyone with it who logs in can open the course."
    return _course_page(request, session, user, slug, note=note)


@router.post("/learn/{slug}/visibility", response_class=HTMLResponse)
def change_visibility(
    slug: str,
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    visibility: Annotated[str, Form(max_length=20)],
) -> Response:
    """Make the course public (an owner who teaches, or an admin) or private again."""
    course = courses.get_course(session=session, slug=slug, user=user)
    courses.set_visibility(session=session, course=course, user=user, visibility=visibility)
    author = courses.author_of(session=session, course=course)
    note = (
        f"The course is public: everyone can open it, listed as {author}'s under Community Courses."
        if visibility == "public" and author is not None
        else f"The course is {visibility}."
    )
    return _course_page(request, session, user, slug, note=note)


@router.get("/join/{token}", response_class=HTMLResponse)
def join_page(token: str, request: Request, session: SessionDep, user: CurrentUser) -> Response:
    remember_user(request, user)
    course = session.scalar(select(LearningPath).where(LearningPath.share_token == token))
    if course is None:
        raise NotFoundError("this share link is not valid (it may have been replaced)")
    return render(request, "join.html", {"course": course, "token": token})


@router.post("/join/{token}")
def join(token: str, session: SessionDep, user: CurrentUser) -> Response:
    course = courses.join_by_token(session=session, token=token, user=user)
    instructor.join_as_learner(session, course=course, user=user)
    return RedirectResponse(f"/learn/{course.slug}", status_code=303)


@router.get("/learn/{slug}/{lesson_slug}", response_class=HTMLResponse)
def lesson_page(
    slug: str, lesson_slug: str, request: Request, session: SessionDep, user: OptionalUser
) -> Response:
    remember_user(request, user)
    course = courses.get_course(session=session, slug=slug, user=user)
    lesson = courses.get_lesson_by_slug(session=session, course=course, slug=lesson_slug)
    instructor.join_as_learner(session, course=course, user=user)
    ordered = courses.course_lessons(course)
    position = [item.id for item in ordered].index(lesson.id)
    done = courses.completed_lesson_ids(session=session, user=user)
    latest = (
        sessions.latest_tutor_session_id(session=session, user_id=user.id, lesson_id=lesson.id)
        if user is not None
        else None
    )
    return render(
        request,
        "lesson.html",
        {
            "course": course,
            "lesson": lesson,
            "body": render_markdown(lesson.content, anchors=True),
            "completed": lesson.id in done,
            "previous": ordered[position - 1] if position > 0 else None,
            "next": ordered[position + 1] if position + 1 < len(ordered) else None,
            "chat_session_id": latest,  # reopening the lesson continues its last conversation
        },
    )


@router.post("/learn/{slug}/{lesson_slug}/progress")
def lesson_progress(
    slug: str,
    lesson_slug: str,
    session: SessionDep,
    user: CurrentUser,
    completed: Annotated[bool, Form()] = True,
) -> Response:
    course = courses.get_course(session=session, slug=slug, user=user)
    lesson = courses.get_lesson_by_slug(session=session, course=course, slug=lesson_slug)
    courses.set_progress(session=session, user=user, lesson=lesson, completed=completed)
    return RedirectResponse(f"/learn/{course.slug}/{lesson.slug}", status_code=303)
