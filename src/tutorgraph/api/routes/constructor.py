"""The course constructor over REST, SSE and a WebSocket (spec: session start / chat / status,
upload, and `/api/v1/constructor/session/ws/{session_id}`). A build is its author's only: anyone
else's is not found. Turns run in the background; progress arrives as events."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Request, UploadFile, WebSocket
from fastapi.responses import Response, StreamingResponse
from pydantic import BaseModel, Field
from starlette.websockets import WebSocketDisconnect, WebSocketState

from tutorgraph.api import ws_auth
from tutorgraph.api.openapi_problems import problem_responses
from tutorgraph.api.uploaded_images import uploaded_image_response
from tutorgraph.constructor.service import (
    BuildView,
    EventOut,
    TurnIn,
    UploadOut,
)
from tutorgraph.errors import NotFoundError, TutorgraphError
from tutorgraph.http.deps import ConstructorDep, CurrentUser, OptionalUser, constructor_service
from tutorgraph.ids import DbCursor, parse_cursor
from tutorgraph.offload import run_blocking

router = APIRouter(prefix="/constructor", tags=["constructor"])

EVENT_POLL_SECONDS = 0.5
UPLOAD_PATH = "/api/v1/constructor/session/upload"


class StartIn(BaseModel):
    title: str = Field(default="", max_length=300)


class ChatIn(TurnIn):
    session_id: str = Field(min_length=1, max_length=36)


@router.post("/session/start", status_code=201)
async def start(body: StartIn, user: CurrentUser, service: ConstructorDep) -> BuildView:
    """Start a build: the reply carries the assistant's welcome."""
    return await service.start(user=user, title=body.title)


@router.get("/sessions")
async def sessions(user: CurrentUser, service: ConstructorDep) -> list[dict[str, Any]]:
    """Your builds, latest first."""
    return await run_blocking(service.builds, user=user)


@router.post("/session/chat", status_code=202, responses=problem_responses(404, 409))
async def chat(body: ChatIn, user: CurrentUser, service: ConstructorDep) -> BuildView:
    """One turn: a message, an explicit `action` (ingest, build_structure, generate_quiz,
    validate, publish), or, at a review step, `edits` and `approve` (structure edits: rename,
    rename_unit, merge, move, drop, add_prerequisite, remove_prerequisite, split_topic,
    move_unit; a message there is read as approval or one of these, or refused with what can
    be said). Publishing a course whose readiness is below the bar answers 409 with the failed
    checks unless the turn says `confirm: true`. It runs in the background: follow
    `GET /session/events/{id}` or poll the status."""
    turn = TurnIn.model_validate(body.model_dump(exclude={"session_id"}))
    return await service.submit(session_id=body.session_id, user=user, turn=turn)


@router.get("/session/status/{session_id}", responses=problem_responses(404))
async def status(session_id: str, user: CurrentUser, service: ConstructorDep) -> BuildView:
    return await service.view(session_id=session_id, user=user)


@router.post("/session/upload", status_code=201, responses=problem_responses(404, 409, 413))
async def upload(
    user: CurrentUser,
    service: ConstructorDep,
    session_id: Annotated[str, Form(max_length=36)],
    file: Annotated[UploadFile, File(description="Markdown, text, HTML, PDF or DOCX")],
) -> UploadOut:
    """Add one file to a build (its type is read from its content; the size limit is
    `limits.max_upload_bytes`). The next turn reads it."""
    data = await file.read(service.limits.max_bytes + 1)
    return await run_blocking(
        service.upload,
        session_id=session_id,
        user=user,
        filename=file.filename or "upload",
        data=data,
    )


@router.delete(
    "/session/{session_id}/uploads/{upload_id}", status_code=204, responses=problem_responses(404)
)
async def remove_upload(
    session_id: str, upload_id: str, user: CurrentUser, service: ConstructorDep
) -> Response:
    await run_blocking(service.remove_upload, session_id=session_id, user=user, upload_id=upload_id)
    return Response(status_code=204)


