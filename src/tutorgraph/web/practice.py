"""The Practice page: choose a topic, answer graded questions one at a time, see mastery move."""

from __future__ import annotations

import functools
from contextlib import suppress
from datetime import datetime
from typing import Annotated

import anyio.to_thread
from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.orm import Session

from tutorgraph import practice
from tutorgraph.errors import ConflictError, InputError
from tutorgraph.http.deps import CurrentUser, NowDep, SessionDep, SettingsDep
from tutorgraph.http.unit_of_work import UnitOfWorkRoute
from tutorgraph.ids import DbId
from tutorgraph.knowledge import get_domain, visible_knowledge
from tutorgraph.learner_model.evaluator import Evaluator
from tutorgraph.learning import next_step, planner
from tutorgraph.limits import check_answer, require_answer
from tutorgraph.settings import Settings
from tutorgraph.store import courses
from tutorgraph.store.models import User, utcnow
from tutorgraph.web.templating import remember_user, render

router = APIRouter(route_class=UnitOfWorkRoute, include_in_schema=False)

ERROR_WORDS = {
    "CONCEPTUAL": "the idea itself was off",
    "PROCEDURAL": "right idea, wrong steps",
    "INCOMPLETE": "key points are missing",
    "CARELESS": "a slip in a good answer",
}
# Question types in the learner's words (the knowledge base's names are internal).
TYPE_WORDS = {
    "conceptual": "a question about an idea",
    "scenario": "a situation to reason about",
    "debugging": "a bug to find and fix",
    "design": "a design to sketch",
}
STATUS_WORDS = {"active": "in progress", "completed": "finished"}


@router.get("/quiz", response_class=HTMLResponse)
def practice_home(request: Request, session: SessionDep, user: CurrentUser) -> Response:
    remember_user(request, user)
    rounds = [
        practice.view_round(session=session, user_id=user.id, round_id=q.id)
        for q in practice.my_rounds(session=session, user_id=user.id)
    ]
    knowledge = visible_knowledge(session=session, user=user).domains
    domains = {name: [(t, kb.topic(t).title) for t in kb.order] for name, kb in knowledge.items()}
    titles = {
        (name, topic): kb.topic(topic).title for name, kb in knowledge.items() for topic in kb.order
    }
    return render(
        request,
        "quiz.html",
        {
            "domains": domains,
            "domain_titles": {name: kb.domain.title for name, kb in knowledge.items()},
            "topic_titles": titles,
            "rounds": rounds,
            "status_words": STATUS_WORDS,
        },
    )


@router.post("/quiz")
def practice_start(
    session: SessionDep,
    user: CurrentUser,
    topic: Annotated[str, Form(max_length=300)],
) -> Response:
    domain, _, topic_id = topic.partition("/")
    if not topic_id:
        raise InputError("topic: choose a topic")
    quiz = practice.start_round(session=session, user_id=user.id, domain=domain, topic=topic_id)
    return RedirectResponse(f"/quiz/{quiz.id}", status_code=303)


@router.get("/quiz/{round_id}", response_class=HTMLResponse)
def practice_round(
    round_id: str,
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    settings: SettingsDep,
    now: NowDep,
    explain: Annotated[DbId | None, Query(description="A question to explain another way.")] = None,
) -> Response:
    remember_user(request, user)
    return _round_page(
        request,
        session=session,
        user=user,
        settings=settings,
        round_id=round_id,
        explain=explain,
        now=now,
    )


@router.post("/quiz/{round_id}/retry")
def practice_retry(
    round_id: str,
    session: SessionDep,
    user: CurrentUser,
    question_id: Annotated[DbId, Form()],
) -> Response:
    practice.retry_question(
        session=session, user_id=user.id, round_id=round_id, question_id=question_id
    )
    return RedirectResponse(f"/quiz/{round_id}#question", status_code=303)


def _round_page(
    request: Request,
    *,
    session: Session,
    user: User,
    settings: Settings,
    round_id: str,
    error: InputError | None = None,
    answer: str = "",
    explain: int | None = None,
    now: datetime | None = None,
) -> Response:
    """The round with its current question; after a refused answer, the reason above the form
    and the learner's text still in it; on request, another explanation of an answered one."""
    now = now or utcnow()
    progress = practice.view_round(session=session, user_id=user.id, round_id=round_id)
    kb = get_domain(progress.domain)  # the round is on a domain the learner may see
    last = progress.answered[-1] if progress.answered else None
    explained = next((a for a in progress.answered if a.id == explain), None)
    explanation = (
        practice.another_explanation(
            domain=progress.domain, topic=progress.topic, result=explained.result
        )
        if explained is not None
        else None
    )
    lessons = courses.lessons_by_concept(session=session, user=user).get(progress.topic, [])
    upcoming = planner.next_activity(session, user=user, now=now) if last is not None else None
    return render(
        request,
        "quiz_round.html",
        {
            "round": progress,
            "last": last,
            "topic_title": kb.topic(progress.topic).title,
            "max_answer": settings.limits.max_answer_chars,
            "error": error.message if error else None,
            "answer": answer,
            "explanation": explanation,
            "explained": explained,
            "lessons": lessons,
            "next": upcoming,
            "verdict": next_step.how_it_went(last.result.get("score") or 0.0) if last else "",
            "error_words": ERROR_WORDS,
            "type_words": TYPE_WORDS,
        },
        status_code=error.status_code if error else 200,
    )


@router.post("/quiz/{round_id}/answer")
async def practice_answer(
    round_id: str,
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    settings: SettingsDep,
    answer: Annotated[str, Form()] = "",
    question_id: Annotated[DbId | None, Form()] = None,
) -> Response:
    try:
        require_answer(check_answer(settings=settings, text=answer))
    except InputError as exc:  # nothing graded: the same question, with the reason
        remember_user(request, user)
        return await anyio.to_thread.run_sync(
            functools.partial(
                _round_page,
                request,
                session=session,
                user=user,
                settings=settings,
                round_id=round_id,
                error=exc,
                answer=answer,
            )
        )
    evaluator: Evaluator = request.app.state.evaluator
    with suppress(ConflictError):  # a double-clicked Submit: the page shows the first's result
        await practice.submit_answer(
            evaluator,
            session=session,
            user_id=user.id,
            round_id=round_id,
            answer=answer,
            question_id=question_id,
        )
    return RedirectResponse(f"/quiz/{round_id}#result", status_code=303)
