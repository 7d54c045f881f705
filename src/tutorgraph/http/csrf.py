"""Cross-site request forgery protection: a signed double-submit token.

Each browser gets a random value in an HTTP-only cookie the first time a page is rendered; the
page carries `HMAC(signing secret, value)` in every form (`csrf_token`) and in
`<meta name="csrf-token">` for scripts, which send it as `X-CSRF-Token`. Another site can make
the browser send the cookie but can neither read the page nor compute the HMAC.

Checked on every unsafe request (one app-wide dependency, so no route can forget it):
- a request with an `Authorization: Bearer` header passes: no other site can add that header,
  and such a request is not authenticated by the cookie;
- API requests (`/api/...`) without the session cookie pass: they carry no ambient credential;
- the LTI 1.3 login and launch pass (see LTI_PATHS);
- every other one needs the token, in the header or the form field. Web forms always need it,
  login and register included, so another site can neither log you out nor log you in as
  someone else."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from fastapi import Request, Response
from starlette.requests import HTTPConnection

from tutorgraph.errors import PermissionDeniedError
from tutorgraph.http.cookies import CSRF_COOKIE, SESSION_COOKIE, set_csrf_cookie
from tutorgraph.settings import Settings
from tutorgraph.signing_secret import signing_secret

CSRF_FIELD = "csrf_token"
CSRF_HEADER = "X-CSRF-Token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
_MIN_SEED_LENGTH = 32
# An LMS posts these from its own site by design (LTI 1.3): they carry no ambient credential of
# ours, and the OIDC state cookie, the one-time nonce and the platform's signature on the
# id_token do what a CSRF token would (pylti1p3 checks all three).
LTI_PATHS = frozenset({"/lti/login", "/lti/launch"})


class CsrfError(PermissionDeniedError):
    """An unsafe cookie-authenticated request without a valid CSRF token."""

    title = "CSRF check failed"


def _token(settings: Settings, seed: str) -> str:
    key = signing_secret(settings).encode()
    return hmac.new(key, b"tutorgraph-csrf:" + seed.encode(), hashlib.sha256).hexdigest()


def _browser_seed(connection: HTTPConnection) -> str | None:
    seed = connection.cookies.get(CSRF_COOKIE)
    return seed if seed and len(seed) >= _MIN_SEED_LENGTH else None


def page_token(request: Request) -> str:
    """The token a rendered page embeds; starts the browser's value if it has none yet
    (`attach_csrf_cookie` then sends it)."""
    seed = _browser_seed(request) or getattr(request.state, "new_csrf_seed", None)
    if seed is None:
        seed = secrets.token_urlsafe(32)
        request.state.new_csrf_seed = seed
    return _token(request.app.state.settings, seed)


def attach_csrf_cookie(request: Request, response: Response) -> None:
    seed = getattr(request.state, "new_csrf_seed", None)
    if seed is not None:
        set_csrf_cookie(response, settings=request.app.state.settings, value=seed)


async def verify_csrf(connection: HTTPConnection) -> None:
    """App-wide dependency: refuse an unsafe request that another site could have forged."""
    if not isinstance(connection, Request) or connection.method in SAFE_METHODS:
        return
    scheme, _, credentials = connection.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and credentials.strip():
        return
    if connection.url.path in LTI_PATHS:
        return
    api = connection.url.path.startswith("/api/")
    if api and SESSION_COOKIE not in connection.cookies:
        return
    sent = connection.headers.get(CSRF_HEADER)
    if sent is None and not api:
        value = (await connection.form()).get(CSRF_FIELD)
        sent = value if isinstance(value, str) else None
    seed = _browser_seed(connection)
    expected = _token(connection.app.state.settings, seed) if seed else None
    if (
        sent is None
        or expected is None
        or not hmac.compare_digest(sent.encode(), expected.encode())
    ):
        if api:
            raise CsrfError(
                f"cookie-authenticated requests must send the page's csrf-token in {CSRF_HEADER}"
                " (or authenticate with a bearer token)"
            )
        raise CsrfError(
            "this form has expired or was sent from another site; reload the page and try again"
        )
