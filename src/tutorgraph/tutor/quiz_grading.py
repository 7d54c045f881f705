"""Grading a learner's answer to one of a lesson's quiz cards and moving their mastery.

Multiple choice is graded exactly: the answer is correct iff the chosen index is the card's
`correct_index`. The score (1.0 or 0.0) is recorded through the learner model's mastery update
(`learner_model.mastery.record_score`, the same WMA + BKT update the Evaluator applies) for the
card's concept, falling back to the lesson's first concept and then the lesson slug. No model call
is needed for an exact check, so this is fast and deterministic.

A card is evidence once per learner (`TutorQuizCard`): only a card the tutor has shown them
can be answered, and only their first answer to it, in whichever conversation, moves mastery.
Answering again (another try after a wrong answer, or a new conversation) is graded but leaves
mastery as it is. A wrong answer does not reveal the right option: the learner may try again.

The answer never reaches the browser before the learner answers: the chat shows a card's public
form (`quiz_stream`), a lesson's own card is graded against the lesson, and a card the tutor wrote
itself against the copy `register_card` kept. Explore chats (no lesson) have cards too; their
mastery moves only for a card that names its concept."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable

from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from tutorgraph.errors import InputError, NotFoundError
from tutorgraph.learner_model import mastery
from tutorgraph.learner_model.events import EVENT_TEXT_CHARS, store_event
from tutorgraph.store import tutor as stored
from tutorgraph.store.models import ExplorationSession, Lesson, TutorQuizCard, TutorSession
from tutorgraph.tutor.blocks import QuizBlock
from tutorgraph.tutor.context import QuizCard
from tutorgraph.tutor.parameters import tutor_parameters

TRY_AGAIN = "Not quite. Have another look at the options and try again."
WHY_CHARS = 500  # the longest reason a learner may send: the API's limit, not a tutor rule


class MasteryMove(BaseModel):
    concept: str
    before: float
    after: float


class AnsweredCard(BaseModel):
    """A card's latest answer in one conversation, so it reopens as the learner left it."""

    selected_index: int
    correct: bool
    correct_index: int | None = Field(description="The right option, once answered correctly.")
    explanation: str | None = Field(description="Why, once answered correctly.")
    why: str | None = Field(default=None, description="The learner's own reason, if they gave one.")


class QuizOutcome(BaseModel):
    quiz_id: str
    selected_index: int
    recorded: bool = Field(
        description="This answer moved mastery: only a learner's first answer to a card does."
    )
    correct: bool
    correct_index: int | None = Field(description="The right option, once answered correctly.")
    explanation: str | None = Field(description="Why, once answered correctly.")
    feedback: str = Field(description="The verdict, to show once (it includes the explanation).")
    why: str | None = Field(description="The learner's reason, as sent, to show with the verdict.")
    mastery: MasteryMove | None = Field(
        description="The concept's mastery before and after; none for an explore card without "
        "a concept."
    )


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


def card_concept(card: QuizCard, lesson: Lesson | None) -> str | None:
    if card.concept:
        return card.concept
    if lesson is None:
        return None
    concepts = [str(c) for c in lesson.concepts]
    return concepts[0] if concepts else lesson.slug


def register_card(
    *, session: Session, user_id: int, lesson: Lesson | None, chat_id: str, block: QuizBlock
) -> str:
    """Keep a card the tutor just showed, answer included, and return the id the chat shows.
    The lesson's own card (same id, question and options) keeps its id; any other card, which
    the tutor wrote itself, gets an id of its own and is kept whole."""
    if lesson is not None:
        for card in lesson_quiz(lesson):
            if (card.id, card.question, card.options) == (block.id, block.question, block.options):
                mark_shown(
                    session=session, user_id=user_id, lesson_id=lesson.id, quiz_ids=[card.id]
                )
                return card.id
    card_id = f"chat-{uuid.uuid4().hex[:16]}"
    kept = QuizCard(
        id=card_id,
        question=block.question,
        options=block.options,
        correct_index=block.correct_index,
        explanation=block.explanation,
        concept=block.concept,
    )
    stored.add_written_card(
        session,
        user_id=user_id,
        lesson_id=lesson.id if lesson is not None else None,
        quiz_id=card_id,
        chat_id=chat_id,
        card=kept.model_dump(),
    )
    return card_id


def shown_card(
    *,
    session: Session,
    user_id: int,
    lesson: Lesson | None,
    chat: TutorSession | ExplorationSession,
    quiz_id: str,
) -> tuple[QuizCard, TutorQuizCard]:
    """A card of this conversation's lesson (or of this explore chat) shown to the learner."""
    lesson_id = lesson.id if lesson is not None else None
    row = stored.shown_card(session, user_id=user_id, lesson_id=lesson_id, quiz_id=quiz_id)
    if row is not None and row.card is not None:
        if lesson is None and row.session_id != chat.id:
            row = None  # an explore card belongs to the chat that showed it
        else:
            return QuizCard.model_validate(row.card), row
    if row is None or lesson is None:
        where = f"lesson {lesson.id}" if lesson is not None else "this conversation"
        raise NotFoundError(f"no quiz {quiz_id!r} has been shown to you in {where}")
    return find_card(lesson, quiz_id), row


