"""Guided tutor sessions (the coordinator graph: welcome, explain, quiz, grade, gaps, summary)
over REST and a WebSocket, keyed by session id. A session is one of your lesson conversations;
anyone else's is not found."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import BaseModel, Field
from starlette.websockets import WebSocketState

from tutorgraph.api import ws_auth
from tutorgraph.api.openapi_problems import problem_responses
from tutorgraph.api.sse import payload
from tutorgraph.errors import InputError, TutorgraphError
from tutorgraph.http.deps import (
    CoordinatorDep,
    CurrentUser,
    DatabaseDep,
    SettingsDep,
    coordinator,
)
from tutorgraph.http.unit_of_work import UnitOfWorkRoute
from tutorgraph.ids import DbId
from tutorgraph.limits import check_message
from tutorgraph.offload import run_blocking
from tutorgraph.store.db import Database
from tutorgraph.tutor.agent_loop import AgentEvent
from tutorgraph.tutor.context import MODES, Mode
from tutorgraph.tutor.coordinator import (
    GuidedSession,
    SessionStatus,
    SessionTurn,
    open_session,
    start_session,
)

router = APIRouter(route_class=UnitOfWorkRoute, prefix="/tutor/session", tags=["tutor"])


class SessionStartIn(BaseModel):
    lesson_id: DbId


class SessionChatIn(BaseModel):
    session_id: str = Field(min_length=1, max_length=36)
    message: str = Field(min_length=1, description="At most `limits.max_message_chars` characters.")
    type: Literal["message", "quiz_answer"] = Field(
        default="message",
        description="`quiz_answer`: the message answers the open question (a letter, a number "
        "or the option's text); a message sent while a question is open is read as its answer "
        "unless it asks for something else.",
    )
    mode: Mode = "default"


async def _owned(database: Database, user_id: int, session_id: str) -> GuidedSession:
    return await run_blocking(
        lambda: open_session(database=database, user_id=user_id, session_id=session_id)
    )


@router.post("/start", status_code=201, responses=problem_responses(404))
async def start(
    body: SessionStartIn, user: CurrentUser, database: DatabaseDep, tutor: CoordinatorDep
) -> SessionTurn:
    """Start a guided session about a lesson: the reply is the tutor's welcome."""
    guided = await run_blocking(
        lambda: start_session(database=database, user=user, lesson_id=body.lesson_id)
    )
    return await tutor.turn(guided, None)


@router.post("/chat", responses=problem_responses(404))
async def chat(
    body: SessionChatIn,
    user: CurrentUser,
    database: DatabaseDep,
    settings: SettingsDep,
    tutor: CoordinatorDep,
) -> SessionTurn:
    """One turn: ask (the tutor explains), say *quiz me*, answer the open question, ask *what
    should I review*, or *summarize*. The replies are everything the tutor said this turn."""
    text = check_message(settings=settings, text=body.message.strip())
    if not text:
        raise InputError("message: must not be empty")
    guided = await _owned(database, user.id, body.session_id)
    return await tutor.turn(guided, text, kind=body.type, mode=body.mode)


@router.get("/status/{session_id}", responses=problem_responses(404))
async def status(
    session_id: str, user: CurrentUser, database: DatabaseDep, tutor: CoordinatorDep
) -> SessionStatus:
    """Where the session stands: the open question, quiz progress, what it covered and what
    to review."""
    return await tutor.status(await _owned(database, user.id, session_id))


@router.post("/end/{session_id}", responses=problem_responses(404))
async def end(
    session_id: str, user: CurrentUser, database: DatabaseDep, tutor: CoordinatorDep
) -> SessionTurn:
    """End the session: the reply is its summary. A later message starts it again."""
    guided = await _owned(database, user.id, session_id)
    return await tutor.turn(guided, None, kind="end")


@router.websocket("/ws/{session_id}")
async def session_ws(websocket: WebSocket, session_id: str) -> None:
    """Authenticate with the session cookie, or else with a first message `{"type": "auth",
    "token"}` within `limits.websocket_auth_seconds` (never a token in the URL). A browser's
    Origin must be this server or one of `allowed_origins`. Closes with 4403 (origin), 4401
    (not logged in) or 4404 (no such session of yours).
    Events in: `{"type": "message", "text", "mode"?}`, `{"type": "quiz_answer", "answer"}` and
    `{"type": "end"}`. Events out: the SSE event payloads of an explanation as it streams (text,
    tool_call, tool_result, error), `{"type": "assistant", "text", "quiz"?}` for the tutor's
    other replies, `{"type": "feedback", "correct", "text"}` for a graded answer, and
    `{"type": "done", "session_id", "status"}` ending each turn (the first one greets)."""
    user = await ws_auth.websocket_user(websocket)
    if user is None:
        return
    state = websocket.app.state
    try:
        guided = await _owned(state.db, user.id, session_id)
    except TutorgraphError:
        await websocket.close(code=ws_auth.NOT_FOUND, reason="no such session")
        return
    if websocket.client_state is WebSocketState.CONNECTING:
        await websocket.accept()

    async def stream(event: AgentEvent) -> None:
        await websocket.send_json(payload(event))

    async def turn(text: str | None, kind: Any = "message", mode: Mode = "default") -> None:
        done = await coordinator(state).turn(guided, text, kind=kind, mode=mode, on_event=stream)
        for reply in done.replies:
            await websocket.send_json(reply.model_dump(mode="json", exclude_none=True))
        status = done.status.model_dump(mode="json")
        await websocket.send_json({"type": "done", "session_id": guided.id, "status": status})

    mode: Mode = "default"  # the last teaching mode a message asked for
    try:
        await turn(None)
        while True:
            event = await websocket.receive_json()
            kind = event.get("type") if isinstance(event, dict) else None
            if kind == "message" and isinstance(event.get("text"), str) and event["text"].strip():
                try:
                    text = check_message(settings=state.settings, text=event["text"])
                except InputError as exc:
                    await websocket.send_json({"type": "error", "message": exc.message})
                    continue
                if event.get("mode") in MODES:
                    mode = event["mode"]
                await turn(text, mode=mode)
            elif kind == "quiz_answer" and event.get("answer") is not None:
                await turn(str(event["answer"]), "quiz_answer", mode)
            elif kind == "end":
                await turn(None, "end", mode)
            else:
                await websocket.send_json(
                    {"type": "error", "message": "send {type: message, text}, quiz_answer or end"}
                )
    except WebSocketDisconnect:
        return
