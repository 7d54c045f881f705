"""Resumes and interviews: the one place the API, the CLI and the web pages use.

An interview is a row (owner, resume, role, level, status, scorecard) plus a LangGraph thread in
the durable checkpointer, saved after every node: a server killed mid-interview resumes at the
same question, and a turn cut off halfway continues from its last finished node without asking
any model again for what it already said."""

from __future__ import annotations

import builtins
import logging
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from functools import partial
from typing import Any, Literal, cast

import anyio
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.types import Command
from pydantic import BaseModel
from sqlalchemy.orm import Session

from tutorgraph import observability, offload, sandbox
from tutorgraph.content.extract import ExtractionError, ExtractionLimits, extract_isolated
from tutorgraph.errors import ConflictError, InputError, NotFoundError, UnavailableError
from tutorgraph.interview import signals
from tutorgraph.interview.context import InterviewContext
from tutorgraph.interview.graph import compile_graph
from tutorgraph.interview.planner import explored_anchors
from tutorgraph.interview.resume import anchors, parse_resume
from tutorgraph.interview.state import InterviewInput, InterviewState, Scorecard, Submission
from tutorgraph.knowledge import TARGET_LEVELS, TargetLevel
from tutorgraph.learner_model import mastery
from tutorgraph.learner_model.decision import decide as path_decision
from tutorgraph.learner_model.events import EVENT_TEXT_CHARS, store_event
from tutorgraph.learning import reviews
from tutorgraph.limits import require_answer
from tutorgraph.settings import InterviewSettings
from tutorgraph.store import interview as stored
from tutorgraph.store.checkpoints import DURABILITY
from tutorgraph.store.db import Database
from tutorgraph.store.models import Interview, Resume, new_uuid, utcnow
from tutorgraph.store.thread_locks import ThreadLocks

log = logging.getLogger(__name__)

RESUME_KINDS = ("markdown", "text", "pdf", "docx")
MAX_ROLE_CHARS = 120
MAX_ANSWER_CHARS = 8_000


class AnchorView(BaseModel):
    id: str
    type: str
    label: str


class ResumeView(BaseModel):
    id: str
    filename: str
    created_at: datetime
    anchors: list[AnchorView]
    skills: list[str]
    words: int


class InterviewSummary(BaseModel):
    id: str
    resume_id: str
    role: str
    level: TargetLevel
    status: Literal["in_progress", "complete"]
    created_at: datetime
    overall: int | None = None


class MessageView(BaseModel):
    role: Literal["interviewer", "candidate"]
    text: str
    node: str | None
    turn: int


class Coverage(BaseModel):
    explored: int
    total: int


class SandboxView(BaseModel):
    submissions: int
    signals: list[str]


class InterviewView(InterviewSummary):
    phase: str
    elapsed_seconds: int
    messages: list[MessageView]
    current_question: str | None
    coverage: Coverage
    sandbox: SandboxView
    scorecard: dict[str, Any] | None = None


class CodeRun(BaseModel):
    stdout: str
    stderr: str
    exit_code: int | None
    outcome: str
    duration_ms: int
    truncated: bool
    signals: list[str]


