"""The tutor: streaming lesson chat and explore chat (SSE), and the learner's chat sessions."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Request, Response
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field

from tutorgraph.api.deps import (
    CurrentUser,
    SessionDep,
    SettingsDep,
)
from tutorgraph.api.openapi_problems import problem_responses
from tutorgraph.api.sse import sse_response
from tutorgraph.api.unit_of_work import UnitOfWorkRoute
from tutorgraph.errors import InputError
from tutorgraph.limits import check_message
from tutorgraph.llm import Model
from tutorgraph.store.ids import DbId
from tutorgraph.store.models import Lesson, User
from tutorgraph.tutor import sessions
from tutorgraph.tutor.context import Mode
from tutorgraph.tutor.quiz_grading import AnsweredCard, answered_cards
from tutorgraph.tutor.service import Kind, TurnRequest, TutorRuntime


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    yield
    runtime: TutorRuntime | None = getattr(app.state, "tutor_runtime", None)
    if runtime is not None:
        await runtime.aclose()


router = APIRouter(route_class=UnitOfWorkRoute, tags=["tutor"], lifespan=_lifespan)


async def get_runtime(request: Request) -> TutorRuntime:
    state = request.app.state
    runtime: TutorRuntime | None = getattr(state, "tutor_runtime", None)
    if runtime is None:
        runtime = TutorRuntime(database=state.db, indexes=state.search, settings=state.settings)
        state.tutor_runtime = runtime
    return runtime


RuntimeDep = Annotated[TutorRuntime, Depends(get_runtime)]


class TutorChatIn(BaseModel):
    lesson_id: DbId
    message: str = Field(min_length=1, description="At most `limits.max_message_chars` characters.")
    session_id: str | None = Field(default=None, max_length=64)
    mode: Mode = "default"


class ExploreChatIn(BaseModel):
    message: str = Field(min_length=1, description="At most `limits.max_message_chars` characters.")
    session_id: str | None = Field(default=None, max_length=64)
    mode: Mode = "default"


class MessageOut(BaseModel):
    id: int
    role: str
    content: str
    created_at: datetime
    interrupted: bool = Field(
        default=False,
        description="An assistant reply still streaming, or cut off: the text streamed so far.",
    )


class TutorSessionOut(BaseModel):
    id: str
    lesson_id: int
    lesson_title: str
    title: str
    created_at: datetime
    updated_at: datetime
    message_count: int


class TutorSessionDetail(TutorSessionOut):
    messages: list[MessageOut]
    quiz_answers: dict[str, AnsweredCard] = Field(
        description="quiz card id -> its latest answer here, for the cards answered here"
    )


class ExploreSessionOut(BaseModel):
    id: str
    title: str
    created_at: datetime
    updated_at: datetime
    message_count: int


class ExploreSessionDetail(ExploreSessionOut):
    messages: list[MessageOut]
    quiz_answers: dict[str, AnsweredCard] = Field(
        description="quiz card id -> its counted answer, for the cards answered here"
    )


_SSE: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "An SSE stream: `data: {json}` frames with `type` text, tool_call, "
        "tool_result or error, ended by `done`. The `X-Session-Id` header names the session.",
        "content": {"text/event-stream": {}},
    }
}


async def _start(
    request: Request,
    runtime: TutorRuntime,
    settings: SettingsDep,
    *,
    kind: Kind,
    user: User,
    message: str,
    mode: Mode,
    session_id: str | None,
    lesson_id: int | None = None,
) -> StreamingResponse:
    text = message.strip()
    if not text:
        raise InputError("message: must not be empty")
    check_message(settings=settings, text=text)
    model: Model = request.app.state.model
    turn = TurnRequest(
        kind=kind,
        user_id=user.id,
        message=text,
        mode=mode,
        session_id=session_id,
        lesson_id=lesson_id,
    )
    chat_id, events = await runtime.start(turn, model=model)
    return sse_response(events, session_id=chat_id)


@router.post(
    "/tutor/chat", response_class=StreamingResponse, responses={**_SSE, **problem_responses(404)}
)
async def tutor_chat(
    body: TutorChatIn,
    request: Request,
    user: CurrentUser,
    runtime: RuntimeDep,
    settings: SettingsDep,
) -> StreamingResponse:
    """Ask the lesson's tutor. Continue a conversation by sending its `session_id`."""
    return await _start(
        request,
        runtime,
        settings,
        kind="tutor",
        user=user,
        message=body.message,
        mode=body.mode,
        session_id=body.session_id,
        lesson_id=body.lesson_id,
    )


