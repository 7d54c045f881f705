"""Chat persistence: lesson chats (TutorSession / ChatMessage) and explore chats
(ExplorationSession / ExplorationMessage). A session belongs to one learner; to anyone else it
does not exist."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal, TypeVar

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from tutorgraph.errors import InputError, NotFoundError
from tutorgraph.llm import Message
from tutorgraph.store.models import (
    ChatMessage,
    ExplorationMessage,
    ExplorationSession,
    Lesson,
    TutorSession,
    utcnow,
)

ChatRole = Literal["user", "assistant"]
HISTORY_MESSAGES = 20
# What the model sees for a reply that was cut off before it said anything.
NO_REPLY = "(This reply was interrupted before it said anything.)"
TITLE_CHARS = 80


@dataclass(frozen=True)
class StoredMessage:
    id: int
    role: str
    content: str
    created_at: datetime
    interrupted: bool = False


@dataclass(frozen=True)
class SessionSummary:
    id: str
    title: str
    created_at: datetime
    updated_at: datetime
    message_count: int
    lesson_id: int | None = None
    lesson_title: str | None = None


def _title(message: str) -> str:
    line = " ".join(message.split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1] + "…"


# --- lesson chats --------------------------------------------------------------------------------


def continued_tutor_session(
    *, session: Session, user_id: int, lesson: Lesson, session_id: str
) -> TutorSession:
    """The learner's conversation about this lesson that a new message continues."""
    chat = get_tutor_session(session=session, user_id=user_id, session_id=session_id)
    if chat.lesson_id != lesson.id:
        raise InputError("session_id: that conversation belongs to another lesson")
    return chat


def create_tutor_session(
    *, session: Session, chat_id: str, user_id: int, lesson_id: int, first_message: str
) -> None:
    session.add(
        TutorSession(id=chat_id, user_id=user_id, lesson_id=lesson_id, title=_title(first_message))
    )
    session.flush()


def get_tutor_session(*, session: Session, user_id: int, session_id: str) -> TutorSession:
    return _owned(session, TutorSession, user_id=user_id, session_id=session_id)


def tutor_history(*, session: Session, chat: TutorSession) -> list[Message]:
    return _recent(session, ChatMessage, chat.id)


def add_tutor_message(
    *,
    session: Session,
    chat_id: str,
    user_id: int,
    lesson_id: int,
    role: ChatRole,
    content: str,
    interrupted: bool = False,
) -> int:
    """Store a message and touch the session (writes only: no read before the first write)."""
    message = ChatMessage(
        user_id=user_id,
        lesson_id=lesson_id,
        session_id=chat_id,
        role=role,
        content=content,
        interrupted=interrupted,
    )
    session.add(message)
    session.flush()
    _touch(session, TutorSession, chat_id)
    return message.id


def list_tutor_sessions(
    *, session: Session, user_id: int, lesson_id: int | None = None
) -> list[SessionSummary]:
    counts = (
        select(ChatMessage.session_id, func.count().label("n"))
        .group_by(ChatMessage.session_id)
        .subquery()
    )
    query = (
        select(TutorSession, Lesson.title, func.coalesce(counts.c.n, 0))
        .join(Lesson, Lesson.id == TutorSession.lesson_id)
        .outerjoin(counts, counts.c.session_id == TutorSession.id)
        .where(TutorSession.user_id == user_id)
        .order_by(TutorSession.updated_at.desc())
    )
    if lesson_id is not None:
        query = query.where(TutorSession.lesson_id == lesson_id)
    return [
        SessionSummary(
            id=chat.id,
            title=chat.title,
            created_at=chat.created_at,
            updated_at=chat.updated_at,
            message_count=int(count),
            lesson_id=chat.lesson_id,
            lesson_title=title,
        )
        for chat, title, count in session.execute(query).all()
    ]


def latest_tutor_session_id(*, session: Session, user_id: int, lesson_id: int) -> str | None:
    """The learner's most recently active conversation about this lesson, if any."""
    return session.scalar(
        select(TutorSession.id)
        .where(TutorSession.user_id == user_id, TutorSession.lesson_id == lesson_id)
        .order_by(TutorSession.updated_at.desc(), TutorSession.created_at.desc())
        .limit(1)
    )


def tutor_messages(*, session: Session, chat: TutorSession) -> list[StoredMessage]:
    return _all_messages(session, ChatMessage, chat.id)


