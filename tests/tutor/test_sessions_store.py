"""Chat persistence on every storage backend: turns open, continue, list and delete sessions."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from tests.store.test_conformance import write_course
from tutorgraph.content.seeding import seed_content
from tutorgraph.errors import InputError, NotFoundError
from tutorgraph.settings import Settings
from tutorgraph.store import migrate, users
from tutorgraph.store.db import Database
from tutorgraph.store.models import Lesson
from tutorgraph.tutor import sessions
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
