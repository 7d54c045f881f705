"""The learner model the learner can see: mastery per concept (the one number,
`learner_model.mastery.mastery_by_concept`) with the Bloom level reached, the trend of the last
answers and the evidence (which answers moved it, newest first, with where each was given), and
a misconception ledger across every graded answer (practice, the grading API, and any other
source that stores evaluation events).

A misconception is *open* from the first answer that showed it; a later answer on the same
concept that scores at least CLEARED_SCORE without showing it *clears* it; showing it again
reopens it."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field, computed_field
from sqlalchemy.orm import Session

from tutorgraph.knowledge import (
    BloomLevel,
    KnowledgeBase,
    all_domains,
    find_topic,
    misconception_description,
)
from tutorgraph.learner_model import mastery
from tutorgraph.learner_model.decision import ALTERNATE_THRESHOLD, PROCEED_THRESHOLD
from tutorgraph.store import learning as record
from tutorgraph.store.models import EvaluationEvent

CLEARED_SCORE = PROCEED_THRESHOLD  # a later answer this good, without it, clears a misconception
REACHED_SCORE = ALTERNATE_THRESHOLD  # a Bloom level counts as reached from this score
# The trend reads the last TREND_ANSWERS scores in the order they were given: the slope of the
# least-squares line through them, per answer, beyond TREND_STEP either way is rising or falling
# (over three answers: the newest at least 10 points from the oldest of them).
TREND_ANSWERS = 3
TREND_STEP = 0.05
TREND_WORDS = {  # the Progress page's words for a trend
    "new": "one answer so far",
    "rising": "rising over your last answers",
    "falling": "falling over your last answers",
    "steady": "steady over your last answers",
}
EXCERPT_CHARS = 240
# Where an answer was given, in the learner's words (the event's `source.kind`).
SOURCE_WORDS = {
    "practice": "practice",
    "assessment": "assessment",
    "tutor_quiz": "tutor quiz",
    "interview": "interview",
    "api": "graded answer",
}


class Evidence(BaseModel):
    """One graded answer on a concept and how it moved the learner's mastery."""

    at: datetime
    question: str
    answer: str
    score: float
    before: float | None
    after: float | None
    source: str = Field(description="Where it was given: practice, assessment, tutor quiz...")
    source_kind: str = Field(description="The same as events name it: practice, tutor_quiz...")


def trend_of(scores: list[float]) -> str:
    """rising, falling or steady over the last TREND_ANSWERS scores, oldest first ('new' with
    fewer than two): the least-squares slope per answer against TREND_STEP."""
    recent = scores[-TREND_ANSWERS:]
    if len(recent) < 2:
        return "new"
    middle = (len(recent) - 1) / 2
    mean = sum(recent) / len(recent)
    spread = sum((i - middle) ** 2 for i in range(len(recent)))
    slope = sum((i - middle) * (score - mean) for i, score in enumerate(recent)) / spread
    return "rising" if slope >= TREND_STEP else "falling" if slope <= -TREND_STEP else "steady"


class ConceptProgress(BaseModel):
    concept: str
    title: str
    domain: str
    mastery: float = Field(description="The one mastery number (`mastery_by_concept`).")
    attempts: int
    bloom_reached: str | None = None
    scores: list[float] = Field(default_factory=list, exclude=True)  # oldest first
    evidence: list[Evidence] = Field(
        default_factory=list, description="Every graded answer on it, newest first."
    )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def trend(self) -> str:
        """rising, falling or steady over the last answers (or 'new' after one)."""
        return trend_of(self.scores)


class MisconceptionEntry(BaseModel):
    id: str
    concept: str
    description: str
    first_seen: datetime
    last_seen: datetime
    times: int
    example: str = Field(description="The learner's own words, from the latest answer showing it.")
    cleared_at: datetime | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def status(self) -> str:
        """open, or cleared by a later good answer without it."""
        return "cleared" if self.cleared_at is not None else "open"


