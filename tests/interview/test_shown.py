"""What the interview page is given to show: a finished interview's length stands still (the
page's timer and the scorecard both read it, however late the interview is reopened), and a
question with code keeps its code as a block of its own when the interviewer repeats it."""

from __future__ import annotations

import time

from tests.interview.harness import GOOD
from tests.interview.resumes import RESUME
from tutorgraph.engines import offline_engine
from tutorgraph.interview.compose import say
from tutorgraph.interview.context import InterviewContext
from tutorgraph.interview.schemas import UtteranceRequest
from tutorgraph.interview.service import InterviewService
from tutorgraph.settings import Settings
from tutorgraph.store import users
from tutorgraph.store.checkpoints import open_checkpointer
from tutorgraph.store.db import Database

ANSWERED_FOR = 4.0  # seconds from the start to the end of the interview
REOPENED_AFTER = 180.0  # then the learner comes back three minutes later


async def test_a_finished_interview_keeps_the_length_it_had_when_it_ended(
    any_settings: Settings, database: Database
) -> None:
    with database.session() as session:
        ann = users.create_user(
            session=session, email="ann@example.org", password="plenty long enough", name="Ann"
        ).id
    now = [time.time()]
    base = InterviewContext.for_model(offline_engine())
    context = InterviewContext(
        model=base.model, evaluator=base.evaluator, similarity=None, clock=lambda: now[0]
    )
    async with open_checkpointer(any_settings) as checkpointer:
        service = InterviewService(database=database, checkpointer=checkpointer, context=context)
        resume = await service.add_resume(user_id=ann, text=RESUME)
        view = await service.start(user_id=ann, resume_id=resume.id, role="Dev", level="mid")
        view = await service.answer(interview_id=view.id, user_id=ann, text=GOOD)
        now[0] += ANSWERED_FOR
        ended = await service.end(interview_id=view.id, user_id=ann)
        assert ended.status == "complete"

        now[0] += REOPENED_AFTER
        reopened = await service.get(interview_id=view.id, user_id=ann)
        assert reopened.elapsed_seconds == ended.elapsed_seconds
        assert ended.elapsed_seconds < REOPENED_AFTER


def test_repeating_a_question_with_code_keeps_its_code_block() -> None:
    question = (
        "This test still performs a real HTTP request. Analyze why and fix it.\n\n"
        "    # app/weather.py\n    from requests import get\n\n"
        "You can answer in words, in the code editor, or both."
    )
    text = say(
        UtteranceRequest(kind="clarify", role="Dev", level="mid", previous_question=question)
    )
    assert f"\n\n{question}\n\n" in text  # the block, blank lines around it, no quote marks
    one_line = say(
        UtteranceRequest(kind="clarify", role="Dev", level="mid", previous_question="Why?")
    )
    assert "\u201cWhy?\u201d" in one_line
