"""The learner model the learner can see: mastery per concept with the Bloom level reached, the
trend and the evidence (which answers moved it), and a misconception ledger across every graded
answer (practice, the grading API, and any other source that stores evaluation events).

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
    find_topic,
    misconception_description,
    shipped_domains,
)
from tutorgraph.learner_model import mastery
from tutorgraph.learner_model.decision import ALTERNATE_THRESHOLD, PROCEED_THRESHOLD
from tutorgraph.store import learning as record
from tutorgraph.store.models import EvaluationEvent

CLEARED_SCORE = PROCEED_THRESHOLD  # a later answer this good, without it, clears a misconception
REACHED_SCORE = ALTERNATE_THRESHOLD  # a Bloom level counts as reached from this score
TREND_ANSWERS = 5
EXCERPT_CHARS = 240


class Evidence(BaseModel):
    """One graded answer on a concept and how it moved the learner's mastery."""

    at: datetime
    question: str
    answer: str
    score: float
    before: float | None
    after: float | None
    source: str


class ConceptProgress(BaseModel):
    concept: str
    title: str
    domain: str
    mastery: float
    bkt: float
    attempts: int
    bloom_reached: str | None = None
    scores: list[float] = Field(default_factory=list, exclude=True)
    evidence: list[Evidence] = Field(default_factory=list)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def trend(self) -> str:
        """rising, falling or steady over the last answers (or 'new' after one)."""
        recent = self.scores[-TREND_ANSWERS:]
        if len(recent) < 2:
            return "new"
        change = recent[-1] - recent[0]
        return "rising" if change > 0.1 else "falling" if change < -0.1 else "steady"


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
    rows = {row.concept: row for row in mastery.learner_mastery(session=session, user_id=user_id)}
    concepts: dict[str, ConceptProgress] = {}
    for concept, row in rows.items():
        kb = _kb(concept)
        concepts[concept] = ConceptProgress(
            concept=concept,
            title=kb.topic(concept).title if kb else concept,
            domain=kb.name if kb else "",
            mastery=row.wma,
            bkt=row.bkt,
            attempts=row.attempts,
        )
    ledger: dict[tuple[str, str], MisconceptionEntry] = {}
    for event in record.events_of(session, user_id):
        progress = concepts.get(event.concept)
        if progress is not None:
            _add_evidence(progress, event)
        _update_ledger(ledger, event)
    ordered = sorted(concepts.values(), key=_curriculum_position)
    entries = sorted(
        ledger.values(), key=lambda e: (e.status != "open", e.last_seen), reverse=False
    )
    return LearnerModel(concepts=ordered, misconceptions=entries)


def _add_evidence(progress: ConceptProgress, event: EvaluationEvent) -> None:
    payload = event.payload
    source = payload.get("source") or {}
    change = payload.get("mastery") or {}
    progress.scores.append(event.score)
    progress.evidence.append(
        Evidence(
            at=event.created_at,
            question=_excerpt(str(payload.get("question") or "")),
            answer=_excerpt(str(payload.get("answer") or "")),
            score=event.score,
            before=(change.get("before") or {}).get("wma"),
            after=(change.get("after") or {}).get("wma"),
            source=str(source.get("kind") or "api"),
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
    names = list(shipped_domains())
    kb = _kb(progress.concept)
    if kb is None:
        return (len(names), 0)
    return (names.index(kb.name), kb.order.index(progress.concept))


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= EXCERPT_CHARS else text[: EXCERPT_CHARS - 1].rstrip() + "…"
