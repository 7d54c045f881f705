"""Resumes and mock interviews over REST, and a WebSocket that streams an interviewer's turn.
A learner sees only their own resumes and interviews: anyone else's are not found."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, File, Form, UploadFile, WebSocket
from fastapi.responses import Response
from pydantic import BaseModel, Field
from starlette.websockets import WebSocketDisconnect, WebSocketState

from tutorgraph.api import ws_auth
from tutorgraph.api.openapi_problems import problem_responses
from tutorgraph.errors import InputError, NotFoundError, TutorgraphError
from tutorgraph.http.deps import CurrentUser, InterviewsDep, interview_service
from tutorgraph.interview.service import (
    MAX_ANSWER_CHARS,
    CodeRun,
    InterviewSummary,
    InterviewView,
    ResumeView,
)

router = APIRouter(tags=["interviews"])

RESUME_PATH = "/api/v1/resumes"
MAX_CODE_CHARS = 20_000
WORDS_PER_DELTA = 4


class InterviewIn(BaseModel):
    resume_id: str = Field(min_length=1, max_length=36)
    role: str = Field(default="Software engineer", max_length=120)
    level: Literal["junior", "mid", "senior", "staff"] = "mid"


class AnswerIn(BaseModel):
    text: str = Field(max_length=MAX_ANSWER_CHARS)


class CodeIn(BaseModel):
    code: str = Field(max_length=MAX_CODE_CHARS)


@router.post("/resumes", status_code=201, responses=problem_responses(413, 422))
async def add_resume(
    user: CurrentUser,
    service: InterviewsDep,
    file: Annotated[UploadFile | None, File(description="PDF, DOCX, Markdown or text")] = None,
    text: Annotated[str | None, Form(max_length=60_000)] = None,
) -> ResumeView:
    """Store a resume from a file or pasted text; the reply lists the anchors found in it."""
    data = None
    filename = ""
    if file is not None:
        data = await file.read(service.settings.max_resume_bytes + 1)
        filename = file.filename or "resume"
        if len(data) > service.settings.max_resume_bytes:
            raise InputError(
                f"{filename}: larger than the {service.settings.max_resume_bytes // 1024:,} KB "
                "a resume may be"
            )
    return await service.add_resume(user_id=user.id, filename=filename, data=data, text=text)


@router.get("/resumes")
async def resumes(user: CurrentUser, service: InterviewsDep) -> list[ResumeView]:
    return await service.resumes(user_id=user.id)


@router.delete("/resumes/{resume_id}", status_code=204, responses=problem_responses(404))
async def delete_resume(resume_id: str, user: CurrentUser, service: InterviewsDep) -> Response:
    """Delete a resume and every interview built from it."""
    await service.delete_resume(resume_id=resume_id, user_id=user.id)
    return Response(status_code=204)


@router.post("/interviews", status_code=201, responses=problem_responses(404, 422))
async def start(body: InterviewIn, user: CurrentUser, service: InterviewsDep) -> InterviewView:
    """Start an interview from one of your resumes; the reply holds the greeting and the first
    question."""
    return await service.start(
        user_id=user.id, resume_id=body.resume_id, role=body.role, level=body.level
    )


@router.get("/interviews")
async def interviews(user: CurrentUser, service: InterviewsDep) -> list[InterviewSummary]:
    return await service.list(user_id=user.id)


@router.get("/interviews/{interview_id}", responses=problem_responses(404))
async def status(interview_id: str, user: CurrentUser, service: InterviewsDep) -> InterviewView:
    return await service.get(interview_id=interview_id, user_id=user.id)


@router.post("/interviews/{interview_id}/answer", responses=problem_responses(404, 409, 422))
async def answer(
    interview_id: str, body: AnswerIn, user: CurrentUser, service: InterviewsDep
) -> InterviewView:
    return await service.answer(interview_id=interview_id, user_id=user.id, text=body.text)


@router.post("/interviews/{interview_id}/code", responses=problem_responses(404, 409, 503))
async def run_code(
    interview_id: str, body: CodeIn, user: CurrentUser, service: InterviewsDep
) -> CodeRun:
    """Run Python in the sandbox (no network, no files, CPU, memory, time and process limits)."""
    return await service.run_code(interview_id=interview_id, user_id=user.id, code=body.code)


@router.post("/interviews/{interview_id}/end", responses=problem_responses(404))
async def end(interview_id: str, user: CurrentUser, service: InterviewsDep) -> InterviewView:
    """End now: the interviewer evaluates what was said and closes."""
    return await service.end(interview_id=interview_id, user_id=user.id)


@router.get("/interviews/{interview_id}/scorecard", responses=problem_responses(404))
async def scorecard(
    interview_id: str, user: CurrentUser, service: InterviewsDep
) -> dict[str, object]:
    return dict(await service.scorecard(interview_id=interview_id, user_id=user.id))


@router.websocket("/interviews/{interview_id}/ws")
async def interview_ws(websocket: WebSocket, interview_id: str) -> None:
    """Send `{"type": "answer", "text": ...}`; receive `{"type": "node", "node": ...}` as each
    graph node finishes, the interviewer's new lines as `{"type": "text", "delta": ...}`, then
    `{"type": "turn", "interview": ...}`. Authenticate with the session cookie or a first
    message `{"type": "auth", "token": ...}`."""
    user = await ws_auth.websocket_user(websocket)
    if user is None:
        return
    service = interview_service(websocket.app.state)
    try:
        before = await service.get(interview_id=interview_id, user_id=user.id)
    except NotFoundError:
        await websocket.close(code=ws_auth.NOT_FOUND, reason="no such interview")
        return
    if websocket.client_state is WebSocketState.CONNECTING:
        await websocket.accept()
    try:
        while True:
            message = await websocket.receive_json()
            if not isinstance(message, dict) or message.get("type") != "answer":
                await websocket.send_json({"type": "error", "detail": "send an answer"})
                continue
            text = str(message.get("text", ""))[: MAX_ANSWER_CHARS + 1]
            seen = len(before.messages)
            try:
                async for node in service.answer_stream(
                    interview_id=interview_id, user_id=user.id, text=text
                ):
                    await websocket.send_json({"type": "node", "node": node})
                view = await service.get(interview_id=interview_id, user_id=user.id)
            except TutorgraphError as exc:
                await websocket.send_json({"type": "error", "detail": exc.message})
                continue
            for line in view.messages[seen:]:
                if line.role != "interviewer":
                    continue
                words = line.text.split(" ")
                for start in range(0, len(words), WORDS_PER_DELTA):
                    chunk = " ".join(words[start : start + WORDS_PER_DELTA])
                    await websocket.send_json({"type": "text", "delta": chunk + " "})
                await websocket.send_json({"type": "text", "delta": "\n\n"})
            await websocket.send_json({"type": "turn", "interview": view.model_dump(mode="json")})
            before = view
    except WebSocketDisconnect:
        return
