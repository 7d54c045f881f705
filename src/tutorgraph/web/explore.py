"""The Explore page: open-ended chat with the tutor across every visible course."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from tutorgraph.http.deps import OptionalUser
from tutorgraph.http.unit_of_work import UnitOfWorkRoute
from tutorgraph.web.templating import render

router = APIRouter(route_class=UnitOfWorkRoute, include_in_schema=False)

SUGGESTIONS = (
    "What courses can I take?",
    "Explain self-attention in simple terms",
    "How do Python generators work?",
    "What should I learn after transformers?",
)


@router.get("/explore", response_class=HTMLResponse)
def explore_page(request: Request, user: OptionalUser) -> Response:
    request.state.user = user
    return render(request, "explore.html", {"suggestions": SUGGESTIONS})
