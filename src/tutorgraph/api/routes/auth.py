"""Register, log in, log out, and who am I."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response, status
from pydantic import BaseModel, Field

from tutorgraph import auth
from tutorgraph.api.deps import SESSION_COOKIE, CurrentUser, SessionDep, SettingsDep, client_key
from tutorgraph.api.openapi_problems import problem_responses

router = APIRouter(prefix="/auth", tags=["auth"])


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


class TokenOut(BaseModel):
    access_token: str
    token_type: str = "bearer"


class UserOut(BaseModel):
    id: int
    email: str
    name: str
    role: str


@router.post("/register", status_code=status.HTTP_201_CREATED)
def register(body: RegisterIn, session: SessionDep) -> RegisterOut:
    """Create a learner account. A taken email gets the same answer and changes nothing."""
    auth.register(session=session, email=body.email, password=body.password, name=body.name)
    return RegisterOut(email=body.email.strip().lower(), message="Registered; log in to continue.")


@router.post("/login", responses=problem_responses(401, 429))
def login(
    body: LoginIn, request: Request, response: Response, session: SessionDep, settings: SettingsDep
) -> TokenOut:
    """Exchange email and password for a bearer token (also set as an HTTP-only cookie)."""
    _, token = auth.login(
        session=session,
        settings=settings,
        email=body.email,
        password=body.password,
        client=client_key(request),
    )
    set_session_cookie(response, token, settings.secure_cookies, settings.access_token_minutes)
    return TokenOut(access_token=token)


@router.post("/logout", status_code=status.HTTP_204_NO_CONTENT)
def logout(response: Response) -> None:
    response.delete_cookie(SESSION_COOKIE, path="/")


@router.get("/me")
def me(user: CurrentUser) -> UserOut:
    return UserOut(id=user.id, email=user.email, name=user.name, role=user.role)


def set_session_cookie(response: Response, token: str, secure: bool, minutes: int) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=minutes * 60,
        httponly=True,
        secure=secure,
        samesite="lax",
        path="/",
    )
