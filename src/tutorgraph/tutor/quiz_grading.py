"""Grading a learner's answer to one of a lesson's quiz cards and moving their mastery.

Multiple choice is graded exactly: the answer is correct iff the chosen index is the card's
`correct_index`. The score (1.0 or 0.0) is recorded through the grading engine's mastery update
(`grading.mastery.record_score`, the same WMA + BKT update the Evaluator applies) for the card's
concept, falling back to the lesson's first concept and then the lesson slug. No model call is
needed for an exact check, so this is fast and deterministic.

A card is evidence once per learner (`TutorQuizCard`): only a card the tutor has shown them
can be answered, and only their first answer to it, in whichever conversation, moves mastery.
Answering again (another try after a wrong answer, or a new conversation) is graded but leaves
mastery as it is. A wrong answer does not reveal the right option: the learner may try again."""

from __future__ import annotations

import re
from collections.abc import Iterable

from pydantic import BaseModel, Field
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from tutorgraph.errors import InputError, NotFoundError
from tutorgraph.grading import mastery
from tutorgraph.store.models import Lesson, TutorQuizAnswer, TutorQuizCard, TutorSession, utcnow
from tutorgraph.tutor.blocks import QuizBlock, parse_blocks
from tutorgraph.tutor.context import QuizCard

TRY_AGAIN = "Not quite. Have another look at the options and try again."


class MasteryMove(BaseModel):
    concept: str
    before: float
    after: float


class QuizOutcome(BaseModel):
    quiz_id: str
    selected_index: int
    recorded: bool = Field(
        description="This answer moved mastery: only a learner's first answer to a card does."
    )
    correct: bool
    correct_index: int | None = Field(description="The right option, once answered correctly.")
    explanation: str | None = Field(description="Why, once answered correctly.")
    feedback: str
    mastery: MasteryMove


def lesson_quiz(lesson: Lesson) -> list[QuizCard]:
    cards = []
    for item in lesson.quiz:
        if isinstance(item, dict) and {"id", "question", "options", "correct_index"} <= set(item):
            cards.append(QuizCard.model_validate(item))
    return cards


def find_card(lesson: Lesson, quiz_id: str) -> QuizCard:
    for card in lesson_quiz(lesson):
        if card.id == quiz_id:
            return card
    raise NotFoundError(f"no quiz {quiz_id!r} in lesson {lesson.id}")


def card_concept(card: QuizCard, lesson: Lesson) -> str:
    if card.concept:
        return card.concept
    concepts = [str(c) for c in lesson.concepts]
    return concepts[0] if concepts else lesson.slug


def grade_choice(
    *,
    session: Session,
    user_id: int,
    chat: TutorSession,
    lesson: Lesson,
    card: QuizCard,
    selected_index: int,
) -> QuizOutcome:
    """Grade one choice of a card shown to the learner; if it is their first answer to the
    card, it counts and moves mastery (inside the caller's transaction)."""
    if not 0 <= selected_index < len(card.options):
        raise InputError(f"selected_index: must be between 0 and {len(card.options) - 1}")
    shown = _shown_card(session, user_id, lesson.id, card.id)
    if shown is None:
        raise NotFoundError(f"no quiz {card.id!r} has been shown to you in lesson {lesson.id}")
    correct = selected_index == card.correct_index
    _remember_in_conversation(session, user_id, chat, card.id, selected_index, correct)
    concept = card_concept(card, lesson)
    if _count_first_answer(session, shown, selected_index):
        change = mastery.record_score(
            session=session, user_id=user_id, concept=concept, score=1.0 if correct else 0.0
        )
        move = MasteryMove(concept=concept, before=change.before.wma, after=change.after.wma)
        recorded = True
    else:
        now = mastery.current_mastery(session=session, user_id=user_id, concept=concept).wma
        move = MasteryMove(concept=concept, before=now, after=now)
        recorded = False
    return QuizOutcome(
        quiz_id=card.id,
        selected_index=selected_index,
        recorded=recorded,
        correct=correct,
        correct_index=card.correct_index if correct else None,
        explanation=(card.explanation or card.reference_answer) if correct else None,
        feedback=("Correct! " + (card.explanation or "")).strip() if correct else TRY_AGAIN,
        mastery=move,
    )


