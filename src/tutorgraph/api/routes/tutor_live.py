"""Inline quiz answers (mastery moves) and the tutor WebSocket driven by the coordinator graph."""

from __future__ import annotations

import asyncio
from contextlib import suppress
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import BaseModel, Field
from starlette.websockets import WebSocketState

from tutorgraph import auth
from tutorgraph.api.cookies import SESSION_COOKIE
from tutorgraph.api.deps import CurrentUser, DatabaseDep
from tutorgraph.api.openapi_problems import problem_responses
from tutorgraph.api.sse import payload
from tutorgraph.api.unit_of_work import UnitOfWorkRoute
from tutorgraph.errors import InputError, TutorgraphError
from tutorgraph.limits import check_message
from tutorgraph.llm import TextDelta
from tutorgraph.settings import Settings
from tutorgraph.store import courses
from tutorgraph.store.db import Database
from tutorgraph.store.ids import DbId
from tutorgraph.store.models import ExplorationSession, Lesson, TutorSession, User
from tutorgraph.tutor import sessions
from tutorgraph.tutor.context import MODES, Mode
from tutorgraph.tutor.quiz_grading import WHY_CHARS, QuizOutcome, grade_choice
from tutorgraph.tutor.service import TurnRequest, TutorRuntime
from tutorgraph.tutor.session_graph import build_session_graph, run_turn

router = APIRouter(route_class=UnitOfWorkRoute, tags=["tutor"])


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
    return await asyncio.to_thread(_grade, database, user, body)


def _ws_user(database: Database, settings: Settings, token: str) -> User | None:
    with database.session() as session:
        user = auth.user_for_token(session=session, settings=settings, token=token)
        if user is not None:
            session.expunge(user)
        return user


def _origin_allowed(websocket: WebSocket, settings: Settings) -> bool:
    """Browsers always send Origin on a WebSocket: it must be this server itself or an origin
    the settings allow. (Clients that are not browsers send none and need a token anyway.)"""
    origin = websocket.headers.get("origin")
    if origin is None:
        return True
    if origin.rstrip("/") in {allowed.rstrip("/") for allowed in settings.allowed_origins}:
        return True
    return urlsplit(origin).netloc.lower() == websocket.headers.get("host", "").lower()


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


async def _authenticate(
    websocket: WebSocket, database: Database, settings: Settings
) -> User | None:
    """The session cookie, else a first auth message (after accepting): never a URL token,
    which would end up in access logs."""
    token = websocket.cookies.get(SESSION_COOKIE)
    if token is None:
        await websocket.accept()
        token = await _token_message(websocket, settings.limits.websocket_auth_seconds)
    if token is None:
        return None
    return await asyncio.to_thread(_ws_user, database, settings, token)


def _check_lesson(database: Database, user: User, lesson_id: int) -> None:
    with database.session() as session:
        courses.get_lesson(session=session, lesson_id=lesson_id, user=user)


@router.websocket("/tutor/ws/{lesson_id}")
async def tutor_ws(websocket: WebSocket, lesson_id: DbId) -> None:
    """Authenticate with the session cookie, or else with a first message `{"type": "auth",
    "token"}` within `limits.websocket_auth_seconds` (never a token in the URL). A browser's
    Origin must be this server or one of `allowed_origins`. Closes with 4403 (origin), 4401
    (not logged in) or 4404 (no such lesson).
    Events in: `{"type": "message", "text", "mode"?}` and `{"type": "quiz_answer", "answer"}`.
    Events out: the SSE event payloads of the explain step (text, tool_call, tool_result, error),
    `{"type": "assistant", "text", "quiz"?}` for coordinator replies, `{"type": "feedback",
    "correct", "text"}` after a graded answer, and `{"type": "done"}` ending each turn."""
    database: Database = websocket.app.state.db
    settings: Settings = websocket.app.state.settings
    if not _origin_allowed(websocket, settings):
        await websocket.close(code=4403, reason="origin not allowed")
        return
    user = await _authenticate(websocket, database, settings)
    if user is None:
        with suppress(RuntimeError):  # the client may have gone already
            await websocket.close(code=4401, reason="log in first")
        return
    try:
        await asyncio.to_thread(_check_lesson, database, user, lesson_id)
    except TutorgraphError:
        await websocket.close(code=4404, reason="no such lesson")
        return
    if websocket.client_state is WebSocketState.CONNECTING:
        await websocket.accept()
    graph = build_session_graph(websocket.app.state.checkpointer)
    runtime = _runtime(websocket)
    chat_id: list[str | None] = [None]
    mode: list[Mode] = ["default"]  # the last teaching mode a message asked for

    async def explain(question: str) -> str:
        turn = TurnRequest(
            kind="tutor",
            user_id=user.id,
            message=question,
            mode=mode[0],
            session_id=chat_id[0],
            lesson_id=lesson_id,
        )
        chat_id[0], events = await runtime.start(turn, model=websocket.app.state.model)
        parts: list[str] = []
        async for event in events:
            if isinstance(event, TextDelta):
                parts.append(event.delta)
            await websocket.send_json(payload(event))
        return "".join(parts)

    async def turn(text: str | None, kind: Any = "message") -> None:
        state = await run_turn(
            graph,
            database=database,
            user_id=user.id,
            lesson_id=lesson_id,
            text=text,
            kind=kind,
            explain=explain,
        )
        for reply in state.get("replies", []):
            if reply.get("streamed"):
                continue
            out = {"type": "assistant", "text": reply["text"]}
            if "quiz" in reply:
                out["quiz"] = reply["quiz"]
            await websocket.send_json(out)
        if kind == "quiz_answer" and state.get("last_answer_correct") is not None:
            await websocket.send_json(
                {
                    "type": "feedback",
                    "correct": state.get("last_answer_correct"),
                    "text": state.get("last_feedback", ""),
                }
            )
        await websocket.send_json({"type": "done", "session_id": chat_id[0]})

    try:
        await turn(None)
        while True:
            event = await websocket.receive_json()
            kind = event.get("type") if isinstance(event, dict) else None
            if kind == "message" and isinstance(event.get("text"), str) and event["text"].strip():
                try:
                    text = check_message(settings=websocket.app.state.settings, text=event["text"])
                except InputError as exc:
                    await websocket.send_json({"type": "error", "message": exc.message})
                    continue
                if event.get("mode") in MODES:
                    mode[0] = event["mode"]
                await turn(text)
            elif kind == "quiz_answer" and event.get("answer") is not None:
                await turn(str(event["answer"]), "quiz_answer")
            else:
                await websocket.send_json(
                    {"type": "error", "message": "send {type: message, text} or quiz_answer"}
                )
    except WebSocketDisconnect:
        return


def _runtime(websocket: WebSocket) -> TutorRuntime:
    state = websocket.app.state
    runtime: TutorRuntime | None = getattr(state, "tutor_runtime", None)
    if runtime is None:
        runtime = TutorRuntime(database=state.db, indexes=state.search, settings=state.settings)
        state.tutor_runtime = runtime
    return runtime