class InterviewService:
    """Runs interview graphs for a database, a checkpointer and a model context."""

    def __init__(
        self,
        *,
        database: Database,
        checkpointer: BaseCheckpointSaver[str],
        context: InterviewContext,
        settings: InterviewSettings | None = None,
    ) -> None:
        self.database = database
        self.graph = compile_graph(checkpointer)
        self.context = context
        self.settings = settings or InterviewSettings()
        self.threads = ThreadLocks(database.engine)

    # --- resumes ---------------------------------------------------------------------------------

    async def add_resume(
        self,
        *,
        user_id: int | None,
        filename: str = "",
        data: bytes | None = None,
        text: str | None = None,
    ) -> ResumeView:
        """Read a resume file (PDF, DOCX, Markdown, text) or pasted text and store it."""
        if data is not None and text:
            raise InputError("resume: send a file or pasted text, not both")
        if data is not None:
            text, filename = await offload.run_in_pool(
                "extraction", self._read_file, filename, data, user_id
            )
        elif text is not None:
            filename = filename or "pasted resume"
        else:
            raise InputError("resume: send a file or paste the text")
        text = (text or "").strip()
        if not text:
            raise InputError("resume: it is empty")
        if len(text) > self.settings.max_resume_chars:
            raise InputError(
                f"resume: {len(text):,} characters is more than the "
                f"{self.settings.max_resume_chars:,} a resume may have"
            )
        structured = parse_resume(text)
        if not anchors(structured):
            raise InputError(
                "resume: no projects, jobs, skills or education found; give each section a "
                "heading such as 'Experience', 'Projects', 'Skills' or 'Education'"
            )
        row = await anyio.to_thread.run_sync(
            self._store_resume, user_id, filename[:255], text, structured
        )
        return _resume_view(row)

    def _read_file(self, filename: str, data: bytes, user_id: int | None = None) -> tuple[str, str]:
        if not data:
            raise InputError(f"{filename or 'resume'}: the file is empty")
        if len(data) > self.settings.max_resume_bytes:
            limit = self.settings.max_resume_bytes // 1024
            raise InputError(f"{filename}: larger than the {limit:,} KB a resume may be")
        limits = ExtractionLimits(
            max_bytes=self.settings.max_resume_bytes,
            max_pages=20,
            max_images=0,
            timeout_seconds=30.0,
            keep_lines=True,
        )
        try:
            # One reader per learner, `limits.extraction_processes` at once; else 429 at once.
            document = extract_isolated(
                filename or "resume", data, limits=limits, owner=user_id, wait_seconds=0
            )
        except ExtractionError as exc:
            message = str(exc)
            if "is not a supported file" in message:  # the extractor also takes HTML: not here
                message = (
                    f"{filename}: is not a supported file: upload a PDF, DOCX, Markdown or "
                    "text resume"
                )
            raise InputError(message) from exc
        if document.kind not in RESUME_KINDS:
            raise InputError(f"{filename}: a resume must be a PDF, DOCX, Markdown or text file")
        return document.markdown, document.filename

    def _store_resume(
        self, user_id: int | None, filename: str, text: str, structured: Any
    ) -> Resume:
        with self.database.session() as session:
            return stored.add_resume(
                session,
                resume_id=new_uuid(),
                user_id=user_id,
                filename=filename,
                text=text,
                structured=structured,
            )

    async def resumes(self, *, user_id: int | None) -> builtins.list[ResumeView]:
        def load() -> builtins.list[ResumeView]:
            with self.database.session() as session:
                return [_resume_view(r) for r in stored.resumes_of(session, user_id)]

        return await anyio.to_thread.run_sync(load)

    async def delete_resume(self, *, resume_id: str, user_id: int | None) -> None:
        """Delete the resume and every interview built from it (rows and graph threads)."""

        def delete() -> builtins.list[str]:
            with self.database.session() as session:
                row = stored.resume_by_id(session, resume_id)
                if row is None or row.user_id != user_id:
                    raise NotFoundError(f"no resume {resume_id}")
                return stored.delete_resume(session, row)

        for thread in await anyio.to_thread.run_sync(delete):
            await self.graph.checkpointer.adelete_thread(thread)  # type: ignore[union-attr]

    # --- interviews ------------------------------------------------------------------------------

    async def start(
        self, *, user_id: int | None, resume_id: str, role: str, level: str
    ) -> InterviewView:
        """Create the interview and run it to its first question."""
        level_ = _level(level)
        role = " ".join(role.split())[:MAX_ROLE_CHARS] or "Software engineer"
        resume, row = await anyio.to_thread.run_sync(self._create, user_id, resume_id, role, level_)
        start: InterviewInput = {
            "interview_id": row.id,
            "user_id": user_id,
            "resume_id": resume.id,
            "resume_structured": cast(Any, resume.structured),
            "role": role,
            "level": level_,
            "max_questions": self.settings.max_questions,
        }
        log.info("interview %s started for user %s (%s, %s)", row.id, user_id, role, level_)
        async with self.threads.hold(row.thread_id):
            config = _config(row)
            await self.graph.ainvoke(start, config, context=self.context, durability=DURABILITY)
            await self.graph.ainvoke(
                Command(resume={"kind": "join"}),
                config,
                context=self.context,
                durability=DURABILITY,
            )
            return await self._sync(row)

    async def answer(self, *, interview_id: str, user_id: int | None, text: str) -> InterviewView:
        async for _ in self.answer_stream(interview_id=interview_id, user_id=user_id, text=text):
            pass
        return await self.get(interview_id=interview_id, user_id=user_id)

    async def answer_stream(
        self, *, interview_id: str, user_id: int | None, text: str
    ) -> AsyncIterator[str]:
        """Answer the waiting question; yields each graph node's name as it finishes."""
        row = await self._row(interview_id, user_id)
        require_answer(text)
        if len(text) > MAX_ANSWER_CHARS:
            raise InputError(f"answer: at most {MAX_ANSWER_CHARS:,} characters")
        if row.status == "complete":
            raise ConflictError(f"interview {row.id} is complete; it takes no more answers")
        async with self.threads.hold(row.thread_id):
            config = _config(row)
            if await self._finish_cut_off(row):
                raise ConflictError(
                    "your previous answer was still being processed when the server stopped; "
                    "it has now been, so read the interviewer's latest message and answer that"
                )
            snapshot = await self.graph.aget_state(config)
            if not snapshot.interrupts:
                raise ConflictError(f"interview {row.id} is not waiting for an answer")
            run: Command[Any] = Command(resume={"kind": "answer", "text": text})
            async for update in self.graph.astream(
                run, config, context=self.context, stream_mode="updates", durability=DURABILITY
            ):
                for node in update:
                    if not node.startswith("__"):
                        yield node
            await self._sync(row)

    async def end(self, *, interview_id: str, user_id: int | None) -> InterviewView:
        """The candidate ends the interview: the evaluation and closing run now."""
        row = await self._row(interview_id, user_id)
        if row.status == "complete":
            return await self.get(interview_id=interview_id, user_id=user_id)
        async with self.threads.hold(row.thread_id):
            config = _config(row)
            await self._finish_cut_off(row)
            snapshot = await self.graph.aget_state(config)
            if snapshot.interrupts:
                await self.graph.ainvoke(
                    Command(resume={"kind": "end"}),
                    config,
                    context=self.context,
                    durability=DURABILITY,
                )
            return await self._sync(row)

    async def run_code(self, *, interview_id: str, user_id: int | None, code: str) -> CodeRun:
        """Run the candidate's code in the sandbox; the run becomes a sandbox signal."""
        row = await self._row(interview_id, user_id)
        if row.status == "complete":
            raise ConflictError(f"interview {row.id} is complete")
        if not sandbox.sandbox_available():
            raise UnavailableError(
                "the code sandbox is not available on this server (it needs bubblewrap: "
                "apt-get install bubblewrap)"
            )
        limits = sandbox.SandboxLimits(
            cpu_seconds=self.settings.sandbox_cpu_seconds,
            wall_seconds=self.settings.sandbox_wall_seconds,
            memory_mb=self.settings.sandbox_memory_mb,
        )
        # One run per learner, `limits.sandbox_runs` in this process; else 429 at once.
        with offload.slots("sandbox").claim(user_id):
            result = await offload.run_in_pool(
                "sandbox", partial(sandbox.run_python, code, limits=limits)
            )
        async with self.threads.hold(row.thread_id):
            config = _config(row)
            snapshot = await self.graph.aget_state(config)
            values = cast(InterviewState, snapshot.values)
            submission: Submission = {
                "code": code[:20_000],
                "outcome": result.outcome,
                "stdout": result.stdout[:2000],
                "stderr": result.stderr[:2000],
                "duration_ms": result.duration_ms,
                "at": self.context.clock(),
                "turn": values["turn_count"],
            }
            updated = signals.with_submission(values["sandbox"], submission)
            # Recorded as if by the node that asked the question, so the graph is again just
            # before `user_input` (updating as `user_input` itself would count as the answer),
            # then run up to the same wait for the candidate.
            await self.graph.aupdate_state(config, {"sandbox": updated}, as_node="question")
            await self.graph.ainvoke(None, config, context=self.context, durability=DURABILITY)
        return CodeRun(
            stdout=result.stdout,
            stderr=result.stderr,
            exit_code=result.exit_code,
            outcome=result.outcome,
            duration_ms=result.duration_ms,
            truncated=result.truncated,
            signals=list(updated["signals"]),
        )

    async def get(self, *, interview_id: str, user_id: int | None) -> InterviewView:
        """The interview as it stands; a turn a stopped server left halfway is finished first
        (from its last saved node: what was already said is not asked of a model again)."""
        row = await self._row(interview_id, user_id)
        if row.status != "complete":
            async with self.threads.hold(row.thread_id):
                if await self._finish_cut_off(row):
                    return await self._sync(row)
        snapshot = await self.graph.aget_state(_config(row))
        return _view(row, cast(InterviewState, snapshot.values), now=self.context.clock())

    async def _finish_cut_off(self, row: Interview) -> bool:
        """Run a turn that stopped between nodes to its next wait; True when there was one."""
        config = _config(row)
        snapshot = await self.graph.aget_state(config)
        if not snapshot.next or snapshot.interrupts:
            return False
        log.info("interview %s: finishing a cut-off turn at %s", row.id, ", ".join(snapshot.next))
        await self.graph.ainvoke(None, config, context=self.context, durability=DURABILITY)
        return True

    async def scorecard(self, *, interview_id: str, user_id: int | None) -> Scorecard:
        row = await self._row(interview_id, user_id)
        if row.scorecard is None:
            raise NotFoundError(f"interview {interview_id} has no scorecard yet")
        return cast(Scorecard, row.scorecard)

    async def list(self, *, user_id: int | None) -> builtins.list[InterviewSummary]:
        def load() -> builtins.list[InterviewSummary]:
            with self.database.session() as session:
                return [_summary(r) for r in stored.interviews_of(session, user_id)]

        return await anyio.to_thread.run_sync(load)

    # --- internals -------------------------------------------------------------------------------

    async def _row(self, interview_id: str, user_id: int | None) -> Interview:
        def load() -> Interview:
            with self.database.session() as session:
                row = stored.interview_by_id(session, interview_id)
                if row is None or row.user_id != user_id:
                    raise NotFoundError(f"no interview {interview_id}")
                return row

        return await anyio.to_thread.run_sync(load)

    def _create(
        self, user_id: int | None, resume_id: str, role: str, level: TargetLevel
    ) -> tuple[Resume, Interview]:
        with self.database.session() as session:
            resume = stored.resume_by_id(session, resume_id)
            if resume is None or resume.user_id != user_id:
                raise NotFoundError(f"no resume {resume_id}")
            interview_id = new_uuid()
            row = stored.add_interview(
                session,
                interview_id=interview_id,
                user_id=user_id,
                resume_id=resume_id,
                role=role,
                level=level,
                thread_id=f"interview-{interview_id}",
            )
            return resume, row

    async def _sync(self, row: Interview) -> InterviewView:
        """Record the graph's progress on the row; a finished interview feeds the learning loop."""

        def save(values: InterviewState, done: bool) -> Interview:
            with self.database.session() as session:
                fresh = stored.interview_by_id(session, row.id)
                if fresh is None:
                    raise NotFoundError(f"no interview {row.id}")
                # On the interview's clock: a finished one lasted updated_at - created_at.
                fresh.updated_at = datetime.fromtimestamp(self.context.clock(), UTC)
                if done and fresh.status != "complete":
                    fresh.status = "complete"
                    fresh.scorecard = dict(values["scorecard"] or {})
                    if fresh.user_id is not None:
                        _into_learning_loop(session, fresh.user_id, fresh.id, values)
                return fresh

        snapshot = await self.graph.aget_state(_config(row))
        values = cast(InterviewState, snapshot.values)
        done = not snapshot.next and values.get("scorecard") is not None
        row = await anyio.to_thread.run_sync(save, values, done)
        return _view(row, values, now=self.context.clock())


