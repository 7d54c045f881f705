"""Search over course content (lessons and reference KBs)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel

from tutorgraph.api.openapi_problems import problem_responses
from tutorgraph.content.retrieval import SearchHit, SearchIndexes
from tutorgraph.http.deps import OptionalUser, SessionDep
from tutorgraph.http.unit_of_work import UnitOfWorkRoute
from tutorgraph.store import courses

router = APIRouter(route_class=UnitOfWorkRoute, tags=["search"])


class SearchOut(BaseModel):
    results: list[SearchHit]


@router.get("/search", responses=problem_responses(404))
def search(
    request: Request,
    session: SessionDep,
    user: OptionalUser,
    q: Annotated[str, Query(min_length=1, max_length=500, description="What to look for.")],
    k: Annotated[int, Query(ge=1, le=50)] = 5,
    course: Annotated[str | None, Query(description="Limit to one course (slug).")] = None,
    lesson: Annotated[str | None, Query(description="Limit to one lesson (slug).")] = None,
) -> SearchOut:
    """Ranked passages with their lesson and heading path. Anonymous callers search public
    courses; private courses need the owner's or a share's access."""
    indexes: SearchIndexes = request.app.state.search
    if course is not None:
        scope = [courses.get_course(session=session, slug=course, user=user)]
    else:
        scope = [v.course for v in courses.visible_courses(session=session, user=user)]
    hits = indexes.search(session=session, query=q, courses=scope, lesson=lesson, k=k)
    return SearchOut(results=hits)
