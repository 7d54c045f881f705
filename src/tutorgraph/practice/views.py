"""A round as the API and the Practice page show it: answered questions with their grades, and
the question waiting for an answer."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel
from sqlalchemy.orm import Session

from tutorgraph.errors import NotFoundError
from tutorgraph.knowledge import get_domain
from tutorgraph.practice.rounds import Progress, can_retry, open_round


class QuestionOut(BaseModel):
    id: int
    position: int
    text: str
    bloom_level: str
    type: str
    attempt: int = 1
    hint: str = ""  # the path planner's nudge on a question asked again
    number: int = 1  # which question of the round (its attempts share one number)
    label: str = ""  # "Question 2 of 5 · second try"
    # the language of the code the question's checks run (python, sql, toml, json), so the page
    # offers a code editor; None when the answer is prose or worked numbers
    code_language: str | None = None


class AnsweredOut(QuestionOut):
    answer: str
    result: dict[str, Any]
    # shown beside the learner's answer once it is graded (empty while the question waits to
    # be tried again)
    reference_answer: str
    can_retry: bool = False


class RoundOut(BaseModel):
    id: str
    domain: str
    topic: str
    status: str
    total: int  # questions asked, a retry counted apart (see `question_count`)
    question_count: int = 0  # the round's questions, each counted once whatever its tries
    questions_done: int = 0  # questions whose latest try is answered
    answered: list[AnsweredOut]
    current: QuestionOut | None
    updated_at: datetime


def _question(progress: Progress, q: Any) -> QuestionOut:
    return QuestionOut(
        number=progress.numbers[q.source_id],
        label=progress.label(q),
        id=q.id,
        position=q.position,
        text=q.text,
        bloom_level=str(q.payload.get("bloom_level", "")),
        type=str(q.payload.get("type", "")),
        attempt=int(q.payload.get("attempt", 1)),
        hint=str(q.payload.get("hint", "")),
        code_language=code_language(progress, q.source_id),
    )


def code_language(progress: Progress, question_id: str) -> str | None:
    """The language a question's answer is run in, when its checks run code."""
    try:
        topic = get_domain(progress.session.domain).topics.get(progress.session.topic)
    except NotFoundError:
        return None
    question = topic.question(question_id) if topic is not None else None
    checks = question.checks if question is not None else None
    return checks.language if checks is not None and checks.cases else None


def round_out(progress: Progress) -> RoundOut:
    # A question asked again and not yet answered keeps its model answer back until then.
    pending = {q.source_id for q in progress.questions if q.id not in progress.answers}
    answered = [
        AnsweredOut(
            **_question(progress, q).model_dump(),
            answer=progress.answers[q.id].answer,
            result=progress.answers[q.id].result,
            reference_answer="" if q.source_id in pending else q.reference_answer,
            can_retry=can_retry(progress, q),
        )
        for q in progress.questions
        if q.id in progress.answers
    ]
    current = progress.current
    return RoundOut(
        id=progress.session.id,
        domain=progress.session.domain,
        topic=progress.session.topic,
        status=progress.session.status,
        total=len(progress.questions),
        question_count=progress.question_count,
        questions_done=progress.questions_done,
        answered=answered,
        current=_question(progress, current) if current is not None else None,
        updated_at=progress.session.updated_at,
    )


def view_round(*, session: Session, user_id: int, round_id: str) -> RoundOut:
    """A learner's round as the API and the Practice page show it."""
    return round_out(open_round(session=session, user_id=user_id, round_id=round_id))
