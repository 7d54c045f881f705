"""A lesson of a course built from uploads has a tutor that answers from that course, even when a
shipped course covers the same idea."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import seeded_copy
from tests.constructor.sources import write_sources
from tutorgraph.constructor.build import build_course, uploads_from
from tutorgraph.constructor.publish import publish_course
from tutorgraph.content.extract import ExtractionLimits
from tutorgraph.content.retrieval import SearchIndexes
from tutorgraph.engines import offline_engine
from tutorgraph.llm import Message, OfflineEngine, TextDelta, ToolResultEvent
from tutorgraph.store import courses, users
from tutorgraph.store.db import Database
from tutorgraph.tutor.agent_loop import run_agent
from tutorgraph.tutor.context import build_lesson_context
from tutorgraph.tutor.offline_tutor import register_offline_tutor
from tutorgraph.tutor.tool_handlers import ToolExecutor
from tutorgraph.tutor.tools import tools_for


async def test_the_tutor_of_an_authored_lesson_answers_from_its_own_course(
    tmp_path: Path, seeded_data: Path
) -> None:
    settings = seeded_copy(tmp_path, seeded_data)
    state = await build_course(
        uploads_from(write_sources(tmp_path / "src"), ExtractionLimits()),
        model=offline_engine(),
        title="Python basics",
    )
    database = Database(settings)
    try:
        with database.session() as session:
            owner = users.create_user(
                session=session, email="ann@example.org", password="plenty long enough", name="Ann"
            )
            publish_course(session, state, owner_id=owner.id, slug="python-basics")
            session.commit()
            course = courses.get_course(session=session, slug="python-basics", user=owner)
            lesson = next(
                x for x in courses.course_lessons(course) if "function" in x.title.lower()
            )
            context = build_lesson_context(
                session=session, lesson=lesson, user=owner, mode="default"
            )
        engine = OfflineEngine()
        register_offline_tutor(engine)
        tools = tools_for(settings.search)
        executor = ToolExecutor(
            context=context,
            database=database,
            indexes=SearchIndexes(settings.index_dir),
            search=settings.search,
            allowed=[t.name for t in tools],
        )
        question = "What is a return value?"
        messages = [Message.system("(prompt)"), Message.user(question)]
        events = [
            e
            async for e in run_agent(
                model=engine,
                messages=messages,
                tools=tools,
                executor=executor,
                agent="tutor",
                inputs=context,
            )
        ]
    finally:
        database.dispose()
    text = "".join(e.delta for e in events if isinstance(e, TextDelta))
    hits = [h for e in events if isinstance(e, ToolResultEvent) for h in e.result["results"]]
    assert hits and hits[0]["course"] == "python-basics", hits[0]
    assert "hands back to its caller" in text, text  # the uploaded chapter's own definition
