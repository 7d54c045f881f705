"""What a browser sees when a request fails: the sign-in page for a missing or expired session,
an error page for everything else. `http.problems` calls it for requests that want HTML."""

from __future__ import annotations

from urllib.parse import quote

from fastapi import Request
from fastapi.responses import RedirectResponse, Response

from tutorgraph.web.templating import render


def error_page(request: Request, status: int, title: str, detail: str) -> Response:
    if status == 401:
        target = request.url.path
        if request.url.query:
            target += "?" + request.url.query
        return RedirectResponse(f"/login?next={quote(target, safe='')}", status_code=303)
    return render(
        request,
        "error.html",
        {"status": status, "title": title, "detail": detail},
        status_code=status,
    )