@router.get("/session/events/{session_id}", responses=problem_responses(404))
async def events(
    session_id: str,
    request: Request,
    user: CurrentUser,
    service: ConstructorDep,
    after: DbCursor = 0,
) -> StreamingResponse:
    """Progress as server-sent events (`id:` is the event id; a reconnecting browser's
    Last-Event-ID resumes after it). The stream ends when the build is idle again."""
    last = parse_cursor(request.headers.get("last-event-id", ""))
    start_after = after if last is None else last
    await run_blocking(service.status, session_id=session_id, user=user)  # 404 if not yours

    async def stream() -> AsyncIterator[str]:
        cursor = start_after
        while True:
            # Status first: a turn writes its last event before it turns idle.
            status = await run_blocking(service.status, session_id=session_id, user=user)
            batch: list[EventOut] = await run_blocking(
                service.events, session_id=session_id, user=user, after=cursor
            )
            for event in batch:
                cursor = event.id
                yield f"id: {event.id}\ndata: {json.dumps(event.model_dump())}\n\n"
            if status != "running" and not batch:
                yield f"event: end\ndata: {json.dumps({'status': status})}\n\n"
                return
            if await request.is_disconnected():
                return
            await asyncio.sleep(EVENT_POLL_SECONDS)

    return StreamingResponse(stream(), media_type="text/event-stream")


@router.get("/images/{session_id}/{image_id}", responses=problem_responses(404))
async def image(
    session_id: str, image_id: str, user: OptionalUser, service: ConstructorDep
) -> Response:
    """An image from a build's sources: its author sees it, and so does anyone who can see the
    course it was published in."""
    found = await run_blocking(service.image, session_id=session_id, image_id=image_id, user=user)
    # an SVG is redrawn without scripts; every image is served sandboxed (uploaded_images)
    return await run_blocking(uploaded_image_response, found.media_type, found.data)


@router.websocket("/session/ws/{session_id}")
async def session_ws(websocket: WebSocket, session_id: str) -> None:
    """Send `{"type": "message", "message": ...}` (or `action`, `edits`, `approve`); receive
    `{"type": "progress", ...}` events, then `{"type": "status", ...}` with the build and
    `{"type": "done"}` when the turn ends. Authenticate with the session cookie or a first
    message `{"type": "auth", "token": ...}`."""
    user = await ws_auth.websocket_user(websocket)
    if user is None:
        return
    service = constructor_service(websocket.app.state)
    try:
        await run_blocking(service.status, session_id=session_id, user=user)
    except NotFoundError:
        await websocket.close(code=ws_auth.NOT_FOUND, reason="no such build")
        return
    if websocket.client_state is WebSocketState.CONNECTING:
        await websocket.accept()
    try:
        while True:
            message = await websocket.receive_json()
            if not isinstance(message, dict) or message.get("type") not in ("message", "turn"):
                await websocket.send_json({"type": "error", "message": "send a message"})
                continue
            try:
                turn = TurnIn.model_validate({k: v for k, v in message.items() if k != "type"})
                view = await service.submit(session_id=session_id, user=user, turn=turn)
            except (TutorgraphError, ValueError) as exc:
                text = exc.message if isinstance(exc, TutorgraphError) else str(exc)
                await websocket.send_json({"type": "error", "message": text})
                continue
            cursor = view.last_event_id
            while True:
                status = await run_blocking(service.status, session_id=session_id, user=user)
                batch = await run_blocking(
                    service.events, session_id=session_id, user=user, after=cursor
                )
                for event in batch:
                    cursor = event.id
                    await websocket.send_json({"type": "progress", **event.model_dump()})
                if status != "running" and not batch:
                    break
                await asyncio.sleep(EVENT_POLL_SECONDS)
            view = await service.view(session_id=session_id, user=user)
            reply = view.messages[-1]["content"] if view.messages else ""
            await websocket.send_json({"type": "message", "content": reply})
            await websocket.send_json(
                {"type": "status", "build": view.model_dump(mode="json", exclude={"messages"})}
            )
            await websocket.send_json({"type": "done", "status": view.status})
    except WebSocketDisconnect:
        return
