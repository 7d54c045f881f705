"""The tutor chat: streaming lesson chat and explore chat (SSE), the learner's conversations of
both kinds, and answers to the quiz cards they show."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

from fastapi import APIRouter, FastAPI, Request, Response
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field, model_validator
from sqlalchemy.orm import Session

from tutorgraph.api.openapi_problems import problem_responses
from tutorgraph.api.sse import sse_response
from tutorgraph.http.deps import CurrentUser, DatabaseDep, RuntimeDep, SessionDep, SettingsDep
from tutorgraph.http.unit_of_work import UnitOfWorkRoute
from tutorgraph.ids import DbId
from tutorgraph.limits import check_message
from tutorgraph.offload import run_blocking
from tutorgraph.store import courses
from tutorgraph.store.db import Database
from tutorgraph.store.models import ExplorationSession, Lesson, TutorSession, User
from tutorgraph.tutor import sessions
from tutorgraph.tutor.context import Mode
from tutorgraph.tutor.quiz_grading import (
    WHY_CHARS,
    AnsweredCard,
    QuizOutcome,
    answered_cards,
    grade_choice,
)
from tutorgraph.tutor.service import Kind, TurnRequest, TutorRuntime


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    yield
    runtime: TutorRuntime | None = getattr(app.state, "tutor_runtime", None)
    if runtime is not None:
        await runtime.aclose()


router = APIRouter(route_class=UnitOfWorkRoute, tags=["tutor"], lifespan=_lifespan)


class ExploreChatIn(BaseModel):
    message: str = Field(min_length=1, description="At most `limits.max_message_chars` characters.")
    session_id: str | None = Field(default=None, max_length=64)
    mode: Mode = "default"


class TutorChatIn(ExploreChatIn):
    lesson_id: DbId
    message: str = Field(
        default="",
        description="At most `limits.max_message_chars` characters; empty only with `focus`.",
    )
    focus: str | None = Field(
        default=None,
        max_length=200,
        description="A concept of the lesson: the tutor opens a new conversation on it, in "
        "`mode`, with no message from the learner (the learning path's 'see it explained "
        "another way').",
    )

    @model_validator(mode="after")
    def _message_or_focus(self) -> TutorChatIn:
        if self.focus is not None and (self.message.strip() or self.session_id):
            raise ValueError("focus opens a new conversation: send it without a message")
        return self


class MessageOut(BaseModel):
    id: int
    role: str
    content: str
    created_at: datetime
    interrupted: bool = Field(
        default=False,
        description="An assistant reply still streaming, or cut off: the text streamed so far.",
    )


class ExploreSessionOut(BaseModel):
    id: str
    title: str
    created_at: datetime
    updated_at: datetime
    message_count: int


class TutorSessionOut(ExploreSessionOut):
    lesson_id: int
    lesson_title: str


class ExploreSessionDetail(ExploreSessionOut):
    messages: list[MessageOut]
    quiz_answers: dict[str, AnsweredCard] = Field(
        description="quiz card id -> how it was last answered here, for the cards answered here"
    )


class TutorSessionDetail(ExploreSessionDetail, TutorSessionOut):
    pass


class QuizAnswerIn(BaseModel):
    lesson_id: DbId | None = Field(
        default=None, description="The lesson of a lesson conversation; none for an explore chat."
    )
    session_id: str = Field(min_length=1, max_length=36)
    quiz_id: str = Field(min_length=1, max_length=200)
    selected_index: int = Field(ge=0, le=20)
    why: str = Field(
        default="", max_length=WHY_CHARS, description="The learner's short reason (optional)."
    )


_SSE: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "An SSE stream: `data: {json}` frames with `type` text, tool_call, "
        "tool_result or error, ended by `done`. The `X-Session-Id` header names the session. "
        "A `<quiz>` card in the text carries its id, question and options, never its answer.",
        "content": {"text/event-stream": {}},
    }
}


async def _stream(
    request: Request, runtime: TutorRuntime, settings: SettingsDep, turn: TurnRequest
) -> StreamingResponse:
    text = turn.message.strip()
    if text:  # an empty one is refused once the lesson is known to be yours (prepare_turn)
        check_message(settings=settings, text=text)
    chat_id, events = await runtime.start(
        TurnRequest(
            kind=turn.kind,
            user_id=turn.user_id,
            message=text,
            mode=turn.mode,
            session_id=turn.session_id,
            lesson_id=turn.lesson_id,
            focus=turn.focus,
        ),
        model=request.app.state.model,
    )
    return sse_response(events, session_id=chat_id)


def _turn(kind: Kind, user: User, body: ExploreChatIn, lesson_id: int | None) -> TurnRequest:
    return TurnRequest(
        kind=kind,
        user_id=user.id,
        message=body.message,
        mode=body.mode,
        session_id=body.session_id,
        lesson_id=lesson_id,
        focus=body.focus if isinstance(body, TutorChatIn) else None,
    )


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
    return await _stream(request, runtime, settings, _turn("tutor", user, body, body.lesson_id))


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
    return await _stream(request, runtime, settings, _turn("explore", user, body, None))


@router.get("/tutor/sessions")
def list_tutor_sessions(
    session: SessionDep, user: CurrentUser, lesson_id: DbId | None = None
) -> list[TutorSessionOut]:
    """Your lesson conversations, most recent first (optionally for one lesson)."""
    rows = sessions.list_tutor_sessions(session=session, user_id=user.id, lesson_id=lesson_id)
    return [TutorSessionOut.model_validate(row, from_attributes=True) for row in rows]


@router.get("/explore/sessions")
def list_explore_sessions(session: SessionDep, user: CurrentUser) -> list[ExploreSessionOut]:
    """Your explore conversations, most recent first."""
    rows = sessions.list_explore_sessions(session=session, user_id=user.id)
    return [ExploreSessionOut.model_validate(row, from_attributes=True) for row in rows]


def _detail(
    session: Session, chat: TutorSession | ExplorationSession, lesson: Lesson | None
) -> dict[str, Any]:
    """What both kinds of conversation show when opened."""
    messages = (
        sessions.tutor_messages(session=session, chat=chat)
        if isinstance(chat, TutorSession)
        else sessions.explore_messages(session=session, chat=chat)
    )
    return {
        "id": chat.id,
        "title": chat.title,
        "created_at": chat.created_at,
        "updated_at": chat.updated_at,
        "message_count": len(messages),
        "messages": [MessageOut.model_validate(m, from_attributes=True) for m in messages],
        "quiz_answers": answered_cards(session=session, chat=chat, lesson=lesson),
    }


@router.get("/tutor/sessions/{session_id}")
def open_tutor_session(
    session_id: str, session: SessionDep, user: CurrentUser
) -> TutorSessionDetail:
    chat = sessions.get_tutor_session(session=session, user_id=user.id, session_id=session_id)
    lesson = session.get(Lesson, chat.lesson_id)
    return TutorSessionDetail(
        **_detail(session, chat, lesson),
        lesson_id=chat.lesson_id,
        lesson_title=lesson.title if lesson is not None else "",
    )


@router.get("/explore/sessions/{session_id}")
def open_explore_session(
    session_id: str, session: SessionDep, user: CurrentUser
) -> ExploreSessionDetail:
    chat = sessions.get_explore_session(session=session, user_id=user.id, session_id=session_id)
    return ExploreSessionDetail(**_detail(session, chat, None))


@router.delete("/tutor/sessions/{session_id}", status_code=204)
def delete_tutor_session(session_id: str, session: SessionDep, user: CurrentUser) -> Response:
    sessions.delete_tutor_session(session=session, user_id=user.id, session_id=session_id)
    return Response(status_code=204)


@router.delete("/explore/sessions/{session_id}", status_code=204)
def delete_explore_session(session_id: str, session: SessionDep, user: CurrentUser) -> Response:
    sessions.delete_explore_session(session=session, user_id=user.id, session_id=session_id)
    return Response(status_code=204)


def _grade(database: Database, user: User, body: QuizAnswerIn) -> QuizOutcome:
    with database.session() as session:
        lesson: Lesson | None = None
        chat: TutorSession | ExplorationSession
        if body.lesson_id is not None:
            lesson = courses.get_lesson(session=session, lesson_id=body.lesson_id, user=user)
            chat = sessions.continued_tutor_session(
                session=session, user_id=user.id, lesson=lesson, session_id=body.session_id
            )
        else:
            chat = sessions.get_explore_session(
                session=session, user_id=user.id, session_id=body.session_id
            )
        return grade_choice(
            session=session,
            user_id=user.id,
            chat=chat,
            lesson=lesson,
            quiz_id=body.quiz_id,
            selected_index=body.selected_index,
            why=body.why,
        )


@router.post("/tutor/quiz-answer", responses=problem_responses(404))
async def quiz_answer(body: QuizAnswerIn, user: CurrentUser, database: DatabaseDep) -> QuizOutcome:
    """Grade a `<quiz>` card of the conversation `session_id` (a lesson conversation with its
    `lesson_id`, or an explore chat without one): correct iff `selected_index` is the card's
    right option, which the chat never sent. Only a card the tutor has shown you counts (404
    otherwise), and only your first answer to it, in any conversation, moves your mastery of
    its concept (`recorded`). A wrong answer does not reveal the right option; a retry is
    graded but never moves mastery. `why`, your reason, comes back with the verdict."""
    return await run_blocking(_grade, database, user, body)
