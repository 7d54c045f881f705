"""Chat persistence on every storage backend: turns open, continue, list and delete sessions."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from tests.store.test_conformance import write_course
from tutorgraph.content.seeding import seed_content
from tutorgraph.errors import InputError, NotFoundError
from tutorgraph.settings import Settings
from tutorgraph.store import migrate, users
from tutorgraph.store.db import Database
from tutorgraph.store.models import ConceptMastery, Lesson, TutorQuizAnswer, TutorSession
from tutorgraph.tutor import quiz_grading, sessions
from tutorgraph.tutor.context import QuizCard
from tutorgraph.tutor.service import TurnRequest, prepare_turn, save_reply


@pytest.fixture
def backend_db(any_settings: Settings) -> Iterator[Database]:
    """A fresh database on each backend (the tutor tests' `database` is the seeded SQLite one)."""
    migrate.upgrade(any_settings)
    db = Database(any_settings)
    yield db
    db.dispose()


def test_tutor_and_explore_sessions_round_trip(
    backend_db: Database, any_settings: Settings, tmp_path: Path
) -> None:
    database = backend_db
    assert database.settings is any_settings
    write_course(tmp_path / "content")
    with database.session() as session:
        seed_content(session=session, content_dir=tmp_path / "content")
        ada = users.create_user(session=session, email="ada@x.org", password="x" * 9, name="Ada")
        bob = users.create_user(session=session, email="bob@x.org", password="x" * 9, name="Bob")
        attn, intro = (
            session.scalar(select(Lesson.id).where(Lesson.slug == slug))
            for slug in ("attn", "intro")
        )
    assert attn is not None and intro is not None

    first = prepare_turn(
        database=database,
        settings=any_settings,
        request=TurnRequest(
            kind="tutor", user_id=ada.id, message="What is a query?", lesson_id=attn
        ),
    )
    save_reply(database=database, turn=first, text="What do you think it is?")
    again = prepare_turn(
        database=database,
        settings=any_settings,
        request=TurnRequest(
            kind="tutor",
            user_id=ada.id,
            message="A question?",
            lesson_id=attn,
            session_id=first.session_id,
        ),
    )
    explored = prepare_turn(
        database=database,
        settings=any_settings,
        request=TurnRequest(kind="explore", user_id=ada.id, message="Anything on keys?"),
    )
    save_reply(database=database, turn=explored, text="Yes: the attention lesson.")

    assert again.session_id == first.session_id
    assert [(m.role, m.content) for m in again.messages[1:]] == [
        ("user", "What is a query?"),
        ("assistant", "What do you think it is?"),
        ("user", "A question?"),
    ]
    with database.session() as session:
        [mine] = sessions.list_tutor_sessions(session=session, user_id=ada.id)
        assert (mine.id, mine.message_count, mine.lesson_title) == (
            first.session_id,
            3,
            "Self-attention",
        )
        assert mine.title == "What is a query?" and mine.updated_at >= mine.created_at
        [exploration] = sessions.list_explore_sessions(session=session, user_id=ada.id)
        assert exploration.message_count == 2
        assert sessions.list_tutor_sessions(session=session, user_id=bob.id) == []
        with pytest.raises(NotFoundError):
            sessions.get_tutor_session(session=session, user_id=bob.id, session_id=mine.id)
    with pytest.raises(InputError, match="another lesson"):
        prepare_turn(
            database=database,
            settings=any_settings,
            request=TurnRequest(
                kind="tutor", user_id=ada.id, message="x", lesson_id=intro, session_id=mine.id
            ),
        )
    with database.session() as session:
        sessions.delete_tutor_session(session=session, user_id=ada.id, session_id=mine.id)
        sessions.delete_explore_session(session=session, user_id=ada.id, session_id=exploration.id)
    with database.session() as session:
        assert sessions.list_tutor_sessions(session=session, user_id=ada.id) == []
        assert sessions.list_explore_sessions(session=session, user_id=ada.id) == []


def test_a_quiz_card_counts_once_per_conversation_even_when_answered_twice_at_once(
    backend_db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two answers to one card race: the one stored first counts, the other is told so (the
    unique constraint decides, inside a savepoint, so the caller's transaction goes on)."""
    database = backend_db
    write_course(tmp_path / "content")
    card = QuizCard(id="q1", question="Which?", options=["a", "b"], correct_index=1, concept="qk")
    with database.session() as session:
        seed_content(session=session, content_dir=tmp_path / "content")
        ada = users.create_user(session=session, email="ada@x.org", password="x" * 9, name="Ada")
        lesson = session.scalars(select(Lesson).where(Lesson.slug == "attn")).one()
        chat = TutorSession(user_id=ada.id, lesson_id=lesson.id, title="t")
        session.add(chat)
        session.flush()
        chat_id, lesson_id, ada_id = chat.id, lesson.id, ada.id
    with database.session() as session:  # the answer that won the race, already committed
        session.add(
            TutorQuizAnswer(
                user_id=ada_id, session_id=chat_id, quiz_id="q1", selected_index=0, correct=False
            )
        )
    real_lookup = quiz_grading._stored_answer
    lookups: list[str] = []

    def late_lookup(session: Session, chat_id: str, quiz_id: str) -> TutorQuizAnswer | None:
        lookups.append(quiz_id)
        return None if len(lookups) == 1 else real_lookup(session, chat_id, quiz_id)

    monkeypatch.setattr(quiz_grading, "_stored_answer", late_lookup)
    with database.session() as session:
        outcome = quiz_grading.grade_choice(
            session=session,
            user_id=ada_id,
            chat=session.get_one(TutorSession, chat_id),
            lesson=session.get_one(Lesson, lesson_id),
            card=card,
            selected_index=1,
        )
        assert (outcome.recorded, outcome.correct, outcome.selected_index) == (False, False, 0)
        assert outcome.mastery.before == outcome.mastery.after
        assert session.scalars(select(ConceptMastery)).all() == []
    with database.session() as session:
        rows = session.scalars(select(TutorQuizAnswer)).all()
        assert [(r.quiz_id, r.selected_index) for r in rows] == [("q1", 0)]
        sessions.delete_tutor_session(session=session, user_id=ada_id, session_id=chat_id)
    with database.session() as session:
        assert session.scalars(select(TutorQuizAnswer)).all() == []  # gone with the chat
