"""Who is on the other end of a WebSocket: the session cookie, or else a first message
`{"type": "auth", "token": ...}` (never a token in the URL, which access logs would keep); and
whether a browser's Origin may open one."""

from __future__ import annotations

import asyncio
from contextlib import suppress
from urllib.parse import urlsplit

from fastapi import WebSocket, WebSocketDisconnect

from tutorgraph import auth
from tutorgraph.http.cookies import SESSION_COOKIE
from tutorgraph.offload import run_blocking
from tutorgraph.settings import Settings
from tutorgraph.store.db import Database
from tutorgraph.store.models import User

ORIGIN_REFUSED = 4403
NOT_LOGGED_IN = 4401
NOT_FOUND = 4404


def origin_allowed(websocket: WebSocket, settings: Settings) -> bool:
    """Browsers always send Origin on a WebSocket: it must be this server itself or an origin
    the settings allow. (Clients that are not browsers send none and need a token anyway.)"""
    origin = websocket.headers.get("origin")
    if origin is None:
        return True
    if origin.rstrip("/") in {allowed.rstrip("/") for allowed in settings.allowed_origins}:
        return True
    return urlsplit(origin).netloc.lower() == websocket.headers.get("host", "").lower()


async def websocket_user(websocket: WebSocket) -> User | None:
    """The learner behind the socket, after the origin check; closes the socket (4403, 4401)
    and returns None when there is none. The socket may be accepted already on return."""
    database: Database = websocket.app.state.db
    settings: Settings = websocket.app.state.settings
    if not origin_allowed(websocket, settings):
        await websocket.close(code=ORIGIN_REFUSED, reason="origin not allowed")
        return None
    token = websocket.cookies.get(SESSION_COOKIE)
    if token is None:
        await websocket.accept()
        token = await _token_message(websocket, settings.limits.websocket_auth_seconds)
    user = None if token is None else await run_blocking(_user, database, settings, token)
    if user is None:
        with suppress(RuntimeError):  # the client may have gone already
            await websocket.close(code=NOT_LOGGED_IN, reason="log in first")
    return user


def _user(database: Database, settings: Settings, token: str) -> User | None:
    with database.session() as session:
        user = auth.user_for_token(session=session, settings=settings, token=token)
        if user is not None:
            session.expunge(user)
        return user


async def _token_message(websocket: WebSocket, seconds: float) -> str | None:
    """The token of a first `{"type": "auth", "token": ...}` message, if it comes in time."""
    try:
        event = await asyncio.wait_for(websocket.receive_json(), timeout=seconds)
    except (TimeoutError, ValueError, KeyError, WebSocketDisconnect):
        return None
    if isinstance(event, dict) and event.get("type") == "auth":
        token = event.get("token")
        return token if isinstance(token, str) and token else None
    return None
