"""The learning loop's pages: take the next step, the Review page (spaced review with FSRS) and
the Progress page (the learner model: mastery on the knowledge graph, evidence, misconceptions)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from tutorgraph import practice
from tutorgraph.errors import NotFoundError
from tutorgraph.http.deps import CurrentUser, NowDep, SessionDep
from tutorgraph.http.unit_of_work import UnitOfWorkRoute
from tutorgraph.ids import DbId
from tutorgraph.knowledge import all_domains, concept_title, visible_knowledge
from tutorgraph.knowledge.visibility import VisibleKnowledge
from tutorgraph.learning import planner, progress, reviews
from tutorgraph.web.knowledge_svg import mastery_layout
from tutorgraph.web.templating import remember_user, render

router = APIRouter(route_class=UnitOfWorkRoute, include_in_schema=False)

STEP_WORDS = {
    "retry": "Try again",
    "tutor": "Another explanation",
    "remediate": "Go back a step",
    "practice": "Practise",
    "lesson": "Next lesson",
    "review": "Review",
}


@router.post("/next")
def take_next(
    session: SessionDep,
    user: CurrentUser,
    now: NowDep,
    step_id: Annotated[DbId | None, Form()] = None,
) -> Response:
    """The Continue button: take the step shown (or the current one) and go there."""
    url = planner.take(session, user=user, step_id=step_id, now=now)
    return RedirectResponse(url, status_code=303)


@router.get("/review", response_class=HTMLResponse)
def review_page(request: Request, session: SessionDep, user: CurrentUser, now: NowDep) -> Response:
    remember_user(request, user)
    planner.plan_pending(session, user_id=user.id)
    items = reviews.queue(session=session, user_id=user.id, now=now)
    titles = {item.concept: concept_title(item.concept) for item in items}
    knowledge = visible_knowledge(session=session, user=user)
    weakest = reviews.weakest_concepts(
        session=session, user_id=user.id, now=now, eligible=_reviewable(knowledge)
    )
    return render(
        request,
        "review.html",
        {
            "due": [i for i in items if i.is_due],
            "later": [i for i in items if not i.is_due],
            "titles": titles,
            "when": {i.concept: reviews.due_words(i.due, now) for i in items},
            "now": now,
            "round_length": reviews.REVIEW_ROUND,
            "step_minutes": reviews.STEP_MINUTES,
            "weakest": knowledge.concept_title(weakest[0]) if weakest else None,
        },
    )


@router.post("/review")
def start_review(
    session: SessionDep,
    user: CurrentUser,
    now: NowDep,
    concept: Annotated[str | None, Form(max_length=200)] = None,
) -> Response:
    """A short practice round on one concept: the review. Without a concept ("Review now"): on
    the learner's weakest concept, due or not; with none yet, the practice page."""
    knowledge = visible_knowledge(session=session, user=user)
    if not concept:
        weakest = reviews.weakest_concepts(
            session=session, user_id=user.id, now=now, eligible=_reviewable(knowledge)
        )
        if not weakest:
            return RedirectResponse("/quiz", status_code=303)
        concept = weakest[0]
    found = knowledge.topic(concept)
    if found is None:  # not a concept, or one of a course the learner may not see: alike
        raise NotFoundError(f"no knowledge-base concept {concept!r}")
    quiz = practice.start_round(
        session=session,
        user_id=user.id,
        domain=found[0].name,
        topic=concept,
        length=reviews.REVIEW_ROUND,
    )
    return RedirectResponse(f"/quiz/{quiz.id}", status_code=303)


def _reviewable(knowledge: VisibleKnowledge) -> Callable[[str], bool]:
    """A concept a review round can be built on: one the learner may see, with questions."""

    def reviewable(concept: str) -> bool:
        found = knowledge.topic(concept)
        return found is not None and bool(found[1].questions)

    return reviewable


@router.get("/progress", response_class=HTMLResponse)
def progress_page(request: Request, session: SessionDep, user: CurrentUser) -> Response:
    remember_user(request, user)
    planner.plan_pending(session, user_id=user.id)
    model = progress.learner_model(session, user_id=user.id)
    grouped = model.by_domain()
    domains = all_domains()
    graphs = {
        name: mastery_layout(
            kb,
            {c.concept: c.mastery for c in grouped.get(name, [])},
            {c.concept: c.bloom_reached for c in grouped.get(name, []) if c.bloom_reached},
        )
        for name, kb in domains.items()
        if name in grouped
    }
    domain_titles = {name: kb.domain.title for name, kb in domains.items()}
    return render(
        request,
        "progress.html",
        {
            "model": model,
            "graphs": graphs,
            "grouped": grouped,
            "domain_titles": domain_titles,
            "trend_words": progress.TREND_WORDS,
        },
    )