def grade_choice(
    *,
    session: Session,
    user_id: int,
    chat: TutorSession | ExplorationSession,
    lesson: Lesson | None,
    quiz_id: str,
    selected_index: int,
    why: str = "",
) -> QuizOutcome:
    """Grade one choice of a card shown to the learner in this conversation; if it is their
    first answer to the card, it counts and moves mastery (inside the caller's transaction)."""
    card, shown = shown_card(
        session=session, user_id=user_id, lesson=lesson, chat=chat, quiz_id=quiz_id
    )
    if not 0 <= selected_index < len(card.options):
        raise InputError(f"selected_index: must be between 0 and {len(card.options) - 1}")
    why = " ".join(why.split())[:WHY_CHARS]
    correct = selected_index == card.correct_index
    if isinstance(chat, TutorSession):
        _remember_in_conversation(session, user_id, chat, card.id, selected_index, correct, why)
    first = stored.claim_counted_answer(session, shown, selected_index)
    concept = card_concept(card, lesson)
    move: MasteryMove | None = None
    if concept is not None and first:
        score = 1.0 if correct else 0.0
        change = mastery.record_score(
            session=session, user_id=user_id, concept=concept, score=score
        )
        move = MasteryMove(concept=concept, before=change.before.wma, after=change.after.wma)
        # evidence for the learner's Progress page and a review of the concept (FSRS)
        store_event(
            session,
            user_id=user_id,
            concept=concept,
            score=score,
            decision="MASTERED" if correct else "RETRY",
            payload={
                "source": {"kind": "tutor_quiz", "quiz_id": card.id},
                "concept": concept,
                "score": score,
                "question": card.question[:EVENT_TEXT_CHARS],
                "answer": card.options[selected_index][:EVENT_TEXT_CHARS],
                "misconceptions": [],
                "mastery": change.payload(),
            },
        )
    elif concept is not None:
        now = mastery.current_mastery(session=session, user_id=user_id, concept=concept).wma
        move = MasteryMove(concept=concept, before=now, after=now)
    revealed = _answered(card, selected_index, why)
    return QuizOutcome(
        quiz_id=card.id,
        selected_index=selected_index,
        recorded=first and move is not None,
        correct=correct,
        correct_index=revealed.correct_index,
        explanation=revealed.explanation,
        feedback=("Correct! " + (card.explanation or "")).strip() if correct else TRY_AGAIN,
        why=why or None,
        mastery=move,
    )


def _answered(card: QuizCard, index: int, why: str | None) -> AnsweredCard:
    """An answer and what it may show of the card: the right option and why, only once right."""
    correct = index == card.correct_index
    return AnsweredCard(
        selected_index=index,
        correct=correct,
        why=why or None,
        correct_index=card.correct_index if correct else None,
        explanation=(card.explanation or card.reference_answer or None) if correct else None,
    )


def mark_shown(*, session: Session, user_id: int, lesson_id: int, quiz_ids: Iterable[str]) -> None:
    """Record that the tutor showed these cards of the lesson to the learner."""
    for quiz_id in dict.fromkeys(quiz_ids):
        if not quiz_id:
            continue
        if stored.shown_card(session, user_id=user_id, lesson_id=lesson_id, quiz_id=quiz_id):
            continue  # recorded already
        stored.add_shown_card(session, user_id=user_id, lesson_id=lesson_id, quiz_id=quiz_id)


def count_answer(
    *, session: Session, user_id: int, lesson_id: int, quiz_id: str, selected_index: int
) -> bool:
    """Whether this answer is the learner's first to a card shown to them; if so it is now
    the one that counts (the caller moves mastery)."""
    card = stored.shown_card(session, user_id=user_id, lesson_id=lesson_id, quiz_id=quiz_id)
    return card is not None and stored.claim_counted_answer(session, card, selected_index)


def answered_cards(
    *, session: Session, chat: TutorSession | ExplorationSession, lesson: Lesson | None
) -> dict[str, AnsweredCard]:
    """quiz card id -> its latest answer in this conversation. An explore chat's cards are
    its own, so their counted answer is the one to show."""
    found: dict[str, AnsweredCard] = {}
    if isinstance(chat, TutorSession):
        rows = stored.conversation_answers(session, chat.id)
        answers = [(row.quiz_id, row.selected_index, row.why) for row in rows]
    else:
        cards = stored.counted_cards_of_chat(session, chat.id)
        answers = [(row.quiz_id, row.counted_index or 0, None) for row in cards]
    for quiz_id, index, why in answers:
        try:
            card, _ = shown_card(
                session=session, user_id=chat.user_id, lesson=lesson, chat=chat, quiz_id=quiz_id
            )
        except NotFoundError:
            continue  # a lesson card since removed from the lesson
        found[quiz_id] = _answered(card, index, why)
    return found


def _remember_in_conversation(
    session: Session,
    user_id: int,
    chat: TutorSession,
    quiz_id: str,
    index: int,
    correct: bool,
    why: str,
) -> None:
    """The conversation's latest answer to the card, so it reopens as the learner left it
    (a right answer is final: the card accepts no more answers)."""
    row = stored.conversation_answer_locked(session, chat_id=chat.id, quiz_id=quiz_id)
    if row is not None:
        if not row.correct:
            row.selected_index, row.correct, row.why = index, correct, why or None
        return
    stored.add_conversation_answer(
        session,
        user_id=user_id,
        chat_id=chat.id,
        quiz_id=quiz_id,
        selected_index=index,
        correct=correct,
        why=why or None,
    )


def parse_choice(answer: str, card: QuizCard) -> int | None:
    """A typed answer as an option index: `2`, `B`, `b)`, or the option's text."""
    text = answer.strip()
    if not text:
        return None
    if re.fullmatch(r"\d{1,3}", text):
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
    least = tutor_parameters().quiz_answers.typed_option_min_chars
    for index, option in enumerate(card.options):
        if lowered in option.lower() and len(lowered) >= least:
            return index
    return None
