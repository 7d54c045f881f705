"""Repository and checkpointer conformance, run on SQLite and on PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypedDict

import pytest
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt
from sqlalchemy import func, select

from tutorgraph.content.seeding import seed_content
from tutorgraph.errors import ConflictError, InputError
from tutorgraph.settings import Settings
from tutorgraph.store import users
from tutorgraph.store.checkpoints import open_checkpointer
from tutorgraph.store.db import Database
from tutorgraph.store.models import ChatMessage, LearningPath, Lesson, TutorSession


def test_users_are_unique_by_normalised_email(database: Database) -> None:
    with database.session() as session:
        user = users.create_user(
            session=session, email="Ada@Example.org ", password="plenty long enough", name="Ada"
        )
        assert user.email == "ada@example.org"
    with database.session() as session, pytest.raises(ConflictError):
        users.create_user(
            session=session, email="ADA@example.org", password="plenty long enough", name="A"
        )
    with database.session() as session:
        found = users.get_user_by_email(session=session, email="ada@EXAMPLE.org")
        assert found is not None and found.role == "learner"


@pytest.mark.parametrize(
    ("email", "password", "name", "field"),
    [
        ("not-an-email", "plenty long enough", "Ada", "email"),
        ("a@b.co", "short", "Ada", "password"),
        ("a@b.co", "plenty long enough", "   ", "name"),
    ],
)
def test_invalid_accounts_are_rejected_with_the_field_named(
    database: Database, email: str, password: str, name: str, field: str
) -> None:
    with database.session() as session, pytest.raises(InputError, match=f"^{field}:"):
        users.create_user(session=session, email=email, password=password, name=name)


def write_course(root: Path, *, lesson_title: str = "Self-attention") -> None:
    course = root / "demo"
    (course / "enrichment").mkdir(parents=True, exist_ok=True)
    (course / "lessons").mkdir(exist_ok=True)
    (course / "lessons" / "attn.md").write_text("# Attention\n\nQueries meet keys.\n")
    (course / "enrichment" / "attn_reference_kb.md").write_text("## Scaling\n\nDivide by sqrt.\n")
    manifest = {
        "slug": "demo",
        "title": "Demo",
        "domain": "machine-learning",
        "modules": [
            {
                "title": "M1",
                "lessons": [
                    {"slug": "attn", "title": lesson_title, "content_file": "lessons/attn.md"},
                    {"slug": "intro", "title": "Intro", "content": "Hello"},
                ],
            }
        ],
    }
    (course / "course.json").write_text(json.dumps(manifest))


def test_seeding_is_idempotent_and_updates_changed_lessons(
    database: Database, tmp_path: Path
) -> None:
    content = tmp_path / "content"
    write_course(content)
    with database.session() as session:
        first = seed_content(session=session, content_dir=content)
    with database.session() as session:
        again = seed_content(session=session, content_dir=content)
    write_course(content, lesson_title="Self-attention, revised")
    with database.session() as session:
        changed = seed_content(session=session, content_dir=content)
    assert (first.created, first.updated) == (2, 0)
    assert (again.created, again.updated, again.unchanged) == (0, 0, 2)
    assert (changed.created, changed.updated, changed.unchanged) == (0, 1, 1)
    assert changed.changed_courses == ["demo"] and again.changed_courses == []
    with database.session() as session:
        assert session.scalar(select(func.count()).select_from(Lesson)) == 2
        path = session.scalar(select(LearningPath).where(LearningPath.slug == "demo"))
        assert path is not None and path.visibility == "public"
        lesson = session.scalar(select(Lesson).where(Lesson.slug == "attn"))
        assert lesson is not None
        assert lesson.title == "Self-attention, revised"
        assert lesson.reference_kb.startswith("## Scaling")


def test_chat_rows_cascade_with_their_session(database: Database, tmp_path: Path) -> None:
    write_course(tmp_path / "content")
    with database.session() as session:
        seed_content(session=session, content_dir=tmp_path / "content")
        user = users.create_user(
            session=session, email="a@b.co", password="plenty long enough", name="A"
        )
        lesson = session.scalars(select(Lesson)).first()
        assert lesson is not None
        chat = TutorSession(user_id=user.id, lesson_id=lesson.id)
        session.add(chat)
        session.flush()
        session.add(
            ChatMessage(
                user_id=user.id, lesson_id=lesson.id, session_id=chat.id, role="user", content="hi"
            )
        )
    with database.session() as session:
        session.delete(session.get(TutorSession, chat.id))
    with database.session() as session:
        assert session.scalar(select(func.count()).select_from(ChatMessage)) == 0


class CounterState(TypedDict):
    answers: list[str]


def build_counter_graph() -> StateGraph[CounterState]:
    def ask(state: CounterState) -> dict[str, list[str]]:
        answer = interrupt({"question": f"question {len(state['answers']) + 1}"})
        return {"answers": [*state["answers"], answer]}

    graph = StateGraph(CounterState)
    graph.add_node("ask", ask)
    graph.add_edge(START, "ask")
    graph.add_conditional_edges("ask", lambda s: END if len(s["answers"]) >= 2 else "ask")
    return graph


async def test_checkpointer_resumes_after_reopening(any_settings: Settings) -> None:
    config = {"configurable": {"thread_id": "t-1"}}
    async with open_checkpointer(any_settings) as saver:
        graph = build_counter_graph().compile(checkpointer=saver)
        result = await graph.ainvoke({"answers": []}, config)
        assert result["__interrupt__"][0].value == {"question": "question 1"}
        await graph.ainvoke(Command(resume="first"), config)
    # A new process: a fresh checkpointer and a freshly compiled graph on the same storage.
    async with open_checkpointer(any_settings) as saver:
        graph = build_counter_graph().compile(checkpointer=saver)
        snapshot = await graph.aget_state(config)
        assert snapshot.next == ("ask",)
        assert snapshot.values["answers"] == ["first"]
        result = await graph.ainvoke(Command(resume="second"), config)
        assert result["answers"] == ["first", "second"]
        assert (await graph.aget_state(config)).next == ()
