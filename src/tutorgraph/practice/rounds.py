"""Practice rounds: questions from one knowledge-base topic, answered one at a time, graded, with
mastery tracked. Rounds are stored (QuizSession / QuizQuestion / QuizAnswer) and resume.

A round is on a domain its learner may see (`knowledge.visibility`); once they may no longer see
it (removed from a shared course, the course made private), its rounds are gone for them too."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.orm import Session

from tutorgraph.errors import ConflictError, InputError, NotFoundError
from tutorgraph.grading import mastery
from tutorgraph.grading.evaluator import Evaluator, GradeResult
from tutorgraph.grading.meaning import Analysis
from tutorgraph.grading.types import GradingRequest, KnownMisconception
from tutorgraph.knowledge import get_domain, may_read, visible_domain, visible_knowledge
from tutorgraph.knowledge.bloom import BloomLevel
from tutorgraph.offload import run_blocking
from tutorgraph.store import atomic
from tutorgraph.store.models import QuizAnswer, QuizQuestion, QuizSession, User, utcnow

ROUND_LENGTH = 5
MAX_ATTEMPTS = 3  # the first answer and two retries
RETRYABLE = frozenset({"RETRY", "REMEDIATE", "ALTERNATE"})
T = TypeVar("T")


@dataclass(frozen=True)
class Progress:
    session: QuizSession
    questions: list[QuizQuestion]
    answers: dict[int, QuizAnswer]

    @property
    def current(self) -> QuizQuestion | None:
        return next((q for q in self.questions if q.id not in self.answers), None)

    @property
    def answered(self) -> int:
        return len(self.answers)


class QuestionOut(BaseModel):
    id: int
    position: int
    text: str
    bloom_level: str
    type: str
    attempt: int = 1
    hint: str = ""  # the path planner's nudge on a question asked again


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
    total: int
    answered: list[AnsweredOut]
    current: QuestionOut | None
    updated_at: datetime


def _question(q: Any) -> QuestionOut:
    return QuestionOut(
        id=q.id,
        position=q.position,
        text=q.text,
        bloom_level=str(q.payload.get("bloom_level", "")),
        type=str(q.payload.get("type", "")),
        attempt=int(q.payload.get("attempt", 1)),
        hint=str(q.payload.get("hint", "")),
    )


def round_out(progress: Progress) -> RoundOut:
    # A question asked again and not yet answered keeps its model answer back until then.
    pending = {q.source_id for q in progress.questions if q.id not in progress.answers}
    answered = [
        AnsweredOut(
            **_question(q).model_dump(),
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
        answered=answered,
        current=_question(current) if current is not None else None,
        updated_at=progress.session.updated_at,
    )


def view_round(*, session: Session, user_id: int, round_id: str) -> RoundOut:
    """A learner's round as the API and the Practice page show it."""
    return round_out(open_round(session=session, user_id=user_id, round_id=round_id))


def start_round(
    *,
    session: Session,
    user_id: int,
    domain: str,
    topic: str,
    above: str | None = None,
    length: int = ROUND_LENGTH,
) -> QuizSession:
    """A new round of up to `length` questions on a topic, from recall up the Bloom levels;
    with `above` (a Bloom level reached), only the questions above it when there are any."""
    kb = visible_domain(session=session, user=session.get(User, user_id), name=domain)
    if topic not in kb.topics:
        raise InputError(f"topic: {topic!r} is not a topic of the {domain} domain")
    questions = sorted(kb.topic(topic).questions, key=lambda q: (q.bloom_level.rank, q.id))
    if above is not None:
        reached = BloomLevel(above)
        questions = [q for q in questions if q.bloom_level > reached] or questions
    chosen = _spread(questions, length)
    quiz = QuizSession(user_id=user_id, domain=domain, topic=topic)
    session.add(quiz)
    session.flush()
    for position, question in enumerate(chosen):
        session.add(
            QuizQuestion(
                quiz_session_id=quiz.id,
                position=position,
                source_id=question.id,
                text=question.text,
                reference_answer=question.reference_answer,
                payload={
                    "bloom_level": question.bloom_level.value,
                    "type": question.type,
                    "difficulty": question.difficulty,
                    "rubric": list(question.rubric),
                },
            )
        )
    session.flush()
    return quiz


def can_retry(progress: Progress, question: QuizQuestion) -> bool:
    """A graded answer that fell short (RETRY, REMEDIATE or ALTERNATE) may be tried again, up to
    MAX_ATTEMPTS in all, unless a later attempt at the same question already exists."""
    answer = progress.answers.get(question.id)
    if answer is None or str(answer.result.get("decision")) not in RETRYABLE:
        return False
    return _may_ask_again(progress, question)


