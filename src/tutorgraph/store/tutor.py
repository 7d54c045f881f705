"""The tutor's records: lesson chats (TutorSession / ChatMessage), explore chats
(ExplorationSession / ExplorationMessage), and the quiz cards shown in them with the answers that
count (TutorQuizCard) or that a conversation reopens with (TutorQuizAnswer)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, TypeVar

from sqlalchemy import Row, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from tutorgraph.store import atomic
from tutorgraph.store.models import (
    ChatMessage,
    ExplorationMessage,
    ExplorationSession,
    Lesson,
    TutorQuizAnswer,
    TutorQuizCard,
    TutorSession,
    utcnow,
)

ChatKind = Literal["tutor", "explore"]
ChatT = TypeVar("ChatT", TutorSession, ExplorationSession)
MessageT = TypeVar("MessageT", ChatMessage, ExplorationMessage)


# --- conversations -------------------------------------------------------------------------------


def add_tutor_chat(
    session: Session, *, chat_id: str, user_id: int, lesson_id: int, title: str
) -> None:
    session.add(TutorSession(id=chat_id, user_id=user_id, lesson_id=lesson_id, title=title))
    session.flush()


def add_explore_chat(session: Session, *, chat_id: str, user_id: int, title: str) -> None:
    session.add(ExplorationSession(id=chat_id, user_id=user_id, title=title))
    session.flush()


def chat_by_id(session: Session, kind: type[ChatT], chat_id: str) -> ChatT | None:
    return session.get(kind, chat_id)


def delete_chat(session: Session, chat: TutorSession | ExplorationSession) -> None:
    session.delete(chat)
    session.flush()


def latest_tutor_chat_id(session: Session, *, user_id: int, lesson_id: int) -> str | None:
    """The learner's most recently active conversation about this lesson, if any."""
    return session.scalar(
        select(TutorSession.id)
        .where(TutorSession.user_id == user_id, TutorSession.lesson_id == lesson_id)
        .order_by(TutorSession.updated_at.desc(), TutorSession.created_at.desc())
        .limit(1)
    )


def tutor_chats(
    session: Session, *, user_id: int, lesson_id: int | None = None
) -> Sequence[Row[TutorSession, str, int]]:
    """The learner's lesson chats (of one lesson, if given), most recently active first, each
    with its lesson's title and its number of messages."""
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
    return session.execute(query).all()


def explore_chats(session: Session, *, user_id: int) -> Sequence[Row[ExplorationSession, int]]:
    """The learner's explore chats, most recently active first, each with its number of
    messages."""
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
    return session.execute(query).all()


# --- messages ------------------------------------------------------------------------------------


def recent_messages(
    session: Session, rows: type[MessageT], chat_id: str, *, limit: int
) -> list[MessageT]:
    """The last `limit` messages of a conversation, oldest first."""
    found = session.scalars(
        select(rows).where(rows.session_id == chat_id).order_by(rows.id.desc()).limit(limit)
    ).all()
    return list(reversed(found))


def all_messages(session: Session, rows: type[MessageT], chat_id: str) -> Sequence[MessageT]:
    return session.scalars(select(rows).where(rows.session_id == chat_id).order_by(rows.id)).all()


def add_tutor_message(
    session: Session,
    *,
    chat_id: str,
    user_id: int,
    lesson_id: int,
    role: str,
    content: str,
    interrupted: bool = False,
) -> int:
    """Store a message and touch the chat (writes only: no read before the first write)."""
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


def add_explore_message(
    session: Session,
    *,
    chat_id: str,
    user_id: int,
    role: str,
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
    session: Session, *, kind: ChatKind, message_id: int, content: str, done: bool
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


def _touch(
    session: Session, kind: type[TutorSession] | type[ExplorationSession], chat_id: str
) -> None:
    session.execute(update(kind).where(kind.id == chat_id).values(updated_at=utcnow()))


# --- quiz cards ----------------------------------------------------------------------------------


def shown_card(
    session: Session, *, user_id: int, lesson_id: int | None, quiz_id: str
) -> TutorQuizCard | None:
    """The card shown to the learner in this lesson (None: in an explore chat)."""
    in_lesson = (
        TutorQuizCard.lesson_id.is_(None)
        if lesson_id is None
        else TutorQuizCard.lesson_id == lesson_id
    )
    return session.scalar(
        select(TutorQuizCard).where(
            TutorQuizCard.user_id == user_id, in_lesson, TutorQuizCard.quiz_id == quiz_id
        )
    )


def add_written_card(
    session: Session,
    *,
    user_id: int,
    lesson_id: int | None,
    quiz_id: str,
    chat_id: str,
    card: dict[str, Any],
) -> None:
    """Keep a card the tutor wrote itself, whole, with the conversation that showed it."""
    session.add(
        TutorQuizCard(
            user_id=user_id, lesson_id=lesson_id, quiz_id=quiz_id, session_id=chat_id, card=card
        )
    )
    session.flush()


def add_shown_card(session: Session, *, user_id: int, lesson_id: int, quiz_id: str) -> None:
    """Record that a lesson's card was shown to the learner; one recorded at the same moment
    by another request is kept instead."""
    try:
        with session.begin_nested():
            session.add(TutorQuizCard(user_id=user_id, lesson_id=lesson_id, quiz_id=quiz_id))
    except IntegrityError:  # shown at the same moment elsewhere: it is recorded
        return


def claim_counted_answer(session: Session, card: TutorQuizCard, selected_index: int) -> bool:
    """Claim the card's one counted answer; False when an earlier answer has it. A conditional
    update, so two answers at once cannot both count."""
    claimed = session.execute(
        update(TutorQuizCard)
        .where(TutorQuizCard.id == card.id, TutorQuizCard.counted_at.is_(None))
        .values(counted_index=selected_index, counted_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    return getattr(claimed, "rowcount", 0) == 1


def counted_cards_of_chat(session: Session, chat_id: str) -> Sequence[TutorQuizCard]:
    """The cards an explore chat showed that have their counted answer."""
    return session.scalars(
        select(TutorQuizCard).where(
            TutorQuizCard.session_id == chat_id, TutorQuizCard.counted_index.is_not(None)
        )
    ).all()


def conversation_answers(session: Session, chat_id: str) -> Sequence[TutorQuizAnswer]:
    """A lesson chat's latest answer to each card it showed."""
    return session.scalars(
        select(TutorQuizAnswer).where(TutorQuizAnswer.session_id == chat_id)
    ).all()


def conversation_answer_locked(
    session: Session, *, chat_id: str, quiz_id: str
) -> TutorQuizAnswer | None:
    """A lesson chat's answer to a card, locked until the transaction ends."""
    return atomic.locked(
        session,
        select(TutorQuizAnswer).where(
            TutorQuizAnswer.session_id == chat_id, TutorQuizAnswer.quiz_id == quiz_id
        ),
    )


def add_conversation_answer(
    session: Session,
    *,
    user_id: int,
    chat_id: str,
    quiz_id: str,
    selected_index: int,
    correct: bool,
    why: str | None,
) -> None:
    """Keep a lesson chat's first answer to a card; when the chat answered it twice at once,
    the other answer is kept."""
    try:
        with session.begin_nested():
            session.add(
                TutorQuizAnswer(
                    user_id=user_id,
                    session_id=chat_id,
                    quiz_id=quiz_id,
                    selected_index=selected_index,
                    correct=correct,
                    why=why,
                )
            )
    except IntegrityError:  # answered twice at once in this conversation: one is kept
        return
