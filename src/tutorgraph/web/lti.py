"""LTI 1.3 endpoints a school's LMS is given: OIDC login, launch, and the tool's key set."""

from __future__ import annotations

from functools import partial

import anyio.to_thread
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response

from tutorgraph import auth
from tutorgraph.errors import NotFoundError
from tutorgraph.http.cookies import set_session_cookie
from tutorgraph.http.deps import DatabaseDep, SessionDep, SettingsDep, client_key
from tutorgraph.http.unit_of_work import UnitOfWorkRoute
from tutorgraph.lti import service
from tutorgraph.lti.framework import LtiRequest
from tutorgraph.lti.keys import KeySetCache

router = APIRouter(route_class=UnitOfWorkRoute, prefix="/lti", include_in_schema=False)
MAX_PARAM_CHARS = 20_000  # an id_token is a few kB


def _key_sets(request: Request) -> KeySetCache:
    """The app's cache of platforms' key sets."""
    cache: KeySetCache | None = getattr(request.app.state, "lti_key_sets", None)
    if cache is None:
        cache = request.app.state.lti_key_sets = KeySetCache()
    return cache


async def _lti_request(request: Request, secure: bool) -> LtiRequest:
    params = {k: v[:MAX_PARAM_CHARS] for k, v in request.query_params.items()}
    if request.method == "POST":
        form = await request.form()
        params.update({k: str(v)[:MAX_PARAM_CHARS] for k, v in form.items()})
    return LtiRequest(params, dict(request.cookies), secure=secure or request.url.scheme == "https")


@router.api_route("/login", methods=["GET", "POST"], name="lti_login")
async def lti_login(request: Request, settings: SettingsDep, database: DatabaseDep) -> Response:
    """Third-party initiated login: the LMS sends iss, login_hint and target_link_uri here."""
    if not settings.lti.enabled:
        raise NotFoundError("LTI is not set up on this server")
    lti_request = await _lti_request(request, settings.cookies_secure)
    launch_url = str(request.url_for("lti_launch"))
    login = partial(service.login, launch_url=launch_url, client=client_key(request))
    return await anyio.to_thread.run_sync(login, settings, database, lti_request)


@router.post("/launch", name="lti_launch")
async def lti_launch(
    request: Request, session: SessionDep, settings: SettingsDep, database: DatabaseDep
) -> Response:
    """The LMS posts the signed id_token here: the learner is signed in and the course opens."""
    if not settings.lti.enabled:
        raise NotFoundError("LTI is not set up on this server")
    lti_request = await _lti_request(request, settings.cookies_secure)
    # The platform's key set, fetched (or cached) without blocking; then the checks and the
    # database work on a worker thread.
    keys = await service.platform_key_sets(settings, lti_request, _key_sets(request))
    launch = partial(service.launch, key_sets=keys)
    launched = await anyio.to_thread.run_sync(launch, settings, database, session, lti_request)
    response = RedirectResponse(f"/learn/{launched.course.slug}", status_code=303)
    set_session_cookie(
        response, settings=settings, token=auth.token_for_launch(settings, launched.user)
    )
    return response


@router.get("/jwks")
def lti_jwks(settings: SettingsDep) -> Response:
    """The tool's public keys: platforms check its grade-passback requests with them."""
    if not settings.lti.enabled:
        raise NotFoundError("LTI is not set up on this server")
    return JSONResponse(service.jwks(settings))