def _may_ask_again(progress: Progress, question: QuizQuestion) -> bool:
    """Answered, attempts left, and not already asked again later in the round."""
    return (
        question.id in progress.answers
        and int(question.payload.get("attempt", 1)) < MAX_ATTEMPTS
        and not any(
            q.source_id == question.source_id and q.position > question.position
            for q in progress.questions
        )
    )


def retry_question(*, session: Session, user_id: int, round_id: str, question_id: int) -> None:
    """Ask an answered question again, next: a new attempt, graded and tracked on its own."""
    progress = load_round(session=session, user_id=user_id, round_id=round_id, lock=True)
    _visible(session, user_id, progress)
    question = next((q for q in progress.questions if q.id == question_id), None)
    if question is None:
        raise NotFoundError(f"no question {question_id} in this round")
    if not can_retry(progress, question):
        raise ConflictError(
            "this question cannot be tried again (it went well, it was already retried, or "
            f"it had {MAX_ATTEMPTS} attempts)"
        )
    _ask_again(session, progress, question, hint="")


def queue_again(
    *, session: Session, user_id: int, round_id: str, question_id: int, hint: str
) -> bool:
    """The path planner's RETRY / ALTERNATE: the question asked again next, with a hint.
    False (nothing queued) when the learner already has a later attempt or used them all."""
    progress = load_round(session=session, user_id=user_id, round_id=round_id, lock=True)
    question = next((q for q in progress.questions if q.id == question_id), None)
    if question is None or not _may_ask_again(progress, question):
        return False
    _ask_again(session, progress, question, hint=hint)
    return True


def _ask_again(session: Session, progress: Progress, question: QuizQuestion, *, hint: str) -> None:
    for later in progress.questions:
        if later.position > question.position:
            later.position += 1
    payload = {**question.payload, "attempt": int(question.payload.get("attempt", 1)) + 1}
    payload.pop("hint", None)
    if hint:
        payload["hint"] = hint
    session.add(
        QuizQuestion(
            quiz_session_id=progress.session.id,
            position=question.position + 1,
            source_id=question.source_id,
            text=question.text,
            reference_answer=question.reference_answer,
            payload=payload,
        )
    )
    progress.session.status = "active"  # a completed round reopens for the retry
    progress.session.updated_at = utcnow()
    session.flush()


@dataclass(frozen=True)
class Explanation:
    """Another way into a question the learner missed, from the knowledge base."""

    topic_title: str
    summary: str
    key_points: list[str]
    misconceptions: list[str]
    resources: list[tuple[str, str]]  # (title, url)


def another_explanation(*, domain: str, topic: str, result: dict[str, Any]) -> Explanation:
    """The topic's key points closest to what the answer missed, the misconceptions it showed
    (in the knowledge base's words), and the topic's reading: deterministic, grounded."""
    kb_topic = get_domain(domain).topic(topic)
    missing = [str(p) for p in result.get("missing_key_points") or []]
    ranked = sorted(
        kb_topic.key_points,
        key=lambda point: -max((_overlap(point, m) for m in missing), default=0.0),
    )
    shown = [str(m.get("description", "")) for m in result.get("misconceptions") or []]
    return Explanation(
        topic_title=kb_topic.title,
        summary=kb_topic.summary,
        key_points=ranked[:3],
        misconceptions=[d for d in shown if d],
        resources=[(r.title, str(r.url)) for r in kb_topic.resources[:3]],
    )


def _overlap(a: str, b: str) -> float:
    left, right = Analysis.of(a).texts, Analysis.of(b).texts
    return len(left & right) / max(1, len(right))


def _spread(items: list[T], count: int) -> list[T]:
    """`count` items evenly spread over a sorted list (all of them if there are fewer)."""
    if len(items) <= count:
        return items
    step = (len(items) - 1) / (count - 1)
    return [items[round(i * step)] for i in range(count)]


def load_round(*, session: Session, user_id: int, round_id: str, lock: bool = False) -> Progress:
    """The learner's round with its questions and answers. With `lock`, the round is locked
    until the transaction ends, so two changes to it at once (a double-clicked Submit, a retry
    beside a queued question) run one after the other on what the first wrote."""
    quiz = (
        atomic.locked(session, select(QuizSession).where(QuizSession.id == round_id))
        if lock
        else session.get(QuizSession, round_id)
    )
    if quiz is None or quiz.user_id != user_id:
        raise NotFoundError(f"no practice round {round_id}")
    questions = list(
        session.scalars(
            select(QuizQuestion)
            .where(QuizQuestion.quiz_session_id == quiz.id)
            .order_by(QuizQuestion.position)
        )
    )
    answers = {
        a.quiz_question_id: a
        for a in session.scalars(
            select(QuizAnswer).where(QuizAnswer.quiz_question_id.in_([q.id for q in questions]))
        )
    }
    return Progress(quiz, questions, answers)


