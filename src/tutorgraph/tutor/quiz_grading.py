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
mastery moves only for a card that names its concept.

A pick is evidence of a weaker kind than a typed answer the grader read (a quarter of picks are
right by chance, and a pick says nothing of why), so it moves mastery as `kind="multiple_choice"`:
the learner model gives that kind its own, smaller weight (`mastery.EVIDENCE_WEIGHT`).

Feedback teaches (decision record 0049). A wrong pick is told why it is wrong: the misconception
the option stands for, in the knowledge base's words (the card's `misconceptions`, or, for a card
without them, the misconception the option's text states), and the card's correction of it
(`why_wrong`), without naming the right option, so the learner can still find it. A reason the
learner typed is read with the grader's text layer: the misconceptions of the card's topics it
states (`grading.keypoints.stated_misconceptions` and `described_misconceptions`, as the
Evaluator reads an answer) and the option it says in other words (`text.meaning.find`); the
feedback quotes it and answers it, and a right pick for a wrong reason is told so. Only when
nothing at all is known about a wrong pick does the learner read `TRY_AGAIN`."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable

from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from tutorgraph.errors import InputError, NotFoundError
from tutorgraph.grading.keypoints import described_misconceptions, stated_misconceptions
from tutorgraph.grading.parameters import grading_parameters
from tutorgraph.grading.types import KnownMisconception
from tutorgraph.knowledge.grading_context import concept_info
from tutorgraph.learner_model import mastery
from tutorgraph.learner_model.events import EVENT_TEXT_CHARS, store_event
from tutorgraph.store import tutor as stored
from tutorgraph.store.models import ExplorationSession, Lesson, TutorQuizCard, TutorSession
from tutorgraph.text.meaning import Analysis, find
from tutorgraph.tutor.blocks import QuizBlock
from tutorgraph.tutor.context import QuizCard
from tutorgraph.tutor.parameters import tutor_parameters
from tutorgraph.wording import mistake

# The last resort for a wrong pick: only when neither the card, nor the knowledge base, nor the
# learner's reason says anything about it.
TRY_AGAIN = "Not quite. Have another look at the options and try again."
WHY_CHARS = 500  # the longest reason a learner may send: the API's limit, not a tutor rule


class MasteryMove(BaseModel):
    concept: str
    before: float
    after: float


class FeedbackPart(BaseModel):
    """One step of a verdict. `text` is the tutor's, from the card and the knowledge base (it may
    hold inline Markdown and maths, as the card does); `said` is the learner's own words it
    answers, quoted as typed: shown as plain text, never as markup."""

    said: str | None = Field(default=None, description="The learner's words this part answers.")
    text: str


class AnsweredCard(BaseModel):
    """A card's latest answer in one conversation, so it reopens as the learner left it."""

    selected_index: int
    correct: bool
    correct_index: int | None = Field(description="The right option, once answered correctly.")
    explanation: str | None = Field(description="Why, once answered correctly.")
    why: str | None = Field(default=None, description="The learner's own reason, if they gave one.")
    feedback: str = Field(default="", description="The verdict, as `parts` in one text.")
    parts: list[FeedbackPart] = Field(
        default_factory=list, description="The verdict in steps (see `QuizOutcome.parts`)."
    )


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
    parts: list[FeedbackPart] = Field(
        description="The verdict in steps: what the pick was (and why a wrong one is wrong), then "
        "the learner's reason quoted and answered. `feedback` is these in one text."
    )
    misconceptions: list[str] = Field(
        default_factory=list,
        description="Knowledge-base misconceptions of the card's concept the answer showed: the "
        "wrong option's, and any the learner's reason stated.",
    )
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
    verdict = read_answer(card, lesson, selected_index, why)
    move: MasteryMove | None = None
    if concept is not None and first:
        score = 1.0 if correct else 0.0
        change = mastery.record_score(
            session=session,
            user_id=user_id,
            concept=concept,
            score=score,
            kind="multiple_choice",
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
                "misconceptions": verdict.misconceptions,
                "mastery": change.payload(),
            },
        )
    elif concept is not None:
        now = mastery.current_mastery(session=session, user_id=user_id, concept=concept).wma
        move = MasteryMove(concept=concept, before=now, after=now)
    revealed = _answered(card, selected_index, why, verdict)
    return QuizOutcome(
        quiz_id=card.id,
        selected_index=selected_index,
        recorded=first and move is not None,
        correct=correct,
        correct_index=revealed.correct_index,
        explanation=revealed.explanation,
        feedback=verdict.feedback,
        parts=verdict.parts,
        misconceptions=verdict.misconceptions,
        why=why or None,
        mastery=move,
    )


def _answered(card: QuizCard, index: int, why: str | None, verdict: Verdict) -> AnsweredCard:
    """An answer and what it may show of the card: the right option and why, only once right."""
    correct = index == card.correct_index
    return AnsweredCard(
        selected_index=index,
        correct=correct,
        why=why or None,
        correct_index=card.correct_index if correct else None,
        explanation=(card.explanation or card.reference_answer or None) if correct else None,
        feedback=verdict.feedback,
        parts=verdict.parts,
    )