def _into_learning_loop(
    session: Session, user_id: int, interview_id: str, values: InterviewState
) -> None:
    """Each graded technical answer moves the learner's mastery of its knowledge-base topic (the
    knowledge graph on the progress page) and is an evaluation event of it (the evidence, the
    misconception ledger, the path planner's next step); the topics answered below half are
    scheduled for review."""
    records = {q["id"]: q for q in values["questions_asked"]}
    weak: list[str] = []
    for answer in values["answers"]:
        record = records.get(answer["question_id"])
        score = answer.get("score")
        if record is None or score is None or not record.get("topic_id"):
            continue
        topic = str(record["topic_id"])
        change = mastery.record_score(
            session=session, user_id=user_id, concept=topic, score=float(score)
        )
        store_event(
            session,
            user_id=user_id,
            concept=topic,
            score=float(score),
            decision=path_decision(score=float(score), error_type=None, difficulty=3, mastery=0.0),
            payload={
                "source": {
                    "kind": "interview",
                    "interview_id": interview_id,
                    "domain": record.get("domain"),
                },
                "concept": topic,
                "score": float(score),
                "question": record["text"][:EVENT_TEXT_CHARS],
                "answer": answer["text"][:EVENT_TEXT_CHARS],
                "misconceptions": list(answer.get("misconceptions", [])),
                "mastery": change.payload(),
            },
        )
        if float(score) < 0.5 and topic not in weak:
            weak.append(topic)
    if weak:
        reviews.schedule_plan(
            session=session, user_id=user_id, phases=[(weak, 1.0)], start=utcnow()
        )


