"""Grading a learner's answer to one of a lesson's quiz cards and moving their mastery.

Multiple choice is graded exactly: the answer is correct iff the chosen index is the card's
`correct_index`. The score (1.0 or 0.0) is recorded through the grading engine's mastery update
(`grading.mastery.record_score`, the same WMA + BKT update the Evaluator applies) for the card's
concept, falling back to the lesson's first concept and then the lesson slug. No model call is
needed for an exact check, so this is fast and deterministic.

A card counts once per conversation: the first answer to it is stored (`TutorQuizAnswer`) and
moves mastery; answering it again in that conversation (after the card has shown the right
option) returns the stored outcome, `recorded` false, and leaves mastery as it is."""

from __future__ import annotations

import re

from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from tutorgraph.errors import InputError, NotFoundError
from tutorgraph.grading import mastery
from tutorgraph.store.models import Lesson, TutorQuizAnswer, TutorSession
from tutorgraph.tutor.context import QuizCard


class MasteryMove(BaseModel):
    concept: str
    before: float
    after: float


class QuizOutcome(BaseModel):
    quiz_id: str
    selected_index: int
    recorded: bool
    correct: bool
    correct_index: int
    explanation: str
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
    """Grade one choice and, if it is the conversation's first answer to the card, record it
    and move mastery (inside the caller's transaction)."""
    if not 0 <= selected_index < len(card.options):
        raise InputError(f"selected_index: must be between 0 and {len(card.options) - 1}")
    concept = card_concept(card, lesson)
    earlier = _stored_answer(session, chat.id, card.id)
    if earlier is None:
        try:
            with session.begin_nested():
                session.add(
                    TutorQuizAnswer(
                        user_id=user_id,
                        session_id=chat.id,
                        quiz_id=card.id,
                        selected_index=selected_index,
                        correct=selected_index == card.correct_index,
                    )
                )
        except IntegrityError:  # the same card answered twice at once: the other one counts
            earlier = _stored_answer(session, chat.id, card.id)
    if earlier is not None:
        now = mastery.current_mastery(session=session, user_id=user_id, concept=concept)
        return _outcome(card, earlier.selected_index, recorded=False, move=(concept, now, now))
    change = mastery.record_score(
        session=session,
        user_id=user_id,
        concept=concept,
        score=1.0 if selected_index == card.correct_index else 0.0,
    )
    return _outcome(
        card, selected_index, recorded=True, move=(change.concept, change.before, change.after)
    )


def answered_cards(*, session: Session, chat: TutorSession) -> dict[str, int]:
    """quiz id -> the option chosen, for every card answered in this conversation."""
    rows = session.scalars(select(TutorQuizAnswer).where(TutorQuizAnswer.session_id == chat.id))
    return {row.quiz_id: row.selected_index for row in rows}


def _stored_answer(session: Session, chat_id: str, quiz_id: str) -> TutorQuizAnswer | None:
    return session.scalar(
        select(TutorQuizAnswer).where(
            TutorQuizAnswer.session_id == chat_id, TutorQuizAnswer.quiz_id == quiz_id
        )
    )


def _outcome(
    card: QuizCard,
    selected_index: int,
    *,
    recorded: bool,
    move: tuple[str, mastery.MasterySnapshot, mastery.MasterySnapshot],
) -> QuizOutcome:
    concept, before, after = move
    return QuizOutcome(
        quiz_id=card.id,
        selected_index=selected_index,
        recorded=recorded,
        correct=selected_index == card.correct_index,
        correct_index=card.correct_index,
        explanation=card.explanation or card.reference_answer,
        mastery=MasteryMove(concept=concept, before=before.wma, after=after.wma),
    )


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