# ---- feedback that teaches (see the module docstring) ----


class Verdict(BaseModel):
    """What the learner reads after a pick, and the misconceptions it showed."""

    parts: list[FeedbackPart]
    misconceptions: list[str] = Field(
        description="Misconception ids of the card's own concept the pick or the reason showed."
    )

    @property
    def feedback(self) -> str:
        return " ".join(
            (f'You said "{part.said}". ' if part.said else "") + part.text for part in self.parts
        )


class OptionNotes(BaseModel):
    """A lesson card's notes on its options (`content.manifest.QuizItem`), one entry per option."""

    misconceptions: list[str | None] = Field(default_factory=list)
    why_wrong: list[str] = Field(default_factory=list)

    def misconception(self, index: int) -> str | None:
        return self.misconceptions[index] if index < len(self.misconceptions) else None

    def correction(self, index: int) -> str:
        return self.why_wrong[index].strip() if index < len(self.why_wrong) else ""


def option_notes(card: QuizCard, lesson: Lesson | None) -> OptionNotes:
    """The notes the lesson's copy of this card carries; none for a card the tutor wrote."""
    if lesson is None:
        return OptionNotes()
    for item in lesson.quiz:
        if not isinstance(item, dict) or item.get("id") != card.id:
            continue
        if item.get("options") != card.options:
            break  # a different card under the same id: its notes would be about other options
        misconceptions = item.get("misconceptions") or []
        why_wrong = item.get("why_wrong") or []
        size = len(card.options)
        return OptionNotes(
            misconceptions=[str(m) if isinstance(m, str) and m else None for m in misconceptions]
            if len(misconceptions) == size
            else [],
            why_wrong=[str(w or "") for w in why_wrong] if len(why_wrong) == size else [],
        )
    return OptionNotes()


def known_misconceptions(card: QuizCard, lesson: Lesson | None) -> dict[str, KnownMisconception]:
    """id -> misconception, of the card's concept first and then of the lesson's concepts, as
    the knowledge base states them (a concept the knowledge base lacks has none)."""
    concepts = [card.concept, *(str(c) for c in lesson.concepts)] if lesson else [card.concept]
    known: dict[str, KnownMisconception] = {}
    for concept in dict.fromkeys(c for c in concepts if c):
        info = concept_info(concept)
        if info is None:
            continue
        for misconception in info.misconceptions:
            known.setdefault(misconception.id, misconception)
    return known


def read_answer(card: QuizCard, lesson: Lesson | None, index: int, why: str | None) -> Verdict:
    """The feedback on picking option `index` for reason `why` (see the module docstring):
    deterministic, from the card, its notes and the knowledge base."""
    notes = option_notes(card, lesson)
    known = known_misconceptions(card, lesson)
    own = _own_misconceptions(card, lesson)
    correct = index == card.correct_index
    shown: list[str] = []  # misconception ids the answer showed, in order

    picked = None if correct else _option_misconception(card, notes, known, index)
    if picked is not None:
        shown.append(picked)
    correction = "" if correct else _correction(notes, known, index, picked)

    reason = _reason_part(card, notes, known, index, why, picked, shown) if why else None
    parts: list[FeedbackPart] = []
    if correct:
        parts.append(FeedbackPart(text=("Correct! " + (card.explanation or "")).strip()))
    elif reason is not None and reason.answers_pick:
        parts.append(FeedbackPart(text="Not quite."))  # the reason says the pick: answered there
    elif correction:
        parts.append(FeedbackPart(text=f"Not quite. {correction}"))
    elif reason is None or not reason.known:
        parts.append(FeedbackPart(text=TRY_AGAIN))
    else:
        parts.append(FeedbackPart(text="Not quite."))
    if reason is not None:
        parts.append(reason.part)
    return Verdict(parts=parts, misconceptions=[m for m in dict.fromkeys(shown) if m in own])


class _Reason(BaseModel):
    part: FeedbackPart
    known: bool  # the reason was matched to an option or a misconception
    answers_pick: bool  # the reason says the wrong pick's own idea, and this part corrects it


