"""Guided tutor sessions: the coordinator graph (`session_graph`) behind the REST and WebSocket
endpoints. A session is one of the learner's lesson conversations (`TutorSession`): its id keys
the graph's checkpointer thread, and its explanations are ordinary tutor turns of that same
conversation (stored, and continued by the lesson chat). To anyone else it does not exist."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

from tutorgraph.llm import Model, TextDelta
from tutorgraph.store import courses
from tutorgraph.store.db import Database
from tutorgraph.store.models import User, new_uuid
from tutorgraph.store.thread_locks import ThreadLocks
from tutorgraph.tutor import sessions
from tutorgraph.tutor.agent_loop import AgentEvent
from tutorgraph.tutor.context import Mode
from tutorgraph.tutor.service import TurnRequest, TutorRuntime, writing
from tutorgraph.tutor.session_graph import (
    Graph,
    InputKind,
    SessionState,
    run_turn,
    session_state,
)

OnEvent = Callable[[AgentEvent], Awaitable[None]]
TITLE = "Guided session: {lesson}"


class PublicQuiz(BaseModel):
    """A question as the learner sees it: no answer."""

    id: str
    question: str
    options: list[str]


class Reply(BaseModel):
    """What the tutor said in a turn: an assistant message (maybe a quiz question), or the
    verdict on a quiz answer (`feedback`, with `correct`)."""

    type: Literal["assistant", "feedback"]
    text: str
    quiz: PublicQuiz | None = None
    correct: bool | None = None


class SessionStatus(BaseModel):
    session_id: str
    lesson_id: int
    started: bool = Field(description="The welcome has been given.")
    ended: bool = Field(description="Summarized; a new message starts the session again.")
    awaiting_quiz_answer: bool
    question: PublicQuiz | None = Field(description="The quiz question waiting for an answer.")
    quiz_position: int = Field(description="Questions of the current quiz answered so far.")
    quiz_length: int
    last_answer_correct: bool | None
    covered: list[str] = Field(description="What the session went through.")
    review: list[str] = Field(description="Concepts and questions to review.")
    messages: int = Field(description="Messages in the session, the learner's and the tutor's.")


class SessionTurn(BaseModel):
    session_id: str
    replies: list[Reply]
    status: SessionStatus


@dataclass(frozen=True)
class GuidedSession:
    id: str
    user_id: int
    lesson_id: int


def start_session(*, database: Database, user: User, lesson_id: int) -> GuidedSession:
    """A new session about a lesson the learner can see (NotFound otherwise)."""
    chat_id = new_uuid()
    with database.session() as session:
        lesson = courses.get_lesson(session=session, lesson_id=lesson_id, user=user)
        title = TITLE.format(lesson=lesson.title)
    with writing(database) as session:
        sessions.create_tutor_session(
            session=session,
            chat_id=chat_id,
            user_id=user.id,
            lesson_id=lesson_id,
            first_message=title,
        )
    return GuidedSession(chat_id, user.id, lesson_id)


def open_session(*, database: Database, user_id: int, session_id: str) -> GuidedSession:
    """One of the learner's sessions (NotFound for anyone else's)."""
    with database.session() as session:
        chat = sessions.get_tutor_session(session=session, user_id=user_id, session_id=session_id)
        return GuidedSession(chat.id, chat.user_id, chat.lesson_id)


class Coordinator:
    """Runs turns of guided sessions; explanations go through the tutor's agent loop."""

    def __init__(
        self,
        *,
        graph: Graph,
        database: Database,
        runtime: TutorRuntime,
        model: Model,
        threads: ThreadLocks,
    ) -> None:
        self.graph = graph
        self.database = database
        self.runtime = runtime
        self.model = model
        self.threads = threads  # one turn of a session at a time (two tabs on one session)

    async def turn(
        self,
        guided: GuidedSession,
        text: str | None,
        *,
        kind: InputKind = "message",
        mode: Mode = "default",
        on_event: OnEvent | None = None,
    ) -> SessionTurn:
        """One learner input (None: only the welcome, once). `on_event` sees the explanation's
        events as they stream; its text is then left out of the replies."""

        async def explain(question: str) -> str:
            request = TurnRequest(
                kind="tutor",
                user_id=guided.user_id,
                message=question,
                mode=mode,
                session_id=guided.id,
                lesson_id=guided.lesson_id,
            )
            _, events = await self.runtime.start(request, model=self.model)
            parts: list[str] = []
            async for event in events:
                if isinstance(event, TextDelta):
                    parts.append(event.delta)
                if on_event is not None:
                    await on_event(event)
            return "".join(parts)

        async with self.threads.hold(f"tutor-session:{guided.id}"):
            state = await run_turn(
                self.graph,
                session_id=guided.id,
                database=self.database,
                user_id=guided.user_id,
                lesson_id=guided.lesson_id,
                text=text,
                kind=kind,
                explain=explain,
            )
        replies = [
            _reply(raw)
            for raw in state.get("replies", [])
            if not (raw.get("streamed") and on_event is not None)
        ]
        return SessionTurn(session_id=guided.id, replies=replies, status=_status(guided, state))

    async def status(self, guided: GuidedSession) -> SessionStatus:
        return _status(guided, await session_state(self.graph, guided.id))


def _reply(raw: dict[str, Any]) -> Reply:
    quiz = raw.get("quiz")
    if raw.get("feedback"):
        return Reply(type="feedback", text=raw["text"], correct=bool(raw.get("correct")))
    return Reply(
        type="assistant",
        text=raw["text"],
        quiz=PublicQuiz.model_validate(quiz) if quiz else None,
    )


def _status(guided: GuidedSession, state: SessionState) -> SessionStatus:
    cards = state.get("current_quiz") or []
    position = state.get("quiz_position", 0)
    waiting = bool(state.get("awaiting_quiz_answer")) and position < len(cards)
    return SessionStatus(
        session_id=guided.id,
        lesson_id=guided.lesson_id,
        started=bool(state.get("welcomed")),
        ended=bool(state.get("ended")),
        awaiting_quiz_answer=waiting,
        question=PublicQuiz.model_validate(cards[position]) if waiting else None,
        quiz_position=position,
        quiz_length=len(cards),
        last_answer_correct=state.get("last_answer_correct"),
        covered=list(state.get("covered", [])),
        review=list(state.get("review", [])),
        messages=len(state.get("messages", [])),
    )