class LearnerModel(BaseModel):
    """`GET /api/v1/me/progress`: mastery per concept with its evidence, and the misconception
    ledger."""

    concepts: list[ConceptProgress]
    misconceptions: list[MisconceptionEntry]

    def by_domain(self) -> dict[str, list[ConceptProgress]]:
        grouped: dict[str, list[ConceptProgress]] = {}
        for concept in self.concepts:
            grouped.setdefault(concept.domain, []).append(concept)
        return grouped


def learner_model(session: Session, *, user_id: int) -> LearnerModel:
    """Everything the Progress page shows, from the learner's own rows only."""
    attempts = {
        row.concept: row.attempts
        for row in mastery.learner_mastery(session=session, user_id=user_id)
    }
    concepts: dict[str, ConceptProgress] = {}
    for concept, value in mastery.mastery_by_concept(session=session, user_id=user_id).items():
        kb = _kb(concept)
        concepts[concept] = ConceptProgress(
            concept=concept,
            title=kb.topic(concept).title if kb else concept,
            domain=kb.name if kb else "",
            mastery=value,
            attempts=attempts.get(concept, 0),
        )
    ledger: dict[tuple[str, str], MisconceptionEntry] = {}
    for event in record.events_of(session, user_id):  # oldest first: the order they were given
        progress = concepts.get(event.concept)
        if progress is not None:
            _add_evidence(progress, event)
        _update_ledger(ledger, event)
    for progress in concepts.values():
        progress.evidence.reverse()  # shown newest first
    ordered = sorted(concepts.values(), key=_curriculum_position)
    entries = sorted(
        ledger.values(), key=lambda e: (e.status != "open", e.last_seen), reverse=False
    )
    return LearnerModel(concepts=ordered, misconceptions=entries)


def _add_evidence(progress: ConceptProgress, event: EvaluationEvent) -> None:
    payload = event.payload
    source = payload.get("source") or {}
    change = payload.get("mastery") or {}
    kind = str(source.get("kind") or "api")
    progress.scores.append(event.score)
    progress.evidence.append(
        Evidence(
            at=event.created_at,
            question=_excerpt(str(payload.get("question") or "")),
            answer=_excerpt(str(payload.get("answer") or "")),
            score=event.score,
            before=(change.get("before") or {}).get("wma"),
            after=(change.get("after") or {}).get("wma"),
            source=SOURCE_WORDS.get(kind, SOURCE_WORDS["api"]),
            source_kind=kind,
        )
    )
    level = str(source.get("bloom_level") or "")
    if event.score >= REACHED_SCORE and level in {b.value for b in BloomLevel}:
        reached = BloomLevel(level)
        if progress.bloom_reached is None or reached > BloomLevel(progress.bloom_reached):
            progress.bloom_reached = reached.value


def _update_ledger(
    ledger: dict[tuple[str, str], MisconceptionEntry], event: EvaluationEvent
) -> None:
    shown = [str(m) for m in event.payload.get("misconceptions") or []]
    for misconception in shown:
        key = (event.concept, misconception)
        entry = ledger.get(key)
        answer = _excerpt(str(event.payload.get("answer") or ""))
        if entry is None:
            ledger[key] = MisconceptionEntry(
                id=misconception,
                concept=event.concept,
                description=misconception_description(event.concept, misconception),
                first_seen=event.created_at,
                last_seen=event.created_at,
                times=1,
                example=answer,
            )
        else:
            entry.last_seen, entry.times, entry.example = event.created_at, entry.times + 1, answer
            entry.cleared_at = None  # shown again: open again
    if event.score >= CLEARED_SCORE:
        for (concept, misconception), entry in ledger.items():
            if concept == event.concept and misconception not in shown and entry.cleared_at is None:
                entry.cleared_at = event.created_at


def _kb(concept: str) -> KnowledgeBase | None:
    found = find_topic(concept)
    return found[0] if found else None


def _curriculum_position(progress: ConceptProgress) -> tuple[int, int]:
    names = list(all_domains())
    kb = _kb(progress.concept)
    if kb is None:
        return (len(names), 0)
    return (names.index(kb.name), kb.order.index(progress.concept))


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= EXCERPT_CHARS else text[: EXCERPT_CHARS - 1].rstrip() + "…"
