"""One tutor turn end to end: load and persist (worker threads), build the prompt, run the agent
loop in a task of its own, and hand the events to whoever is listening. The task does not depend
on the listener: if the client goes away mid-stream, the turn still finishes and both messages are
stored.

The user's message is stored together with an empty assistant reply marked `interrupted`; the
reply is rewritten as it streams (at most every FLUSH_SECONDS) and completed at the end. A crash
mid-stream leaves what was streamed, still marked interrupted, so a conversation's history always
alternates user / assistant."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field, replace
from typing import Literal

import anyio
from sqlalchemy.orm import Session

from tutorgraph.content.retrieval import SearchIndexes
from tutorgraph.errors import InputError
from tutorgraph.knowledge import find_topic
from tutorgraph.llm import ErrorEvent, Message, Model, TextDelta, ToolSpec
from tutorgraph.settings import Settings
from tutorgraph.store import courses
from tutorgraph.store.db import Database
from tutorgraph.store.models import new_uuid
from tutorgraph.store.users import get_user
from tutorgraph.tutor import sessions
from tutorgraph.tutor.agent_loop import AgentEvent, run_agent
from tutorgraph.tutor.blocks import QuizBlock
from tutorgraph.tutor.context import (
    Mode,
    TutorContext,
    build_explore_context,
    build_lesson_context,
)
from tutorgraph.tutor.offline_tutor import EXPLORE_AGENT, TUTOR_AGENT
from tutorgraph.tutor.prompts import TUTOR_OPENS_ON, select_prompt
from tutorgraph.tutor.quiz_grading import register_card
from tutorgraph.tutor.quiz_stream import QuizStream
from tutorgraph.tutor.tool_handlers import ToolExecutor
from tutorgraph.tutor.tools import tools_for

log = logging.getLogger(__name__)

Kind = Literal["tutor", "explore"]
UNEXPECTED = "The tutor failed unexpectedly; the error was logged. Please try again."
NOT_SAVED = "Your conversation could not be saved; the error was logged."
DRAIN_SECONDS = 10.0
FLUSH_SECONDS = 1.0


@dataclass(frozen=True)
class TurnRequest:
    kind: Kind
    user_id: int
    message: str
    mode: Mode = "default"
    session_id: str | None = None
    lesson_id: int | None = None
    # a concept of the lesson the tutor opens a new conversation on, itself: no learner message
    # is stored or shown (the path planner's "see it explained another way")
    focus: str | None = None


@dataclass(frozen=True)
class PreparedTurn:
    request: TurnRequest
    session_id: str
    reply_id: int
    context: TutorContext
    messages: list[Message]
    tools: list[ToolSpec] = field(default_factory=list)

    @property
    def agent(self) -> str:
        return EXPLORE_AGENT if self.request.kind == "explore" else TUTOR_AGENT


_SQLITE_WRITER = threading.Lock()


@contextmanager
def writing(database: Database) -> Iterator[Session]:
    """A short write transaction. SQLite takes one writer at a time: writers queue on a lock here
    rather than sleeping in SQLite's busy handler."""
    sqlite = database.engine.dialect.name == "sqlite"
    with _SQLITE_WRITER if sqlite else nullcontext(), database.session() as session:
        yield session


