"""Lesson chats and explore chats as the tutor uses them: a conversation belongs to one learner
(to anyone else it does not exist), continues in its own lesson, and gives the model its recent
history. The rows are kept by `store.tutor`."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlalchemy.orm import Session

from tutorgraph.errors import InputError, NotFoundError
from tutorgraph.llm import Message
from tutorgraph.store import tutor as stored
from tutorgraph.store.models import (
    ChatMessage,
    ExplorationMessage,
    ExplorationSession,
    Lesson,
    TutorSession,
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
    stored.add_tutor_chat(
        session, chat_id=chat_id, user_id=user_id, lesson_id=lesson_id, title=_title(first_message)
    )


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
    return stored.add_tutor_message(
        session,
        chat_id=chat_id,
        user_id=user_id,
        lesson_id=lesson_id,
        role=role,
        content=content,
        interrupted=interrupted,
    )


def list_tutor_sessions(
    *, session: Session, user_id: int, lesson_id: int | None = None
) -> list[SessionSummary]:
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
        for chat, title, count in stored.tutor_chats(session, user_id=user_id, lesson_id=lesson_id)
    ]


def latest_tutor_session_id(*, session: Session, user_id: int, lesson_id: int) -> str | None:
    """The learner's most recently active conversation about this lesson, if any."""
    return stored.latest_tutor_chat_id(session, user_id=user_id, lesson_id=lesson_id)


def tutor_messages(*, session: Session, chat: TutorSession) -> list[StoredMessage]:
    return _all_messages(session, ChatMessage, chat.id)


def delete_tutor_session(*, session: Session, user_id: int, session_id: str) -> None:
    stored.delete_chat(
        session, get_tutor_session(session=session, user_id=user_id, session_id=session_id)
    )


# --- explore chats -------------------------------------------------------------------------------


def create_explore_session(
    *, session: Session, chat_id: str, user_id: int, first_message: str
) -> None:
    stored.add_explore_chat(session, chat_id=chat_id, user_id=user_id, title=_title(first_message))


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
    return stored.add_explore_message(
        session,
        chat_id=chat_id,
        user_id=user_id,
        role=role,
        content=content,
        interrupted=interrupted,
    )


def write_reply(
    *,
    session: Session,
    kind: Literal["tutor", "explore"],
    message_id: int,
    content: str,
    done: bool,
) -> None:
    """Update an assistant reply with what has streamed so far; `done` clears `interrupted`."""
    stored.write_reply(session, kind=kind, message_id=message_id, content=content, done=done)


def list_explore_sessions(*, session: Session, user_id: int) -> list[SessionSummary]:
    return [
        SessionSummary(
            id=chat.id,
            title=chat.title,
            created_at=chat.created_at,
            updated_at=chat.updated_at,
            message_count=int(count),
        )
        for chat, count in stored.explore_chats(session, user_id=user_id)
    ]


def explore_messages(*, session: Session, chat: ExplorationSession) -> list[StoredMessage]:
    return _all_messages(session, ExplorationMessage, chat.id)


def delete_explore_session(*, session: Session, user_id: int, session_id: str) -> None:
    stored.delete_chat(
        session, get_explore_session(session=session, user_id=user_id, session_id=session_id)
    )


# --- shared by both kinds ------------------------------------------------------------------------


def _owned(
    session: Session, kind: type[stored.ChatT], *, user_id: int, session_id: str
) -> stored.ChatT:
    chat = stored.chat_by_id(session, kind, session_id)
    if chat is None or chat.user_id != user_id:
        raise NotFoundError(f"no conversation {session_id}")
    return chat


def _recent(session: Session, rows: type[stored.MessageT], chat_id: str) -> list[Message]:
    """The last HISTORY_MESSAGES messages of a conversation, oldest first, as model messages."""
    found = stored.recent_messages(session, rows, chat_id, limit=HISTORY_MESSAGES)
    return [
        Message.assistant(row.content or NO_REPLY)
        if row.role == "assistant"
        else Message.user(row.content)
        for row in found
    ]


def _all_messages(
    session: Session, rows: type[stored.MessageT], chat_id: str
) -> list[StoredMessage]:
    return [
        StoredMessage(row.id, row.role, row.content, row.created_at, row.interrupted)
        for row in stored.all_messages(session, rows, chat_id)
    ]
