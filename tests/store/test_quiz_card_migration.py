"""Migration 0007 on SQLite and PostgreSQL: it matches the model, and replies stored before it
lose their quiz answers (kept server-side instead, where they can still be graded)."""

from __future__ import annotations

import json
from pathlib import Path

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import select, text

from tests.store.test_conformance import write_course
from tutorgraph.content.seeding import seed_content
from tutorgraph.settings import Settings
from tutorgraph.store import migrate, users
from tutorgraph.store.db import Database
from tutorgraph.store.models import Base, ExplorationSession, Lesson, TutorSession
from tutorgraph.tutor import quiz_grading
from tutorgraph.tutor.quiz_grading import answered_cards

LESSON_CARD = {"id": "q1", "question": "Which?", "options": ["a", "b"], "correct_index": 1}
MODEL_CARD = {
    "id": "q1",  # the lesson's id, but not the lesson's card
    "question": "What scales the scores?",
    "options": ["sqrt(d_k)", "d_k"],
    "correct_index": 0,
    "explanation": "Unit variance.",
}


def _quiz(card: dict[str, object]) -> str:
    return f"<quiz>{json.dumps(card)}</quiz>"


def _stored_before_0007(database: Database, content: Path) -> tuple[int, int]:
    with database.session() as session:
        seed_content(session=session, content_dir=content)
        ada = users.create_user(
            session=session, email="ada@x.org", password="plenty long enough", name="Ada"
        )
        lesson = session.scalars(select(Lesson).where(Lesson.slug == "attn")).one()
        lesson.quiz = [LESSON_CARD]
        ids = {"user": ada.id, "lesson": lesson.id}
    rows = [
        "INSERT INTO tutor_sessions (id, user_id, lesson_id, title, created_at, updated_at) "
        "VALUES ('t1', :user, :lesson, 'T', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)",
        "INSERT INTO exploration_sessions (id, user_id, title, created_at, updated_at) "
        "VALUES ('e1', :user, 'E', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)",
        "INSERT INTO chat_messages (user_id, lesson_id, session_id, role, content, created_at, "
        "interrupted) VALUES (:user, :lesson, 't1', 'assistant', :tutor, CURRENT_TIMESTAMP, false)",
        "INSERT INTO exploration_messages (user_id, session_id, role, content, created_at, "
        "interrupted) VALUES (:user, 'e1', 'assistant', :explore, CURRENT_TIMESTAMP, false)",
    ]
    with database.engine.begin() as connection:
        for row in rows:
            connection.execute(
                text(row),
                {
                    **ids,
                    "tutor": f"A: {_quiz(LESSON_CARD)} B: {_quiz(MODEL_CARD)} C: <quiz>{{</quiz>",
                    "explore": f"Try: {_quiz(MODEL_CARD)}",
                },
            )
    return ids["user"], ids["lesson"]


def test_0007_keeps_stored_answers_server_side_and_matches_the_model(
    any_settings: Settings, tmp_path: Path
) -> None:
    write_course(tmp_path / "content")
    migrate.upgrade(any_settings, "0006")
    database = Database(any_settings)
    try:
        user_id, lesson_id = _stored_before_0007(database, tmp_path / "content")
        migrate.upgrade(any_settings)
        with database.engine.connect() as connection:
            diffs = compare_metadata(MigrationContext.configure(connection), Base.metadata)
            assert [d for d in diffs if "tutor_quiz" in repr(d)] == []
            tutor = connection.execute(text("SELECT content FROM chat_messages")).scalar_one()
            explore = connection.execute(text("SELECT content FROM exploration_messages")).scalar()
        assert "correct_index" not in tutor + str(explore) and "Unit variance" not in tutor
        assert tutor.startswith('A: <quiz>{"id": "q1", "question": "Which?"') and "C: " in tutor
        assert tutor.endswith("C: ")  # a broken card is dropped
        kept = tutor.split('B: <quiz>{"id": "')[1].split('"')[0]
        assert kept.startswith("chat-")

        with database.session() as session:
            chat = session.get_one(TutorSession, "t1")
            lesson = session.get_one(Lesson, lesson_id)
            graded = quiz_grading.grade_choice(
                session=session,
                user_id=user_id,
                chat=chat,
                lesson=lesson,
                quiz_id=kept,
                selected_index=0,
            )
            assert graded.correct and graded.explanation == "Unit variance."
            explore_card = explore and explore.split('"id": "')[1].split('"')[0]
            chat_e = session.get_one(ExplorationSession, "e1")
            graded = quiz_grading.grade_choice(
                session=session,
                user_id=user_id,
                chat=chat_e,
                lesson=None,
                quiz_id=str(explore_card),
                selected_index=1,
            )
            assert not graded.correct and graded.mastery is None
            assert set(answered_cards(session=session, chat=chat_e, lesson=None)) == {explore_card}

        command.downgrade(migrate.alembic_config(any_settings), "0006")  # and back again
        migrate.upgrade(any_settings)
    finally:
        database.dispose()
