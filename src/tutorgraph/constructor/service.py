"""Course builds for the web and the terminal: sessions, uploads, turns run as background jobs
with progress events in the store, and the view the page and the API show.

A turn (a chat message, an action, or a review decision) is submitted; it runs in the job runner
(in process by default) against the session's LangGraph thread, so a killed process loses
nothing: the session stays `running`, and `recover()` at the next start-up continues the thread
from its last checkpoint. Publishing is an upsert, so a retried turn never duplicates rows."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import uuid
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Protocol, cast

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.types import Command
from pydantic import BaseModel, Field, ValidationError
from sqlalchemy.orm import Session

from tutorgraph import observability
from tutorgraph.constructor import publish as publishing
from tutorgraph.constructor import readiness, steps
from tutorgraph.constructor.context import ConstructorContext, Upload
from tutorgraph.constructor.coordinator import below_the_bar, short_error
from tutorgraph.constructor.edits import QUIZ_EDITS, STRUCTURE_EDITS, split_points
from tutorgraph.constructor.graph import ConstructorGraph, compile_graph
from tutorgraph.constructor.state import (
    ConstructorState,
    CourseStructure,
    ProgressEvent,
    QuizBank,
    ReadinessReport,
)
from tutorgraph.content.extract import ExtractionError, ExtractionLimits, sniff_kind
from tutorgraph.errors import ConflictError, InputError, NotFoundError, TooLargeError
from tutorgraph.llm import Model
from tutorgraph.offload import run_blocking
from tutorgraph.store import constructor as build_store
from tutorgraph.store import courses as course_store
from tutorgraph.store.db import Database
from tutorgraph.store.models import (
    ConstructorImage,
    ConstructorSession,
    ConstructorUpload,
    User,
    utcnow,
)
from tutorgraph.store.thread_locks import ThreadLocks

log = logging.getLogger(__name__)

MAX_FILES_PER_BUILD = 50
MAX_FILENAME = 200

RunTurn = Callable[[str], Coroutine[Any, Any, None]]


class JobRunner(Protocol):
    """Where a build's stored turn runs: `submit` hands over the session id (the turn itself is
    in the store); `run` is how this process would run it."""

    async def submit(self, session_id: str, run: RunTurn) -> None: ...


class InProcessJobs:
    """The SQLite default: each turn is an asyncio task of this process. Tasks are kept until
    done so none is garbage-collected."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()

    async def submit(self, session_id: str, run: RunTurn) -> None:
        task = asyncio.get_running_loop().create_task(run(session_id), name=session_id)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def drain(self) -> None:
        """Wait for every running job (tests and shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)


class UploadOut(BaseModel):
    id: str
    filename: str
    size: int
    status: str
    kind: str
    title: str
    words: int
    pages: int
    error: str


class ReviewOut(BaseModel):
    kind: str
    note: str


class BuildView(BaseModel):
    """Everything the page shows about a build."""

    session_id: str
    title: str
    phase: str
    construction_phase: str  # the spec's name for `phase`, kept for compatibility
    status: str
    error: str
    course_slug: str | None
    messages: list[dict[str, str]]
    uploads: list[UploadOut]
    structure: CourseStructure | None = None
    quiz_bank: QuizBank | None = None
    report: ReadinessReport | None = None
    review: ReviewOut | None = None
    last_event_id: int = 0
    # Where each topic of several sections can be split: [{section_id, heading}, ...].
    split_points: dict[str, list[dict[str, str]]] = Field(default_factory=dict)


class EventOut(BaseModel):
    id: int
    stage: str
    step: str = Field(
        default="", description="The step of the build it belongs to, in the author's words."
    )
    message: str
    done: int = 0
    total: int = 0


class TurnIn(BaseModel):
    """One turn: a message, an explicit action, a course title, or a review decision."""

    message: str = Field(default="", max_length=8000)
    action: str | None = Field(default=None, max_length=40)
    title: str | None = Field(default=None, max_length=300)
    approve: bool = False
    edits: list[dict[str, Any]] = Field(default_factory=list, max_length=500)
    confirm: bool = Field(
        default=False,
        description="Publish even though the readiness report is below the bar (without it, "
        "publishing such a course answers 409 with the failed checks).",
    )


@dataclass
class ConstructorService:
    database: Database
    checkpointer: BaseCheckpointSaver[str] | None
    model: Model
    limits: ExtractionLimits
    jobs: JobRunner

    def __post_init__(self) -> None:
        self.graph: ConstructorGraph = compile_graph(self.checkpointer)
        self.threads = ThreadLocks(self.database.engine)

    # ---- sessions ------------------------------------------------------------------------

    async def start(self, *, user: User, title: str = "") -> BuildView:
        session_id = str(uuid.uuid4())
        with self.database.session() as session:
            build_store.add_build(
                session, build_id=session_id, owner_id=user.id, title=title.strip()[:300]
            )
        await self._run(session_id, {"request": {"title": title}})
        return await self.view(session_id=session_id, user=user)

    def builds(self, *, user: User) -> list[dict[str, Any]]:
        with self.database.session() as session:
            rows = build_store.builds_of(session, user.id)
            return [
                {
                    "session_id": r.id,
                    "title": r.title,
                    "phase": r.phase,
                    "status": r.status,
                    "course_slug": r.course_slug,
                    "updated_at": r.updated_at.isoformat(),
                }
                for r in rows
            ]

    def _own(self, session: Session, session_id: str, user: User) -> ConstructorSession:
        row = build_store.build_by_id(session, session_id)
        if row is None or row.owner_id != user.id:
            raise NotFoundError(f"no course build {session_id!r}")
        return row

    # ---- uploads -------------------------------------------------------------------------

    def upload(self, *, session_id: str, user: User, filename: str, data: bytes) -> UploadOut:
        """Keep one file for the next turn to read; its type is sniffed from its bytes now, so a
        file that cannot be a course source is refused at once with the reason."""
        name = (filename or "upload").replace("\\", "/").split("/")[-1][:MAX_FILENAME] or "upload"
        if len(data) > self.limits.max_bytes:
            raise TooLargeError(
                f"{name}: {len(data) / 1048576:.1f} MB is over the upload limit of "
                f"{self.limits.max_bytes / 1048576:.0f} MB"
            )
        try:
            kind = sniff_kind(name, data)
        except ExtractionError as exc:
            raise InputError(str(exc)) from exc
        digest = hashlib.sha256(data).hexdigest()
        with self.database.session() as session:
            row = self._own(session, session_id, user)
            if row.status == "running":
                raise ConflictError("this build is busy; upload again when the current step ends")
            uploads = build_store.uploads_of(session, session_id)
            same = next((u for u in uploads if u.sha256 == digest), None)
            if same is not None:
                return _upload_out(same)
            if len(uploads) >= MAX_FILES_PER_BUILD:
                raise InputError(f"a build takes at most {MAX_FILES_PER_BUILD} files")
            upload = build_store.add_upload(
                session,
                upload_id=str(uuid.uuid4()),
                build_id=session_id,
                filename=name,
                size=len(data),
                sha256=digest,
                data=data,
                kind=kind,
            )
            row.updated_at = utcnow()
            session.flush()
            return _upload_out(upload)

    def remove_upload(self, *, session_id: str, user: User, upload_id: str) -> None:
        with self.database.session() as session:
            row = self._own(session, session_id, user)
            if row.status == "running":
                raise ConflictError("this build is busy; try again when the current step ends")
            upload = build_store.upload_by_id(session, upload_id)
            if upload is None or upload.session_id != session_id:
                raise NotFoundError(f"no upload {upload_id!r} in this build")
            if upload.status != "pending":
                raise InputError(
                    f"{upload.filename} was already read into the build; start a new build "
                    "to leave it out"
                )
            build_store.delete_upload(session, upload)

    # ---- turns ---------------------------------------------------------------------------

    async def submit(self, *, session_id: str, user: User, turn: TurnIn) -> BuildView:
        """Queue one turn; it runs in the background and its progress arrives as events."""
        config = _config(session_id)
        snapshot = await self.graph.aget_state(config)
        with self.database.session() as session:
            self._own(session, session_id, user)
        if turn.action == "publish" and not turn.confirm and not snapshot.interrupts:
            await self._check_ready(snapshot.values)
        with self.database.session() as session:
            self._own(session, session_id, user)
            pending = build_store.pending_upload_ids(session, session_id)
            stored: dict[str, Any]
            if snapshot.interrupts:
                _check_edits(snapshot.interrupts[0].value, turn.edits)
                decision = {"approve": turn.approve, "edits": turn.edits, "message": turn.message}
                stored = {"resume": decision}
            else:
                request = {
                    "message": turn.message,
                    "action": turn.action,
                    "title": turn.title or "",
                    "confirm": turn.confirm,
                }
                stored = {"input": {"request": request, "pending_uploads": pending}}
            # The turn is kept with the claim, so a process that dies before running it (or
            # halfway) leaves enough for `recover` to run it.
            if not build_store.claim_build(session, session_id, turn=stored):
                raise ConflictError("this build is still working on the last step")
        await self.jobs.submit(session_id, self.run_stored)
        return await self.view(session_id=session_id, user=user)

    @staticmethod
    async def _check_ready(values: Any) -> None:
        """Publishing a course below the bar is refused (409) with the failed checks, unless
        the turn confirms it; the report is computed from the course as it is now."""
        state = cast(ConstructorState, values or {})
        if state.get("phase") not in ("validated", "published"):
            return  # the coordinator says why publishing cannot happen yet
        report = await run_blocking(readiness.assess_state, state)
        if report is not None and not report.ready:
            raise ConflictError(below_the_bar(report))

    async def run_stored(self, session_id: str) -> None:
        """Run the turn stored with a build's claim (a job's body, in any process); a build
        that is no longer running (a duplicate job) or that another process is running now
        (it holds the build's thread) is left alone."""
        try:
            async with self.threads.hold(_thread(session_id), wait=False):
                with self.database.session() as session:
                    row = build_store.build_by_id(session, session_id)
                    if row is None or row.status != "running":
                        return
                    turn = row.pending_turn
                await self._job(session_id, turn)
        except ConflictError:
            log.info("build %s is running in another request or process", session_id)

    async def _job(self, session_id: str, turn: dict[str, Any] | None) -> None:
        try:
            await self._run(session_id, await self._payload(session_id, turn))
        except Exception as exc:  # the build shows the failure; the author can try again
            log.exception("constructor turn failed for %s", session_id)
            message = str(exc) if isinstance(exc, InputError) else "an internal error stopped it"
            self._event(session_id, ProgressEvent(stage="error", message=message))
            self._finish(session_id, status="failed", error=message)

    async def _run(self, session_id: str, payload: Any) -> None:
        config = _config(session_id)
        context = self._context(session_id)
        # Not durability="sync": with sub-graphs run inside nodes, LangGraph 1.2.22 fails
        # ('AsyncPregelLoop' object has no attribute '_put_checkpoint_fut'); the default writes
        # each checkpoint in the background.
        await self.graph.ainvoke(payload, config, context=context)
        snapshot = await self.graph.aget_state(config)
        values: ConstructorState = snapshot.values  # type: ignore[assignment]
        # The last event is written before the build turns idle, so a reader that sees it idle
        # has every event of the turn.
        self._event(session_id, ProgressEvent(stage="done", message="Done"))
        self._finish(
            session_id,
            status="idle",
            error="",
            phase=values.get("phase"),
            title=values.get("course_title"),
            slug=values.get("course_slug"),
        )

    async def _payload(self, session_id: str, turn: dict[str, Any] | None) -> Any:
        """What to run for a stored turn: the thread's unfinished step if it stopped halfway,
        else the turn itself (its review decision, or its input)."""
        snapshot = await self.graph.aget_state(_config(session_id))
        if turn is None:
            return None
        if "resume" in turn:
            return Command(resume=turn["resume"]) if snapshot.interrupts else None
        if snapshot.next and not snapshot.interrupts:
            return None  # the turn was under way: continue from its last checkpoint
        return turn.get("input")

    async def recover(self) -> int:
        """Run again every turn a stopped process left running, from the last checkpoint of
        its thread; the steps it finished are not redone (and publishing is an upsert)."""
        with self.database.session() as session:
            rows = build_store.running_builds(session)
        for session_id, _turn in rows:
            self._event(
                session_id,
                ProgressEvent(stage="coordinator", message="Picking up where the build stopped"),
            )
            await self.jobs.submit(session_id, self.run_stored)
        return len(rows)

    def _finish(
        self,
        session_id: str,
        *,
        status: str,
        error: str,
        phase: str | None = None,
        title: str | None = None,
        slug: str | None = None,
    ) -> None:
        with self.database.session() as session:
            row = build_store.build_by_id(session, session_id)
            if row is None:
                return
            row.status, row.error, row.updated_at = status, error, utcnow()
            row.pending_turn = None
            if phase:
                row.phase = phase
            if title:
                row.title = title[:300]
            if slug:
                row.course_slug = slug

    # ---- context: what the graph's nodes reach outside it --------------------------------

    def _context(self, session_id: str) -> ConstructorContext:
        def read_uploads(ids: list[str]) -> list[Upload]:
            with self.database.session() as session:
                rows = build_store.uploads_by_ids(session, session_id, ids)
                by_id = {r.id: Upload(r.id, r.filename, r.data) for r in rows}
            return [by_id[i] for i in ids if i in by_id]

        def store_image(
            image_id: str, name: str, media_type: str, caption: str, data: bytes
        ) -> None:
            with self.database.session() as session:
                build_store.keep_image(
                    session,
                    build_id=session_id,
                    image_id=image_id,
                    name=name[:300],
                    media_type=media_type[:100],
                    caption=caption,
                    data=data,
                )

        def mark_upload(
            upload_id: str, title: str, kind: str, words: int, pages: int, error: str
        ) -> None:
            with self.database.session() as session:
                row = build_store.upload_by_id(session, upload_id)
                if row is None:
                    return
                row.status = "failed" if error else "read"
                row.error, row.words, row.pages = error, words, pages
                row.title = title[:300]
                row.kind = kind or row.kind

        async def publish(state: ConstructorState) -> str:
            return await run_blocking(self._publish, session_id, state)

        return ConstructorContext(
            model=self.model,
            read_uploads=read_uploads,
            store_image=store_image,
            mark_upload=mark_upload,
            publish=publish,
            progress=lambda event: self._event(session_id, event),
            limits=self.limits,
        )

    def _publish(self, session_id: str, state: ConstructorState) -> str:
        with self.database.session() as session:
            row = build_store.build_by_id(session, session_id)
            if row is None:
                raise NotFoundError(f"no course build {session_id!r}")
            title = state.get("course_title") or row.title or "course"
            slug = publishing.choose_slug(session, title, row.course_slug)
            publishing.publish_course(
                session,
                state,
                owner_id=row.owner_id,
                slug=slug,
                image_base=f"/api/v1/constructor/images/{session_id}",
            )
            row.course_slug = slug
            return slug

    def _event(self, session_id: str, event: ProgressEvent) -> None:
        with self.database.session() as session:
            build_store.add_event(
                session,
                build_id=session_id,
                stage=event.stage[:40],
                message=event.message,
                done=event.done,
                total=event.total,
            )

    # ---- reading -------------------------------------------------------------------------

    def status(self, *, session_id: str, user: User) -> str:
        """A build's status (idle, running, failed): the cheap read progress streams poll."""
        with self.database.session() as session:
            return self._own(session, session_id, user).status

    def events(self, *, session_id: str, user: User, after: int = 0) -> list[EventOut]:
        with self.database.session() as session:
            self._own(session, session_id, user)
            rows = build_store.events_after(session, session_id, after, limit=500)
            return [
                EventOut(
                    id=r.id,
                    stage=r.stage,
                    step=steps.step_of(r.stage),
                    message=r.message,
                    done=r.done,
                    total=r.total,
                )
                for r in rows
            ]

    def image(self, *, session_id: str, image_id: str, user: User | None) -> ConstructorImage:
        """An extracted image, for the build's author or anyone who can see its course."""
        with self.database.session() as session:
            build = build_store.build_by_id(session, session_id)
            image = build_store.image_by_id(session, session_id, image_id)
            if build is None or image is None or not self._may_see(session, build, user):
                raise NotFoundError("no such image")
            session.expunge(image)
            return image

    @staticmethod
    def _may_see(session: Session, build: ConstructorSession, user: User | None) -> bool:
        if user is not None and build.owner_id == user.id:
            return True
        if build.course_slug is None:
            return False
        try:
            course_store.get_course(session=session, slug=build.course_slug, user=user)
        except NotFoundError:
            return False
        return True

    async def view(self, *, session_id: str, user: User) -> BuildView:
        with self.database.session() as session:
            row = self._own(session, session_id, user)
            uploads = [_upload_out(u) for u in build_store.uploads_of(session, session_id)]
            last = build_store.last_event_id(session, session_id)
            head = (row.title, row.phase, row.status, row.error, row.course_slug)
        snapshot = await self.graph.aget_state(_config(session_id))
        values: ConstructorState = snapshot.values  # type: ignore[assignment]
        review = None
        for item in snapshot.interrupts:
            value = item.value if isinstance(item.value, dict) else {}
            review = ReviewOut(kind=str(value.get("kind", "")), note=str(value.get("note", "")))
        phase = values.get("phase") or head[1]
        structure = values.get("structure")
        return BuildView(
            session_id=session_id,
            title=values.get("course_title") or head[0],
            phase=phase,
            construction_phase=phase,
            status=head[2],
            error=head[3],
            course_slug=head[4],
            messages=values.get("messages", []),
            uploads=uploads,
            structure=values.get("structure"),
            quiz_bank=values.get("quiz_bank"),
            report=values.get("report"),
            review=review,
            last_event_id=last or 0,
            split_points=split_points(structure, values.get("sections", [])) if structure else {},
        )


def _check_edits(review: Any, edits: list[dict[str, Any]]) -> None:
    """Edits whose form is wrong (a question too short, a field missing) are refused at once,
    with the field named as the page names it; whether they fit the build is the review's."""
    kind = review.get("kind") if isinstance(review, dict) else None
    try:
        if kind == "structure":
            STRUCTURE_EDITS.validate_python(edits)
        elif kind == "quiz":
            QUIZ_EDITS.validate_python(edits)
    except ValidationError as exc:
        raise InputError(f"That edit did not apply: {short_error(exc)}") from exc


def _upload_out(row: ConstructorUpload) -> UploadOut:
    return UploadOut(
        id=row.id,
        filename=row.filename,
        size=row.size,
        status=row.status,
        kind=row.kind,
        title=row.title,
        words=row.words,
        pages=row.pages,
        error=row.error,
    )


def _thread(session_id: str) -> str:
    return f"constructor:{session_id}"


def _config(session_id: str) -> RunnableConfig:
    return observability.run_config(
        "constructor",
        _thread(session_id),
        tags=["course-build"],
        metadata={"session_id": session_id},
    )
