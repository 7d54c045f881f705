"""The interview service on each storage backend (SQLite, and PostgreSQL when its URL is set):
rows and LangGraph checkpoints in the same database, a finished interview's graded technical
answers in the learner's evaluation events, and a deleted resume taking its interviews and
their graph threads with it."""

from __future__ import annotations

from sqlalchemy import func, select

from tests.interview.harness import GOOD
from tests.interview.resumes import RESUME
from tutorgraph.engines import offline_engine
from tutorgraph.interview.context import InterviewContext
from tutorgraph.interview.service import InterviewService
from tutorgraph.settings import Settings
from tutorgraph.store import users
from tutorgraph.store.checkpoints import open_checkpointer
from tutorgraph.store.db import Database
from tutorgraph.store.models import ConceptMastery, EvaluationEvent, Interview


async def test_an_interview_on_each_backend(any_settings: Settings, database: Database) -> None:
    with database.session() as session:
        ann = users.create_user(
            session=session, email="ann@example.org", password="plenty long enough", name="Ann"
        ).id
    async with open_checkpointer(any_settings) as checkpointer:
        service = InterviewService(
            database=database,
            checkpointer=checkpointer,
            context=InterviewContext.for_model(offline_engine()),
        )
        resume = await service.add_resume(user_id=ann, text=RESUME)
        view = await service.start(user_id=ann, resume_id=resume.id, role="Dev", level="mid")
        view = await service.answer(interview_id=view.id, user_id=ann, text=GOOD)
        view = await service.answer(
            interview_id=view.id, user_id=ann, text="Can we do a technical assessment?"
        )
        assert view.phase == "technical"
        view = await service.answer(
            interview_id=view.id, user_id=ann, text="I am not sure, maybe a list?"
        )
        view = await service.end(interview_id=view.id, user_id=ann)
        assert view.status == "complete" and view.scorecard is not None
        with database.session() as session:
            events = session.scalars(
                select(EvaluationEvent).where(EvaluationEvent.user_id == ann)
            ).all()
            assert events and all(e.payload["source"]["kind"] == "interview" for e in events)
            known = {row.concept for row in session.scalars(select(ConceptMastery))}
            assert {e.concept for e in events} <= known  # the knowledge graph has them
        thread = f"interview-{view.id}"
        assert (await checkpointer.aget_tuple({"configurable": {"thread_id": thread}})) is not None
        await service.delete_resume(resume_id=resume.id, user_id=ann)
        with database.session() as session:
            assert session.scalar(select(func.count()).select_from(Interview)) == 0
        assert (await checkpointer.aget_tuple({"configurable": {"thread_id": thread}})) is None