def prepare_turn(*, database: Database, settings: Settings, request: TurnRequest) -> PreparedTurn:
    """Check access, read the context and history, then store the user's message and the
    reply to come (and the new session) in a write-only transaction, and build the prompt."""
    with database.session() as session:
        if request.kind == "tutor":
            existing, history, context = _read_lesson_chat(session, request)
        else:
            existing, history, context = _read_explore_chat(session, request)
    if request.focus is not None:
        request = _opening(request, context, existing)
    elif not request.message.strip():
        raise InputError("message: must not be empty")
    session_id = existing or new_uuid()
    with writing(database) as session:
        if request.kind == "tutor":
            assert request.lesson_id is not None
            if existing is None:
                sessions.create_tutor_session(
                    session=session,
                    chat_id=session_id,
                    user_id=request.user_id,
                    lesson_id=request.lesson_id,
                    first_message=request.message,
                )
            if request.focus is None:  # the tutor's own opening has no learner message
                sessions.add_tutor_message(
                    session=session,
                    chat_id=session_id,
                    user_id=request.user_id,
                    lesson_id=request.lesson_id,
                    role="user",
                    content=request.message,
                )
            reply_id = sessions.add_tutor_message(
                session=session,
                chat_id=session_id,
                user_id=request.user_id,
                lesson_id=request.lesson_id,
                role="assistant",
                content="",
                interrupted=True,
            )
        else:
            if existing is None:
                sessions.create_explore_session(
                    session=session,
                    chat_id=session_id,
                    user_id=request.user_id,
                    first_message=request.message,
                )
            sessions.add_explore_message(
                session=session,
                chat_id=session_id,
                user_id=request.user_id,
                role="user",
                content=request.message,
            )
            reply_id = sessions.add_explore_message(
                session=session,
                chat_id=session_id,
                user_id=request.user_id,
                role="assistant",
                content="",
                interrupted=True,
            )
    tools = tools_for(settings.search)
    system = select_prompt(context, [tool.name for tool in tools])
    messages = [Message.system(system), *history, Message.user(request.message)]
    return PreparedTurn(request, session_id, reply_id, context, messages, tools)


def _opening(request: TurnRequest, context: TutorContext, existing: str | None) -> TurnRequest:
    """The request the tutor answers when it opens a new lesson conversation on a concept."""
    if request.kind != "tutor" or existing is not None:
        raise InputError("focus: the tutor opens only a new conversation in a lesson")
    if request.focus not in context.concepts:
        raise InputError(f"focus: {request.focus!r} is not a concept of this lesson")
    found = find_topic(request.focus)
    title = found[0].topic(request.focus).title if found else request.focus.replace("-", " ")
    return replace(request, message=TUTOR_OPENS_ON.format(concept=title))


def _read_lesson_chat(
    session: Session, request: TurnRequest
) -> tuple[str | None, list[Message], TutorContext]:
    assert request.lesson_id is not None
    user = get_user(session=session, user_id=request.user_id)
    lesson = courses.get_lesson(session=session, lesson_id=request.lesson_id, user=user)
    history: list[Message] = []
    if request.session_id is not None:
        chat = sessions.continued_tutor_session(
            session=session, user_id=request.user_id, lesson=lesson, session_id=request.session_id
        )
        history = sessions.tutor_history(session=session, chat=chat)
    context = build_lesson_context(session=session, lesson=lesson, user=user, mode=request.mode)
    return request.session_id, history, context


def _read_explore_chat(
    session: Session, request: TurnRequest
) -> tuple[str | None, list[Message], TutorContext]:
    user = get_user(session=session, user_id=request.user_id)
    history: list[Message] = []
    if request.session_id is not None:
        chat = sessions.get_explore_session(
            session=session, user_id=request.user_id, session_id=request.session_id
        )
        history = sessions.explore_history(session=session, chat=chat)
    context = build_explore_context(session=session, user=user, mode=request.mode)
    return request.session_id, history, context


def save_reply(*, database: Database, turn: PreparedTurn, text: str, done: bool = True) -> None:
    """Store what the tutor has said so far; `done` marks the reply complete."""
    with writing(database) as session:
        sessions.write_reply(
            session=session,
            kind=turn.request.kind,
            message_id=turn.reply_id,
            content=text,
            done=done,
        )


def keep_card(*, database: Database, turn: PreparedTurn, block: QuizBlock) -> str:
    """Keep a quiz card of the reply server-side (shown to the learner) and return its id."""
    request = turn.request
    with writing(database) as session:
        lesson = (
            courses.lesson_by_id(session=session, lesson_id=request.lesson_id)
            if request.lesson_id is not None
            else None
        )
        return register_card(
            session=session,
            user_id=request.user_id,
            lesson=lesson,
            chat_id=turn.session_id,
            block=block,
        )