def _reason_part(
    card: QuizCard,
    notes: OptionNotes,
    known: dict[str, KnownMisconception],
    index: int,
    why: str,
    picked: str | None,
    shown: list[str],
) -> _Reason:
    """The learner's reason, quoted and answered."""
    said = quote(why)
    correct = index == card.correct_index
    candidates = list(known.values())
    stated = list(
        dict.fromkeys(
            stated_misconceptions(why, candidates)
            + described_misconceptions(why, card.question, candidates)
        )
    )
    shown.extend(stated)
    echoed = said_option(card, why)
    if echoed is not None and echoed != card.correct_index:
        echoed_misconception = _option_misconception(card, notes, known, echoed)
        if echoed_misconception is not None:
            shown.append(echoed_misconception)
        fix = _correction(notes, known, echoed, echoed_misconception, subject="That")
        if not correct and echoed == index:
            text = fix or "That is the idea behind the option you picked, and it does not hold."
            return _Reason(
                part=FeedbackPart(said=said, text=text), known=True, answers_pick=bool(fix)
            )
        lead = (
            "Right option, but not for that reason: it is the idea behind another option."
            if correct
            else "That is the idea behind another wrong option."
        )
        return _Reason(
            part=FeedbackPart(said=said, text=f"{lead} {fix}".strip()),
            known=True,
            answers_pick=False,
        )
    if stated:
        first = picked if picked in stated else stated[0]
        answers_pick = not correct and first == picked
        fix = _misconception_correction(notes, known, first, index)
        text = f"Right option, but not for that reason. {fix}" if correct else fix
        return _Reason(
            part=FeedbackPart(said=said, text=text), known=True, answers_pick=answers_pick
        )
    if echoed == card.correct_index:
        text = (
            "That is the right reason."
            if correct
            else "That reasoning points the right way, but it does not lead to the option you "
            "picked: follow it through the options again."
        )
        return _Reason(part=FeedbackPart(said=said, text=text), known=True, answers_pick=False)
    if correct:
        text = "Compare that with the explanation above: the reason matters as much as the pick."
    elif _correction(notes, known, index, picked):
        text = "That does not match a mistake this question is known for; test it against the "
        text += "point above."
    else:
        text = "That does not match a mistake this question is known for."
    return _Reason(part=FeedbackPart(said=said, text=text), known=False, answers_pick=False)


def said_option(card: QuizCard, why: str) -> int | None:
    """The option a reason says in other words: read either way round with the grader's text
    layer (the reason's content words in the option, or the option's in the reason; the
    question's own words do not count), the option of which it says the most, when that is at
    least the share the grader asks of an answer that states a misconception in other words
    (`grading/parameters.yaml` `misconceptions.description_share`), is more than it says of any
    other option, and is not denied. "more heads means more parameters" says "More heads, more
    parameters: about 8 times as many weights" (both words), not "About the same parameters,
    but 8 separate attention patterns" (one of two)."""
    least = grading_parameters().misconceptions.description_share
    reason = Analysis.of(why)
    ignore = Analysis.of(card.question).texts
    scores = []
    for option in card.options:
        text = Analysis.of(option)
        best = 0.0
        for phrasing, answer in ((reason, text), (text, reason)):
            match = find(phrasing, answer, ignore=ignore)
            if match.specific and not match.contradicted:
                best = max(best, match.share)
        scores.append(best)
    top = max(range(len(scores)), key=lambda i: scores[i])
    others = [score for i, score in enumerate(scores) if i != top]
    if scores[top] >= least and all(score < scores[top] for score in others):
        return top
    return None


def _option_misconception(
    card: QuizCard, notes: OptionNotes, known: dict[str, KnownMisconception], index: int
) -> str | None:
    """The misconception option `index` stands for: the card's note, else the first known one
    the option's text states (for cards without notes: authored and tutor-written ones)."""
    noted = notes.misconception(index)
    if noted is not None:
        return noted if noted in known else None
    if notes.misconceptions or index == card.correct_index:
        return None  # the author said: no misconception behind this option
    option = card.options[index]
    candidates = list(known.values())
    found = stated_misconceptions(option, candidates) or described_misconceptions(
        option, card.question, candidates
    )
    return found[0] if found else None


def _correction(
    notes: OptionNotes,
    known: dict[str, KnownMisconception],
    index: int,
    misconception: str | None,
    subject: str = "That option",
) -> str:
    """Why option `index` is wrong: the misconception it stands for, in the knowledge base's
    words, and the card's correction of it."""
    said = []
    if misconception is not None and misconception in known:
        said.append(f"{subject} is a common mistake: {mistake(known[misconception].description)}")
    fix = notes.correction(index)
    if fix:
        said.append(fix)
    return " ".join(said)


def _misconception_correction(
    notes: OptionNotes, known: dict[str, KnownMisconception], misconception: str, picked: int
) -> str:
    """A misconception a reason stated, named, and corrected by the card's note on an option
    that stands for it (the picked one first), when there is one."""
    said = [f"That is a common mistake: {mistake(known[misconception].description)}"]
    order = [picked, *range(len(notes.misconceptions))]
    for index in order:
        if notes.misconception(index) == misconception and notes.correction(index):
            said.append(notes.correction(index))
            break
    return " ".join(said)


def _own_misconceptions(card: QuizCard, lesson: Lesson | None) -> set[str]:
    """The misconception ids of the concept the answer is evidence for (what its event may name)."""
    concept = card_concept(card, lesson)
    info = concept_info(concept) if concept else None
    return {m.id for m in info.misconceptions} if info is not None else set()


def quote(why: str) -> str:
    """The learner's reason as quoted back: whole (it is at most `WHY_CHARS`), spaces folded."""
    return " ".join(why.split())


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
        found[quiz_id] = _answered(card, index, why, read_answer(card, lesson, index, why))
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
