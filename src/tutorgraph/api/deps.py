"""Dependency aliases so route signatures read like prose.

One database session per request (`SessionDep`), committed before the response is sent. A
session holds a pool connection only while a transaction is open: the user lookup ends its
read transaction at once, so no request keeps a connection while it waits for a worker thread,
a password hash or a model."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import APIKeyCookie, HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.orm import Session

from tutorgraph import auth
from tutorgraph.errors import AuthenticationError, PermissionDeniedError
from tutorgraph.settings import Settings
from tutorgraph.store.db import Database
from tutorgraph.store.models import User

SESSION_COOKIE = "tutorgraph_session"


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_database(request: Request) -> Database:
    database: Database = request.app.state.db
    return database


def get_session(request: Request) -> Iterator[Session]:
    with get_database(request).session() as session:
        yield session


SettingsDep = Annotated[Settings, Depends(get_settings)]
DatabaseDep = Annotated[Database, Depends(get_database)]
# scope="function": the commit happens before the response leaves, so a client that reads
# right after a write (on this process or another) sees it.
SessionDep = Annotated[Session, Depends(get_session, scope="function")]


# Declared security schemes, so the OpenAPI document says how to authenticate.
bearer_scheme = HTTPBearer(
    auto_error=False, description="The `access_token` from `POST /api/v1/auth/login`."
)
cookie_scheme = APIKeyCookie(
    name=SESSION_COOKIE, auto_error=False, description="The HTTP-only cookie login sets."
)


def get_token(
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer_scheme)],
    cookie: Annotated[str | None, Depends(cookie_scheme)],
) -> str | None:
    """The access token: the bearer header if sent, else the session cookie."""
    return bearer.credentials if bearer is not None else cookie


TokenDep = Annotated[str | None, Depends(get_token)]


def get_optional_user(token: TokenDep, session: SessionDep, settings: SettingsDep) -> User | None:
    """The caller if a valid bearer token or session cookie came with the request."""
    if not token:
        return None
    user = auth.user_for_token(session=session, settings=settings, token=token)
    session.commit()  # end the lookup's transaction: its connection goes back to the pool
    return user


OptionalUser = Annotated[User | None, Depends(get_optional_user)]


def get_current_user(user: OptionalUser) -> User:
    if user is None:
        raise AuthenticationError("log in first: send a bearer token or the session cookie")
    return user


CurrentUser = Annotated[User, Depends(get_current_user)]


def require_role(*roles: str) -> Callable[[User], User]:
    def dependency(user: CurrentUser) -> User:
        if user.role not in roles:
            raise PermissionDeniedError(f"requires the {' or '.join(roles)} role")
        return user

    return dependency


InstructorUser = Annotated[User, Depends(require_role("instructor", "admin"))]


def client_key(request: Request) -> str:
    return request.client.host if request.client else "unknown"