def _level(value: str) -> TargetLevel:
    for level in TARGET_LEVELS:
        if value == level:
            return level
    raise InputError(f"level: must be one of {', '.join(TARGET_LEVELS)} (got {value!r})")


def _config(row: Interview) -> RunnableConfig:
    return observability.run_config(
        "interview", row.thread_id, tags=[row.level], metadata={"interview_id": row.id}
    )


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _resume_view(row: Resume) -> ResumeView:
    structured = cast(Any, row.structured)
    return ResumeView(
        id=row.id,
        filename=row.filename,
        created_at=_aware(row.created_at),
        anchors=[AnchorView(id=a.id, type=a.type, label=a.label) for a in anchors(structured)],
        skills=list(structured.get("skills", [])),
        words=len(row.text.split()),
    )


def _summary(row: Interview) -> InterviewSummary:
    overall = (row.scorecard or {}).get("overall", {}).get("score")
    return InterviewSummary(
        id=row.id,
        resume_id=row.resume_id,
        role=row.role,
        level=_level(row.level),
        status="complete" if row.status == "complete" else "in_progress",
        created_at=_aware(row.created_at),
        overall=overall if isinstance(overall, int) else None,
    )


def _view(row: Interview, values: InterviewState, *, now: float) -> InterviewView:
    exploration = values.get("resume_exploration", {})
    box = values.get("sandbox") or {"submissions": [], "signals": []}
    created = _aware(row.created_at)
    # A finished interview's clock stopped when it finished (its row is not touched after that):
    # the page's timer and the scorecard's length both show this, however late it is reopened.
    until = _aware(row.updated_at).timestamp() if row.status == "complete" else now
    return InterviewView(
        **_summary(row).model_dump(),
        phase=values.get("phase", "intro"),
        elapsed_seconds=max(0, int(until - created.timestamp())),
        messages=[MessageView(**m) for m in values.get("conversation_history", [])],
        current_question=values.get("current_question"),
        coverage=Coverage(
            explored=explored_anchors(exploration),
            total=len(exploration),
        ),
        sandbox=SandboxView(
            submissions=len(box["submissions"]),
            signals=list(signals.refreshed(cast(Any, box), now=now)["signals"])
            if box["submissions"]
            else [],
        ),
        scorecard=row.scorecard or None,
    )