class TutorRuntime:
    """Starts turns and keeps their tasks until they finish (or until shutdown drains them)."""

    def __init__(self, *, database: Database, indexes: SearchIndexes, settings: Settings) -> None:
        self.database = database
        self.indexes = indexes
        self.settings = settings
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(
        self, request: TurnRequest, *, model: Model
    ) -> tuple[str, AsyncIterator[AgentEvent]]:
        """Prepare the turn (raising NotFound / InputError before anything streams), start it,
        and return the session id and the turn's events."""
        turn = await anyio.to_thread.run_sync(
            lambda: prepare_turn(database=self.database, settings=self.settings, request=request)
        )
        queue: asyncio.Queue[AgentEvent | None] = asyncio.Queue()
        task = asyncio.create_task(self._run(turn, model, queue), name=f"turn-{turn.session_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return turn.session_id, _drain(queue)

    async def _run(
        self, turn: PreparedTurn, model: Model, queue: asyncio.Queue[AgentEvent | None]
    ) -> None:
        produced: list[str] = []
        executor = ToolExecutor(
            context=turn.context,
            database=self.database,
            indexes=self.indexes,
            search=self.settings.search,
            allowed=[tool.name for tool in turn.tools],
        )
        loop = asyncio.get_running_loop()
        flushed = loop.time() - FLUSH_SECONDS  # the first words are stored at once
        done = False
        failed = False  # the loop reported an error: the reply is cut short

        async def keep(block: QuizBlock) -> str:
            return await anyio.to_thread.run_sync(
                lambda: keep_card(database=self.database, turn=turn, block=block)
            )

        # Quiz cards go out (and are stored) without their answer; it stays server-side.
        quizzes = QuizStream(keep)
        try:
            try:
                async for event in run_agent(
                    model=model,
                    messages=turn.messages,
                    tools=turn.tools,
                    executor=executor,
                    agent=turn.agent,
                    inputs=turn.context,
                ):
                    if isinstance(event, TextDelta):
                        shown = await quizzes.feed(event.delta)
                        if not shown:
                            continue  # held back: a card still streaming
                        event = TextDelta(delta=shown)
                        produced.append(shown)
                    queue.put_nowait(event)
                    failed = failed or isinstance(event, ErrorEvent)
                    if isinstance(event, TextDelta) and loop.time() - flushed >= FLUSH_SECONDS:
                        flushed = loop.time()
                        text = "".join(produced)
                        await anyio.to_thread.run_sync(self._save, text, turn, False)
                if rest := quizzes.close():
                    produced.append(rest)
                    queue.put_nowait(TextDelta(delta=rest))
                done = not failed
            except Exception:
                log.exception("tutor turn failed (session %s)", turn.session_id)
                queue.put_nowait(ErrorEvent(message=UNEXPECTED))
            except BaseException:  # cancelled at shutdown, or a crash: store what there is, now
                self._save("".join(produced), turn, False)
                raise
            if not await anyio.to_thread.run_sync(self._save, "".join(produced), turn, done):
                queue.put_nowait(ErrorEvent(message=NOT_SAVED))
        finally:
            queue.put_nowait(None)

    def _save(self, text: str, turn: PreparedTurn, done: bool) -> bool:
        try:
            save_reply(database=self.database, turn=turn, text=text, done=done)
        except Exception:
            log.exception("could not store the tutor's reply (session %s)", turn.session_id)
            return False
        return True

    @property
    def running(self) -> int:
        return len(self._tasks)

    async def aclose(self, timeout: float = DRAIN_SECONDS) -> None:
        """Let running turns finish (up to `timeout`), then cancel the rest; each stores what it
        produced."""
        tasks = set(self._tasks)
        if not tasks:
            return
        _, pending = await asyncio.wait(tasks, timeout=timeout)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)


async def _drain(queue: asyncio.Queue[AgentEvent | None]) -> AsyncIterator[AgentEvent]:
    while (event := await queue.get()) is not None:
        yield event