def mark_shown(*, session: Session, user_id: int, lesson_id: int, quiz_ids: Iterable[str]) -> None:
    """Record that the tutor showed these cards of the lesson to the learner."""
    for quiz_id in dict.fromkeys(quiz_ids):
        if not quiz_id or _shown_card(session, user_id, lesson_id, quiz_id) is not None:
            continue
        try:
            with session.begin_nested():
                session.add(TutorQuizCard(user_id=user_id, lesson_id=lesson_id, quiz_id=quiz_id))
        except IntegrityError:  # shown at the same moment elsewhere: it is recorded
            continue


def count_answer(
    *, session: Session, user_id: int, lesson_id: int, quiz_id: str, selected_index: int
) -> bool:
    """Whether this answer is the learner's first to a card shown to them; if so it is now
    the one that counts (the caller moves mastery)."""
    card = _shown_card(session, user_id, lesson_id, quiz_id)
    return card is not None and _count_first_answer(session, card, selected_index)


def mark_shown_in_reply(*, session: Session, user_id: int, lesson_id: int, text: str) -> None:
    """Record the quiz cards a tutor reply carries as `<quiz>` blocks."""
    blocks = parse_blocks(text, "quiz", QuizBlock) if "<quiz>" in text else []
    mark_shown(
        session=session,
        user_id=user_id,
        lesson_id=lesson_id,
        quiz_ids=[block.id[:200] for block in blocks],
    )


def answered_cards(*, session: Session, chat: TutorSession) -> dict[str, int]:
    """quiz id -> the option chosen, for every card answered in this conversation."""
    rows = session.scalars(select(TutorQuizAnswer).where(TutorQuizAnswer.session_id == chat.id))
    return {row.quiz_id: row.selected_index for row in rows}


def _shown_card(
    session: Session, user_id: int, lesson_id: int, quiz_id: str
) -> TutorQuizCard | None:
    return session.scalar(
        select(TutorQuizCard).where(
            TutorQuizCard.user_id == user_id,
            TutorQuizCard.lesson_id == lesson_id,
            TutorQuizCard.quiz_id == quiz_id,
        )
    )


def _count_first_answer(session: Session, card: TutorQuizCard, selected_index: int) -> bool:
    """Claim the card's one counted answer; False when an earlier answer has it. A conditional
    update, so two answers at once cannot both count."""
    claimed = session.execute(
        update(TutorQuizCard)
        .where(TutorQuizCard.id == card.id, TutorQuizCard.counted_at.is_(None))
        .values(counted_index=selected_index, counted_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    return getattr(claimed, "rowcount", 0) == 1


def _remember_in_conversation(
    session: Session, user_id: int, chat: TutorSession, quiz_id: str, index: int, correct: bool
) -> None:
    """The conversation's first answer to the card, so it reopens answered."""
    exists = session.scalar(
        select(TutorQuizAnswer.id).where(
            TutorQuizAnswer.session_id == chat.id, TutorQuizAnswer.quiz_id == quiz_id
        )
    )
    if exists is not None:
        return
    try:
        with session.begin_nested():
            session.add(
                TutorQuizAnswer(
                    user_id=user_id,
                    session_id=chat.id,
                    quiz_id=quiz_id,
                    selected_index=index,
                    correct=correct,
                )
            )
    except IntegrityError:  # answered twice at once in this conversation: one is kept
        return


def parse_choice(answer: str, card: QuizCard) -> int | None:
    """A typed answer as an option index: `2`, `B`, `b)`, or the option's text."""
    text = answer.strip()
    if not text:
        return None
    if re.fullmatch(r"\d+", text):
        number = int(text)
        return number - 1 if 1 <= number <= len(card.options) else None
    letter = re.fullmatch(r"\(?([a-hA-H])[).:]?", text)
    if letter:
        index = ord(letter.group(1).lower()) - ord("a")
        return index if index < len(card.options) else None
    lowered = text.lower()
    for index, option in enumerate(card.options):
        if option.strip().lower() == lowered:
            return index
    for index, option in enumerate(card.options):
        if lowered in option.lower() and len(lowered) >= 4:
            return index
    return None
