"""pylti1p3 on FastAPI: its request, cookie, redirect and launch-data storage interfaces.

pylti1p3 ships adapters for Django and Flask only. These keep its launch state (nonces, OIDC
state, launch data) in the database (`lti_cache`), not in one process's memory, so any API
process can take the launch that another one started."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pylti1p3.cookie import CookieService
from pylti1p3.launch_data_storage.cache import CacheDataStorage
from pylti1p3.message_launch import MessageLaunch
from pylti1p3.oidc_login import OIDCLogin
from pylti1p3.redirect import Redirect
from pylti1p3.request import Request
from pylti1p3.session import SessionService
from pylti1p3.tool_config.dict import ToolConfDict

from tutorgraph.store import lti as stored
from tutorgraph.store.db import Database
from tutorgraph.store.models import utcnow

DEFAULT_LIFETIME = 86400


class LtiRequest(Request):
    """A request's parameters (query and form, read beforehand) and cookies."""

    def __init__(self, params: dict[str, str], cookies: dict[str, str], *, secure: bool) -> None:
        self._params = params
        self._cookies = cookies
        self._secure = secure

    @property
    def session(self) -> dict[str, Any]:
        return {}  # launch state lives in the database cache, not a server session

    def is_secure(self) -> bool:
        return self._secure

    def get_param(self, key: str) -> str:
        return self._params.get(key, "")

    def get_cookie(self, key: str) -> str | None:
        return self._cookies.get(key)


class LtiCookies(CookieService):
    """Cookies pylti1p3 reads from the request and wants set on the response (the OIDC state)."""

    def __init__(self, request: LtiRequest) -> None:
        self._request = request
        self._to_set: dict[str, tuple[str, int]] = {}

    def _key(self, name: str) -> str:
        return f"{self._cookie_prefix}-{name}"

    def get_cookie(self, name: str) -> str | None:
        return self._request.get_cookie(self._key(name))

    def set_cookie(self, name: str, value: str | int, exp: int | None = 3600) -> None:
        self._to_set[self._key(name)] = (str(value), exp or 3600)

    def apply(self, response: Response) -> Response:
        secure = self._request.is_secure()
        for key, (value, max_age) in self._to_set.items():
            # An LMS posts the launch from another site: over HTTPS the state cookie must be
            # SameSite=None to come back with it.
            response.set_cookie(
                key,
                value,
                max_age=max_age,
                httponly=True,
                secure=secure,
                samesite="none" if secure else "lax",
                path="/",
            )
        return response


class LtiRedirect(Redirect[Response]):
    def __init__(self, location: str, cookies: LtiCookies) -> None:
        self._location = location
        self._cookies = cookies

    def do_redirect(self) -> Response:
        return self._cookies.apply(RedirectResponse(self._location, status_code=302))

    def do_js_redirect(self) -> Response:
        return self.do_redirect()

    def set_redirect_url(self, location: str) -> None:
        self._location = location

    def get_redirect_url(self) -> str:
        return self._location


class DatabaseCache:
    """The cache interface pylti1p3's CacheDataStorage expects, on `lti_cache`."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def get(self, key: str) -> Any:
        with self.database.session() as session:
            row = stored.cached(session, key)
            if row is None or row.expires_at <= utcnow():
                return None
            return json.loads(json.dumps(row.value))

    def set(self, key: str, value: Any, exp: int | None = None) -> None:
        expires = utcnow() + timedelta(seconds=exp or DEFAULT_LIFETIME)
        with self.database.session() as session:
            stored.cache(session, key=key, value=value, expires_at=expires)


class DatabaseLaunchStorage(CacheDataStorage[Any]):
    def __init__(self, database: Database) -> None:
        super().__init__()
        self._cache = DatabaseCache(database)  # type: ignore[assignment]

    def get_session_cookie_name(self) -> str | None:
        # Keys are random (nonces, states, launch ids): no per-browser session prefix, so the
        # launch works even when the LMS opens it in a frame that drops our cookies.
        return None


def session_service(request: LtiRequest, storage: DatabaseLaunchStorage) -> SessionService:
    service = SessionService(request)
    storage.set_request(request)
    service.set_data_storage(storage)
    return service


class Login(OIDCLogin[LtiRequest, ToolConfDict, SessionService, LtiCookies, Response]):
    def __init__(self, request: LtiRequest, tool: ToolConfDict, storage: DatabaseLaunchStorage):
        self.cookies = LtiCookies(request)
        super().__init__(
            request,
            tool,
            session_service=session_service(request, storage),
            cookie_service=self.cookies,
        )

    def get_redirect(self, url: str) -> Redirect[Response]:
        return LtiRedirect(url, self.cookies)

    def get_response(self, html: str) -> Response:
        return self.cookies.apply(HTMLResponse(html))


class Launch(MessageLaunch[LtiRequest, ToolConfDict, SessionService, LtiCookies]):
    def __init__(
        self, request: LtiRequest, tool: ToolConfDict, storage: DatabaseLaunchStorage
    ) -> None:
        super().__init__(
            request,
            tool,
            session_service=session_service(request, storage),
            cookie_service=LtiCookies(request),
        )

    def _get_request_param(self, key: str) -> str:
        return self._request.get_param(key)

    def save_launch_data(self) -> Launch:
        """The last step of a launch that passed every check: its nonce is used up, so a
        captured id_token and state cannot be posted again to sign in (pylti1p3 alone accepts
        such a replay: it marks the state valid after the first launch)."""
        super().save_launch_data()
        nonce = str(self._get_jwt_body().get("nonce"))
        service = self._session_service
        service.data_storage.set_value(service._get_key("nonce", nonce), None, exp=60)
        return self
