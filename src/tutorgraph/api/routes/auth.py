"""Register, log in, log out, change password, and who am I."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response, status
from pydantic import BaseModel, Field

from tutorgraph import auth
from tutorgraph.api.openapi_problems import problem_responses
from tutorgraph.http.cookies import clear_session_cookie, set_session_cookie
from tutorgraph.http.deps import CurrentUser, SessionDep, SettingsDep, client_key, request_token
from tutorgraph.http.unit_of_work import UnitOfWorkRoute

router = APIRouter(route_class=UnitOfWorkRoute, prefix="/auth", tags=["auth"])


class RegisterIn(BaseModel):
    email: str = Field(max_length=320)
    password: str = Field(max_length=1024)
    name: str = Field(max_length=200)


class RegisterOut(BaseModel):
    email: str
    message: str


class LoginIn(BaseModel):
    email: str = Field(max_length=320)
    password: str = Field(max_length=1024)


class PasswordIn(BaseModel):
    current_password: str = Field(max_length=1024)
    new_password: str = Field(max_length=1024)


class TokenOut(BaseModel):
    access_token: str
    token_type: str = "bearer"


class UserOut(BaseModel):
    id: int
    email: str
    name: str
    role: str


@router.post("/register", status_code=status.HTTP_201_CREATED)
async def register(
    body: RegisterIn, request: Request, session: SessionDep, settings: SettingsDep
) -> RegisterOut:
    """Create a learner account. A taken email gets the same answer and changes nothing.
    Limited per client IP (429)."""
    await auth.register(
        session=session,
        settings=settings,
        email=body.email,
        password=body.password,
        name=body.name,
        client=client_key(request),
    )
    return RegisterOut(email=body.email.strip().lower(), message="Registered; log in to continue.")


@router.post("/login", responses=problem_responses(401, 429))
async def login(
    body: LoginIn, request: Request, response: Response, session: SessionDep, settings: SettingsDep
) -> TokenOut:
    """Exchange email and password for a bearer token (also set as an HTTP-only cookie).
    Repeated failures answer 429 for a while."""
    _, token = await auth.login(
        session=session,
        settings=settings,
        email=body.email,
        password=body.password,
        client=client_key(request),
    )
    set_session_cookie(response, settings=settings, token=token)
    return TokenOut(access_token=token)


@router.post("/logout", status_code=status.HTTP_204_NO_CONTENT)
def logout(
    request: Request, response: Response, session: SessionDep, settings: SettingsDep
) -> None:
    """Revoke the token of this request (bearer or cookie) and clear the cookie."""
    auth.logout(session=session, settings=settings, token=request_token(request))
    clear_session_cookie(response, settings=settings)


@router.post("/password")
async def change_password(
    body: PasswordIn,
    request: Request,
    response: Response,
    user: CurrentUser,
    session: SessionDep,
    settings: SettingsDep,
) -> TokenOut:
    """Change your password. Every token issued before stops working; the answer carries a new
    one (also set as the cookie)."""
    token = await auth.change_password(
        session=session,
        settings=settings,
        user_id=user.id,
        current_password=body.current_password,
        new_password=body.new_password,
        client=client_key(request),
    )
    set_session_cookie(response, settings=settings, token=token)
    return TokenOut(access_token=token)


@router.get("/me")
def me(user: CurrentUser) -> UserOut:
    return UserOut(id=user.id, email=user.email, name=user.name, role=user.role)
