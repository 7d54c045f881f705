"""A practice round's questions: chosen from a topic up the Bloom levels, loaded with the
learner's answers, and asked again when an answer fell short."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from sqlalchemy.orm import Session

from tutorgraph.errors import ConflictError, InputError, NotFoundError
from tutorgraph.knowledge import may_read, visible_domain, visible_knowledge
from tutorgraph.knowledge.bloom import BloomLevel
from tutorgraph.store import practice as stored
from tutorgraph.store.models import QuizAnswer, QuizQuestion, QuizSession, utcnow
from tutorgraph.store.users import get_user

ROUND_LENGTH = 5
MAX_ATTEMPTS = 3  # the first answer and two retries
RETRYABLE = frozenset({"RETRY", "REMEDIATE", "ALTERNATE"})
T = TypeVar("T")
# A retry is the same question tried again, never a new one: "Question 2 of 5 · second try".
TRY_WORDS = {2: "second try", 3: "third try"}


def question_label(number: int, count: int, attempt: int = 1) -> str:
    """How the learner sees where they are: "Question 2 of 5", "Question 2 of 5 · second try"."""
    label = f"Question {number} of {count}"
    if attempt > 1:
        label += f" · {TRY_WORDS.get(attempt, f'try {attempt}')}"
    return label


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

    @property
    def numbers(self) -> dict[str, int]:
        """Each question of the round (by its knowledge-base id) numbered 1..n in the order it
        was first asked: attempts at one question share its number."""
        numbered: dict[str, int] = {}
        for question in self.questions:
            numbered.setdefault(question.source_id, len(numbered) + 1)
        return numbered

    @property
    def question_count(self) -> int:
        """How many questions the round has (attempts at one question count once)."""
        return len(self.numbers)

    @property
    def questions_done(self) -> int:
        """Questions whose latest attempt is answered (one waiting to be tried again is not)."""
        latest = {q.source_id: q for q in self.questions}  # ordered by position
        return sum(q.id in self.answers for q in latest.values())

    def label(self, question: QuizQuestion) -> str:
        return question_label(
            self.numbers[question.source_id],
            self.question_count,
            int(question.payload.get("attempt", 1)),
        )


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
    user = get_user(session=session, user_id=user_id)
    kb = visible_domain(session=session, user=user, name=domain)
    if topic not in kb.topics:
        raise InputError(f"topic: {topic!r} is not a topic of the {domain} domain")
    questions = sorted(kb.topic(topic).questions, key=lambda q: (q.bloom_level.rank, q.id))
    if above is not None:
        reached = BloomLevel(above)
        questions = [q for q in questions if q.bloom_level > reached] or questions
    chosen = _spread(questions, length)
    quiz = stored.add_round(session, user_id=user_id, domain=domain, topic=topic)
    for position, question in enumerate(chosen):
        stored.add_question(
            session,
            round_id=quiz.id,
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
    session.flush()
    return quiz


def can_retry(progress: Progress, question: QuizQuestion) -> bool:
    """A graded answer that fell short (RETRY, REMEDIATE or ALTERNATE) may be tried again, up to
    MAX_ATTEMPTS in all, unless a later attempt at the same question already exists."""
    answer = progress.answers.get(question.id)
    if answer is None or str(answer.result.get("decision")) not in RETRYABLE:
        return False
    return may_ask_again(progress, question)


def may_ask_again(progress: Progress, question: QuizQuestion) -> bool:
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
) -> int | None:
    """The path planner's RETRY / ALTERNATE: the question asked again next, with a hint; returns
    the new try's id. None (nothing queued) when the learner already has a later attempt or used
    them all."""
    progress = load_round(session=session, user_id=user_id, round_id=round_id, lock=True)
    question = next((q for q in progress.questions if q.id == question_id), None)
    if question is None or not may_ask_again(progress, question):
        return None
    return _ask_again(session, progress, question, hint=hint)


def _ask_again(session: Session, progress: Progress, question: QuizQuestion, *, hint: str) -> int:
    for later in progress.questions:
        if later.position > question.position:
            later.position += 1
    payload = {**question.payload, "attempt": int(question.payload.get("attempt", 1)) + 1}
    payload.pop("hint", None)
    if hint:
        payload["hint"] = hint
    stored.add_question(
        session,
        round_id=progress.session.id,
        position=question.position + 1,
        source_id=question.source_id,
        text=question.text,
        reference_answer=question.reference_answer,
        payload=payload,
    )
    progress.session.status = "active"  # a completed round reopens for the retry
    progress.session.updated_at = utcnow()
    session.flush()
    return next(
        q.id
        for q in stored.questions_of(session, progress.session.id)
        if q.source_id == question.source_id and q.position == question.position + 1
    )


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
    quiz = stored.round_by_id(session, round_id, lock=lock)
    if quiz is None or quiz.user_id != user_id:
        raise NotFoundError(f"no practice round {round_id}")
    questions = stored.questions_of(session, quiz.id)
    answers = stored.answers_to(session, [q.id for q in questions])
    return Progress(quiz, questions, answers)


def open_round(*, session: Session, user_id: int, round_id: str) -> Progress:
    """The learner's round, when they may still see its domain (else, as for a round that is
    not theirs, 404)."""
    progress = load_round(session=session, user_id=user_id, round_id=round_id)
    return _visible(session, user_id, progress)


def _visible(session: Session, user_id: int, progress: Progress) -> Progress:
    user = get_user(session=session, user_id=user_id)
    if not may_read(session=session, user=user, name=progress.session.domain):
        raise NotFoundError(f"no practice round {progress.session.id}")
    return progress


def my_rounds(*, session: Session, user_id: int) -> list[QuizSession]:
    """The learner's rounds on domains they may see, most recent first."""
    user = get_user(session=session, user_id=user_id)
    seen = visible_knowledge(session=session, user=user).domains
    return [quiz for quiz in stored.rounds_of(session, user_id) if quiz.domain in seen]
