"""Dependency aliases so route signatures read like prose."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.orm import Session

from tutorgraph.errors import AuthenticationError, PermissionDeniedError
from tutorgraph.security import decode_access_token
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
SessionDep = Annotated[Session, Depends(get_session)]


def _token_from(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value:
        return value.strip()
    return request.cookies.get(SESSION_COOKIE)


def get_optional_user(request: Request, session: SessionDep, settings: SettingsDep) -> User | None:
    """The caller if a valid bearer token or session cookie came with the request."""
    token = _token_from(request)
    if not token:
        return None
    try:
        user_id = decode_access_token(settings, token)
    except AuthenticationError:
        return None
    user = session.get(User, user_id)
    return user if user is not None and user.is_active else None


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
