"""The Practice page: choose a topic, answer graded questions one at a time, see mastery move."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from tutorgraph import practice
from tutorgraph.api.deps import CurrentUser, SessionDep, SettingsDep
from tutorgraph.api.unit_of_work import UnitOfWorkRoute
from tutorgraph.errors import InputError
from tutorgraph.grading.evaluator import Evaluator
from tutorgraph.knowledge import shipped_domains
from tutorgraph.limits import check_answer
from tutorgraph.web.templating import remember_user, render

router = APIRouter(route_class=UnitOfWorkRoute, include_in_schema=False)


@router.get("/quiz", response_class=HTMLResponse)
def practice_home(request: Request, session: SessionDep, user: CurrentUser) -> Response:
    remember_user(request, user)
    rounds = [
        practice.view_round(session=session, user_id=user.id, round_id=q.id)
        for q in practice.my_rounds(session=session, user_id=user.id)
    ]
    domains = {
        name: [(t, kb.topic(t).title) for t in kb.order] for name, kb in shipped_domains().items()
    }
    return render(request, "quiz.html", {"domains": domains, "rounds": rounds})


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
    round_id: str, request: Request, session: SessionDep, user: CurrentUser, settings: SettingsDep
) -> Response:
    remember_user(request, user)
    progress = practice.view_round(session=session, user_id=user.id, round_id=round_id)
    kb = shipped_domains()[progress.domain]
    last = progress.answered[-1] if progress.answered else None
    return render(
        request,
        "quiz_round.html",
        {
            "round": progress,
            "last": last,
            "topic_title": kb.topic(progress.topic).title,
            "max_answer": settings.limits.max_answer_chars,
        },
    )


@router.post("/quiz/{round_id}/answer")
async def practice_answer(
    round_id: str,
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    settings: SettingsDep,
    answer: Annotated[str, Form()] = "",
) -> Response:
    check_answer(settings=settings, text=answer)
    evaluator: Evaluator = request.app.state.evaluator
    await practice.submit_answer(
        evaluator, session=session, user_id=user.id, round_id=round_id, answer=answer
    )
    return RedirectResponse(f"/quiz/{round_id}#result", status_code=303)