def open_round(*, session: Session, user_id: int, round_id: str) -> Progress:
    """The learner's round, when they may still see its domain (else, as for a round that is
    not theirs, 404)."""
    progress = load_round(session=session, user_id=user_id, round_id=round_id)
    return _visible(session, user_id, progress)


def _visible(session: Session, user_id: int, progress: Progress) -> Progress:
    user = session.get(User, user_id)
    if not may_read(session=session, user=user, name=progress.session.domain):
        raise NotFoundError(f"no practice round {progress.session.id}")
    return progress


def my_rounds(*, session: Session, user_id: int) -> list[QuizSession]:
    """The learner's rounds on domains they may see, most recent first."""
    seen = visible_knowledge(session=session, user=session.get(User, user_id)).domains
    rounds = session.scalars(
        select(QuizSession)
        .where(QuizSession.user_id == user_id)
        .order_by(QuizSession.updated_at.desc())
    )
    return [quiz for quiz in rounds if quiz.domain in seen]


def grading_request(progress: Progress, answer: str) -> tuple[QuizQuestion, GradingRequest]:
    """The request for the round's current question."""
    question = progress.current
    if question is None:
        raise ConflictError("this practice round is finished")
    kb = get_domain(progress.session.domain)
    topic = kb.topic(progress.session.topic)
    return question, GradingRequest(
        question=question.text,
        reference_answer=question.reference_answer,
        answer=answer,
        rubric=list(question.payload.get("rubric", [])),
        misconceptions=[
            KnownMisconception(id=m.id, description=m.description, cues=list(m.cues))
            for m in topic.misconceptions
        ],
        difficulty=int(question.payload.get("difficulty", topic.difficulty)),
        concept=topic.id,
    )


def save_answer(
    *,
    session: Session,
    user_id: int,
    round_id: str,
    question_id: int,
    answer: str,
    result: GradeResult,
) -> None:
    quiz = session.get(QuizSession, round_id)
    assert quiz is not None
    exists = session.scalar(select(QuizAnswer).where(QuizAnswer.quiz_question_id == question_id))
    if exists is not None:
        raise ConflictError("this question was already answered")
    session.add(
        QuizAnswer(
            quiz_question_id=question_id,
            user_id=user_id,
            answer=answer,
            score=result.score,
            result=result.model_dump(mode="json"),
        )
    )
    quiz.updated_at = utcnow()
    session.flush()
    remaining = load_round(session=session, user_id=user_id, round_id=round_id).current
    if remaining is None:
        quiz.status = "completed"


async def submit_answer(
    evaluator: Evaluator,
    *,
    session: Session,
    user_id: int,
    round_id: str,
    answer: str,
    question_id: int | None = None,
) -> tuple[GradeResult, Progress]:
    """Grade the answer to the round's current question, record mastery, store the answer.
    With `question_id` (the question the learner saw), a submit repeated after that question
    was answered is refused (409) instead of answering the next question with it.

    The read transaction ends before grading, so no connection is held while the answer is
    judged; the answer and the mastery change are then stored in one transaction."""

    def current() -> tuple[int, GradingRequest, float, dict[str, Any]]:
        try:
            progress = open_round(session=session, user_id=user_id, round_id=round_id)
            question, request = grading_request(progress, answer)
            if question_id is not None and question.id != question_id:
                raise ConflictError(
                    f"question {question_id} is not waiting for an answer "
                    f"(question {question.id} is)"
                )
            snapshot = mastery.current_mastery(
                session=session, user_id=user_id, concept=request.concept or ""
            )
            return question.id, request, snapshot.wma, event_source(progress, question)
        finally:
            session.commit()

    asked, request, wma, source = await run_blocking(current)
    graded = await evaluator.grade(request, current_mastery=wma)

    def store() -> tuple[GradeResult, Progress]:
        try:
            # the round locked first: of two submits of one answer, the second finds it answered
            load_round(session=session, user_id=user_id, round_id=round_id, lock=True)
            result = evaluator.record(session, request, graded, user_id, source=source)
            save_answer(
                session=session,
                user_id=user_id,
                round_id=round_id,
                question_id=asked,
                answer=answer,
                result=result,
            )
            progress = load_round(session=session, user_id=user_id, round_id=round_id)
            session.commit()
        except BaseException:
            session.rollback()
            raise
        return result, progress

    result, progress = await run_blocking(store)
    await run_blocking(evaluator.publish_completed, request, result, user_id, source)
    return result, progress


def event_source(progress: Progress, question: QuizQuestion) -> dict[str, Any]:
    """Where an answer was given, for the EVALUATION_COMPLETED event the planner reads."""
    return {
        "kind": "practice",
        "domain": progress.session.domain,
        "round_id": progress.session.id,
        "question_id": question.id,
        "question_source_id": question.source_id,
        "attempt": int(question.payload.get("attempt", 1)),
        "bloom_level": str(question.payload.get("bloom_level", "")) or None,
    }