def delete_tutor_session(*, session: Session, user_id: int, session_id: str) -> None:
    session.delete(get_tutor_session(session=session, user_id=user_id, session_id=session_id))
    session.flush()


# --- explore chats -------------------------------------------------------------------------------


def create_explore_session(
    *, session: Session, chat_id: str, user_id: int, first_message: str
) -> None:
    session.add(ExplorationSession(id=chat_id, user_id=user_id, title=_title(first_message)))
    session.flush()


def get_explore_session(*, session: Session, user_id: int, session_id: str) -> ExplorationSession:
    return _owned(session, ExplorationSession, user_id=user_id, session_id=session_id)


def explore_history(*, session: Session, chat: ExplorationSession) -> list[Message]:
    return _recent(session, ExplorationMessage, chat.id)


def add_explore_message(
    *,
    session: Session,
    chat_id: str,
    user_id: int,
    role: ChatRole,
    content: str,
    interrupted: bool = False,
) -> int:
    message = ExplorationMessage(
        user_id=user_id, session_id=chat_id, role=role, content=content, interrupted=interrupted
    )
    session.add(message)
    session.flush()
    _touch(session, ExplorationSession, chat_id)
    return message.id


def write_reply(
    *,
    session: Session,
    kind: Literal["tutor", "explore"],
    message_id: int,
    content: str,
    done: bool,
) -> None:
    """Update an assistant reply with what has streamed so far; `done` clears `interrupted`."""
    rows = ChatMessage if kind == "tutor" else ExplorationMessage
    chats = TutorSession if kind == "tutor" else ExplorationSession
    session.execute(
        update(rows)
        .where(rows.id == message_id)
        .values(content=content, interrupted=not done)
        .execution_options(synchronize_session=False)
    )
    chat_id = session.scalar(select(rows.session_id).where(rows.id == message_id))
    if chat_id is not None:
        _touch(session, chats, chat_id)


def list_explore_sessions(*, session: Session, user_id: int) -> list[SessionSummary]:
    counts = (
        select(ExplorationMessage.session_id, func.count().label("n"))
        .group_by(ExplorationMessage.session_id)
        .subquery()
    )
    query = (
        select(ExplorationSession, func.coalesce(counts.c.n, 0))
        .outerjoin(counts, counts.c.session_id == ExplorationSession.id)
        .where(ExplorationSession.user_id == user_id)
        .order_by(ExplorationSession.updated_at.desc())
    )
    return [
        SessionSummary(
            id=chat.id,
            title=chat.title,
            created_at=chat.created_at,
            updated_at=chat.updated_at,
            message_count=int(count),
        )
        for chat, count in session.execute(query).all()
    ]


def explore_messages(*, session: Session, chat: ExplorationSession) -> list[StoredMessage]:
    return _all_messages(session, ExplorationMessage, chat.id)


def delete_explore_session(*, session: Session, user_id: int, session_id: str) -> None:
    session.delete(get_explore_session(session=session, user_id=user_id, session_id=session_id))
    session.flush()


# --- shared by both kinds ------------------------------------------------------------------------

ChatT = TypeVar("ChatT", TutorSession, ExplorationSession)
MessageT = TypeVar("MessageT", ChatMessage, ExplorationMessage)


def _owned(session: Session, kind: type[ChatT], *, user_id: int, session_id: str) -> ChatT:
    chat = session.get(kind, session_id)
    if chat is None or chat.user_id != user_id:
        raise NotFoundError(f"no conversation {session_id}")
    return chat


def _recent(session: Session, rows: type[MessageT], chat_id: str) -> list[Message]:
    """The last HISTORY_MESSAGES messages of a conversation, oldest first, as model messages."""
    found = session.scalars(
        select(rows)
        .where(rows.session_id == chat_id)
        .order_by(rows.id.desc())
        .limit(HISTORY_MESSAGES)
    ).all()
    return [
        Message.assistant(row.content or NO_REPLY)
        if row.role == "assistant"
        else Message.user(row.content)
        for row in reversed(found)
    ]


def _all_messages(session: Session, rows: type[MessageT], chat_id: str) -> list[StoredMessage]:
    found = session.scalars(select(rows).where(rows.session_id == chat_id).order_by(rows.id)).all()
    return [
        StoredMessage(row.id, row.role, row.content, row.created_at, row.interrupted)
        for row in found
    ]


def _touch(
    session: Session, kind: type[TutorSession] | type[ExplorationSession], chat_id: str
) -> None:
    session.execute(update(kind).where(kind.id == chat_id).values(updated_at=utcnow()))