@router.post(
    "/explore/chat", response_class=StreamingResponse, responses={**_SSE, **problem_responses(404)}
)
async def explore_chat(
    body: ExploreChatIn,
    request: Request,
    user: CurrentUser,
    runtime: RuntimeDep,
    settings: SettingsDep,
) -> StreamingResponse:
    """Ask anything across the courses you can see (no lesson)."""
    return await _start(
        request,
        runtime,
        settings,
        kind="explore",
        user=user,
        message=body.message,
        mode=body.mode,
        session_id=body.session_id,
    )


@router.get("/tutor/sessions")
def list_tutor_sessions(
    session: SessionDep, user: CurrentUser, lesson_id: DbId | None = None
) -> list[TutorSessionOut]:
    """Your lesson conversations, most recent first (optionally for one lesson)."""
    rows = sessions.list_tutor_sessions(session=session, user_id=user.id, lesson_id=lesson_id)
    return [TutorSessionOut.model_validate(row, from_attributes=True) for row in rows]


@router.get("/tutor/sessions/{session_id}")
def open_tutor_session(
    session_id: str, session: SessionDep, user: CurrentUser
) -> TutorSessionDetail:
    chat = sessions.get_tutor_session(session=session, user_id=user.id, session_id=session_id)
    lesson = session.get(Lesson, chat.lesson_id)
    messages = sessions.tutor_messages(session=session, chat=chat)
    return TutorSessionDetail(
        id=chat.id,
        lesson_id=chat.lesson_id,
        lesson_title=lesson.title if lesson is not None else "",
        title=chat.title,
        created_at=chat.created_at,
        updated_at=chat.updated_at,
        message_count=len(messages),
        messages=[MessageOut.model_validate(m, from_attributes=True) for m in messages],
        quiz_answers=answered_cards(session=session, chat=chat, lesson=lesson),
    )


@router.delete("/tutor/sessions/{session_id}", status_code=204)
def delete_tutor_session(session_id: str, session: SessionDep, user: CurrentUser) -> Response:
    sessions.delete_tutor_session(session=session, user_id=user.id, session_id=session_id)
    return Response(status_code=204)


@router.get("/explore/sessions")
def list_explore_sessions(session: SessionDep, user: CurrentUser) -> list[ExploreSessionOut]:
    """Your explore conversations, most recent first."""
    rows = sessions.list_explore_sessions(session=session, user_id=user.id)
    return [ExploreSessionOut.model_validate(row, from_attributes=True) for row in rows]


@router.get("/explore/sessions/{session_id}")
def open_explore_session(
    session_id: str, session: SessionDep, user: CurrentUser
) -> ExploreSessionDetail:
    chat = sessions.get_explore_session(session=session, user_id=user.id, session_id=session_id)
    messages = sessions.explore_messages(session=session, chat=chat)
    return ExploreSessionDetail(
        id=chat.id,
        title=chat.title,
        created_at=chat.created_at,
        updated_at=chat.updated_at,
        message_count=len(messages),
        messages=[MessageOut.model_validate(m, from_attributes=True) for m in messages],
        quiz_answers=answered_cards(session=session, chat=chat, lesson=None),
    )


@router.delete("/explore/sessions/{session_id}", status_code=204)
def delete_explore_session(session_id: str, session: SessionDep, user: CurrentUser) -> Response:
    sessions.delete_explore_session(session=session, user_id=user.id, session_id=session_id)
    return Response(status_code=204)
