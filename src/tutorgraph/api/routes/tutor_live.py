"""Inline quiz answers (mastery moves) and the tutor WebSocket driven by the coordinator graph."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import BaseModel, Field

from tutorgraph.api.deps import SESSION_COOKIE, CurrentUser, DatabaseDep
from tutorgraph.api.openapi_problems import problem_responses
from tutorgraph.api.sse import payload
from tutorgraph.errors import AuthenticationError, InputError, TutorgraphError
from tutorgraph.limits import check_message
from tutorgraph.llm import TextDelta
from tutorgraph.security import decode_access_token
from tutorgraph.store import courses
from tutorgraph.store.db import Database
from tutorgraph.store.ids import DbId
from tutorgraph.store.models import User
from tutorgraph.tutor import sessions
from tutorgraph.tutor.context import MODES, Mode
from tutorgraph.tutor.quiz_grading import QuizOutcome, find_card, grade_choice
from tutorgraph.tutor.service import TurnRequest, TutorRuntime
from tutorgraph.tutor.session_graph import build_session_graph, run_turn

router = APIRouter(tags=["tutor"])


class QuizAnswerIn(BaseModel):
    lesson_id: DbId
    session_id: str = Field(min_length=1, max_length=36)
    quiz_id: str = Field(min_length=1, max_length=200)
    selected_index: int = Field(ge=0, le=20)


def _grade(database: Database, user: User, body: QuizAnswerIn) -> QuizOutcome:
    with database.session() as session:
        lesson = courses.get_lesson(session=session, lesson_id=body.lesson_id, user=user)
        chat = sessions.continued_tutor_session(
            session=session, user_id=user.id, lesson=lesson, session_id=body.session_id
        )
        return grade_choice(
            session=session,
            user_id=user.id,
            chat=chat,
            lesson=lesson,
            card=find_card(lesson, body.quiz_id),
            selected_index=body.selected_index,
        )


@router.post("/tutor/quiz-answer", responses=problem_responses(404))
async def quiz_answer(body: QuizAnswerIn, user: CurrentUser, database: DatabaseDep) -> QuizOutcome:
    """Grade an inline `<quiz>` card of the conversation `session_id`: correct iff
    `selected_index` is the card's correct index. The first answer to a card in a conversation
    counts: its score (1 or 0) updates your mastery of the card's concept. Answering the card
    again there returns that first outcome with `recorded` false and mastery unchanged."""
    return await asyncio.to_thread(_grade, database, user, body)


def _ws_user(websocket: WebSocket, database: Database) -> User | None:
    token = websocket.query_params.get("token") or websocket.cookies.get(SESSION_COOKIE)
    if not token:
        return None
    try:
        user_id = decode_access_token(websocket.app.state.settings, token)
    except AuthenticationError:
        return None
    with database.session() as session:
        user = session.get(User, user_id)
        if user is None or not user.is_active:
            return None
        session.expunge(user)
        return user


def _check_lesson(database: Database, user: User, lesson_id: int) -> None:
    with database.session() as session:
        courses.get_lesson(session=session, lesson_id=lesson_id, user=user)


@router.websocket("/tutor/ws/{lesson_id}")
async def tutor_ws(websocket: WebSocket, lesson_id: DbId) -> None:
    """Events in: `{"type": "message", "text", "mode"?}` and `{"type": "quiz_answer", "answer"}`.
    Events out: the SSE event payloads of the explain step (text, tool_call, tool_result, error),
    `{"type": "assistant", "text", "quiz"?}` for coordinator replies, `{"type": "feedback",
    "correct", "text"}` after a graded answer, and `{"type": "done"}` ending each turn."""
    database: Database = websocket.app.state.db
    user = await asyncio.to_thread(_ws_user, websocket, database)
    if user is None:
        await websocket.close(code=4401, reason="log in first")
        return
    try:
        await asyncio.to_thread(_check_lesson, database, user, lesson_id)
    except TutorgraphError:
        await websocket.close(code=4404, reason="no such lesson")
        return
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
