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
from tutorgraph.store.models import ConceptMastery, Lesson, TutorQuizAnswer, TutorSession
from tutorgraph.tutor import quiz_grading, sessions
from tutorgraph.tutor.blocks import QuizBlock
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
        ada = users.create_user(
            session=session, email="ada@x.org", password="plenty long enough", name="Ada"
        )
        bob = users.create_user(
            session=session, email="bob@x.org", password="plenty long enough", name="Bob"
        )
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
            4,  # two turns: the second reply is there already, empty and marked interrupted
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


def test_a_quiz_card_counts_once_per_learner_and_only_once_shown(
    backend_db: Database, tmp_path: Path
) -> None:
    """The first answer to a shown card counts, in whichever conversation; later answers (a
    retry, another conversation) are graded but leave mastery alone; an unshown card is not
    there to answer. Each conversation remembers its latest answer."""
    database = backend_db
    write_course(tmp_path / "content")
    card = QuizCard(id="q1", question="Which?", options=["a", "b"], correct_index=1, concept="qk")
    with database.session() as session:
        seed_content(session=session, content_dir=tmp_path / "content")
        ada = users.create_user(
            session=session, email="ada@x.org", password="plenty long enough", name="Ada"
        )
        lesson = session.scalars(select(Lesson).where(Lesson.slug == "attn")).one()
        chats = [TutorSession(user_id=ada.id, lesson_id=lesson.id, title=t) for t in "ab"]
        session.add_all(chats)
        session.flush()
        first_chat, second_chat = (chat.id for chat in chats)
        lesson_id, ada_id = lesson.id, ada.id

    def answer(chat_id: str, index: int) -> quiz_grading.QuizOutcome:
        with database.session() as session:
            return quiz_grading.grade_choice(
                session=session,
                user_id=ada_id,
                chat=session.get_one(TutorSession, chat_id),
                lesson=session.get_one(Lesson, lesson_id),
                quiz_id=card.id,
                selected_index=index,
            )

    with pytest.raises(NotFoundError):
        answer(first_chat, 1)  # never shown to Ada
    with database.session() as session:
        shown = quiz_grading.register_card(
            session=session,
            user_id=ada_id,
            lesson=session.get_one(Lesson, lesson_id),
            chat_id=first_chat,
            block=QuizBlock(**card.model_dump(exclude={"reference_answer"})),
        )
    assert shown.startswith("chat-")  # not one of the lesson's cards: kept whole, a new id
    card = card.model_copy(update={"id": shown})
    wrong = answer(first_chat, 0)
    retry = answer(first_chat, 1)
    elsewhere = answer(second_chat, 1)
    assert (wrong.recorded, wrong.correct, wrong.correct_index, wrong.explanation) == (
        True,
        False,
        None,
        None,
    )
    assert wrong.mastery.after < wrong.mastery.before or wrong.mastery.before == 0
    for later in (retry, elsewhere):
        assert (later.recorded, later.correct, later.correct_index) == (False, True, 1)
        assert later.mastery.before == later.mastery.after == wrong.mastery.after
    with database.session() as session:
        mastery_rows = session.scalars(select(ConceptMastery)).all()
        assert [(row.concept, row.attempts) for row in mastery_rows] == [("qk", 1)]
        rows = session.scalars(select(TutorQuizAnswer).order_by(TutorQuizAnswer.id)).all()
        assert [(r.session_id, r.selected_index) for r in rows] == [
            (first_chat, 1),  # the latest answer: right after a wrong one
            (second_chat, 1),
        ]
