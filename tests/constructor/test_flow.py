"""The coordinator graph end to end: three formats in, reviews as interrupts that survive a
restart, the model's proposed action validated, and publishing into a private course whose
knowledge base assessment, grading and the quiz-bank export can use."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langgraph.types import Command
from sqlalchemy import func, select

from tests.conftest import make_settings
from tests.constructor.sources import write_sources
from tutorgraph.constructor.agents import CoordinatorOutput
from tutorgraph.constructor.build import build_course, uploads_from
from tutorgraph.constructor.context import ConstructorContext, Upload
from tutorgraph.constructor.graph import compile_graph
from tutorgraph.constructor.publish import publish_course
from tutorgraph.constructor.state import CHECKPOINT_TYPES, ConstructorState
from tutorgraph.content.extract import ExtractionLimits
from tutorgraph.content.quiz_export import quiz_bank
from tutorgraph.engines import offline_engine
from tutorgraph.knowledge import find_topic, get_domain, visible_knowledge
from tutorgraph.llm import Model
from tutorgraph.llm.scripted import ScriptedEngine
from tutorgraph.store import courses, users
from tutorgraph.store.checkpoints import open_checkpointer
from tutorgraph.store.db import Database
from tutorgraph.store.models import AuthoredDomain, LearningPath, Lesson


def sources(tmp_path: Path) -> list[Upload]:
    return uploads_from(write_sources(tmp_path / "src"), ExtractionLimits())


def context(uploads: list[Upload], model: Model | None = None) -> ConstructorContext:
    by_id = {u.upload_id: u for u in uploads}

    async def publish(_state: ConstructorState) -> str:
        return "published-slug"

    return ConstructorContext(
        model=model or offline_engine(),
        read_uploads=lambda ids: [by_id[i] for i in ids if i in by_id],
        store_image=lambda *_args: None,
        mark_upload=lambda *_args: None,
        publish=publish,
    )


CONFIG: Any = {"configurable": {"thread_id": "t"}}


async def test_reviews_are_interrupts_that_survive_a_restart(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    uploads = sources(tmp_path)
    ctx = context(uploads)
    async with open_checkpointer(settings, allowed_types=CHECKPOINT_TYPES) as saver:
        graph = compile_graph(saver)
        first = await graph.ainvoke({"request": {"message": ""}}, CONFIG, context=ctx)
        assert (
            first["phase"] == "collecting"
            and "Upload your files" in first["messages"][-1]["content"]
        )
        read = await graph.ainvoke(
            {
                "request": {"message": "here you go"},
                "pending_uploads": [u.upload_id for u in uploads],
            },
            CONFIG,
            context=ctx,
        )
        assert read["phase"] == "ingested" and [f.kind for f in read["files"]] == [
            "markdown",
            "pdf",
            "docx",
        ]
        await graph.ainvoke({"request": {"message": "yes"}}, CONFIG, context=ctx)
        waiting = await graph.aget_state(CONFIG)
        assert [i.value["kind"] for i in waiting.interrupts] == ["structure"]
        titles = [t.title for t in waiting.values["structure"].topics]
        assert {"Defining functions", "For loops", "Handling exceptions"} <= set(titles)

    # A new process: a new checkpointer and graph over the same file.
    async with open_checkpointer(settings, allowed_types=CHECKPOINT_TYPES) as saver:
        graph = compile_graph(saver)
        topic_id = (await graph.aget_state(CONFIG)).values["structure"].topics[0].topic_id
        bad = await graph.ainvoke(
            Command(resume={"edits": [{"op": "drop", "topic_id": "no-such-topic"}]}),
            CONFIG,
            context=ctx,
        )
        assert "did not apply" in bad["review_note"] and bad["phase"] == "structure_review"
        edits = [{"op": "rename", "topic_id": topic_id, "title": "Writing functions"}]
        done = await graph.ainvoke(
            Command(resume={"edits": edits, "approve": True}), CONFIG, context=ctx
        )
        assert done["phase"] == "structure_approved"
        assert done["structure"].topics[0].title == "Writing functions"
        assert "write the quiz" in done["messages"][-1]["content"]


async def test_an_invalid_model_action_falls_back_and_an_empty_reply_gets_text(
    tmp_path: Path,
) -> None:
    scripted = ScriptedEngine()
    scripted.enqueue_structured(CoordinatorOutput(action="delete_everything", reply=""))
    graph = compile_graph(None)
    ctx = context([], model=scripted)
    state: ConstructorState = await graph.ainvoke(
        {"request": {"message": "what can you do?"}}, CONFIG, context=ctx
    )
    assert state["action"] == "request_files"  # the deterministic choice for this phase
    assert "upload" in state["messages"][-1]["content"].lower()
    assert scripted.pending == 0


async def test_an_action_the_phase_does_not_allow_is_refused_with_the_reason() -> None:
    graph = compile_graph(None)
    state: ConstructorState = await graph.ainvoke(
        {"request": {"action": "publish"}}, CONFIG, context=context([])
    )
    assert state["action"] == "respond" and state["phase"] == "collecting"
    assert "can't publish yet" in state["messages"][-1]["content"]


async def test_publishing_makes_a_private_course_with_a_usable_knowledge_base(
    tmp_path: Path, database: Database
) -> None:
    state = await build_course(sources(tmp_path), model=offline_engine(), title="Python basics")
    assert state["phase"] == "validated" and state["report"] is not None
    with database.session() as session:
        owner = users.create_user(
            session=session, email="ann@example.org", password="plenty long enough", name="Ann"
        )
        other = users.create_user(
            session=session, email="bo@example.org", password="plenty long enough", name="Bo"
        )
        for _ in range(2):  # publishing again updates in place
            publish_course(session, state, owner_id=owner.id, slug="python-basics")
        session.flush()
        course = courses.get_course(session=session, slug="python-basics", user=owner)
        assert course.visibility == "private"
        with pytest.raises(Exception, match="no course"):
            courses.get_course(session=session, slug="python-basics", user=other)
        assert session.scalar(select(func.count()).select_from(LearningPath)) == 1
        lessons = session.scalar(select(func.count()).select_from(Lesson))
        assert lessons == len(state["structure"].topics)  # type: ignore[union-attr]
        assert session.scalar(select(func.count()).select_from(AuthoredDomain)) == 1
        first = courses.course_lessons(course)[0]
        assert first.concepts and find_topic(first.concepts[0]) is not None
        assert "## Key points" in first.reference_kb
        kb = get_domain("python-basics")
        assert kb.domain.topics[0].questions, "the quiz bank became the domain's questions"
        bank = quiz_bank(course, visible_knowledge(session=session, user=owner))
        assert len(bank.open_items) == len(state["quiz_bank"].kept())  # type: ignore[union-attr]


async def test_reading_with_nothing_uploaded_asks_for_files() -> None:
    graph = compile_graph(None)
    state: ConstructorState = await graph.ainvoke(
        {"request": {"action": "ingest"}}, CONFIG, context=context([])
    )
    assert state["phase"] == "collecting"
    assert state["messages"][-1]["content"].startswith("There are no new files to read")


async def test_the_published_message_links_the_course_page() -> None:
    """Issue 35: the message linked /courses/<slug>, a 404; the course's page is /learn/<slug>."""
    from types import SimpleNamespace

    from tutorgraph.constructor.coordinator import finalize

    async def publish(_state: object) -> str:
        return "python-basics"

    runtime = SimpleNamespace(context=SimpleNamespace(publish=publish))
    state = await finalize({"messages": []}, runtime)  # type: ignore[arg-type]
    text = state["messages"][-1]["content"]
    assert "/learn/python-basics" in text and "/courses/" not in text
