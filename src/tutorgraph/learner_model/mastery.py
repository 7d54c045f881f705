"""Mastery per learner and concept: the spec's weighted moving average and BKT, side by side."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from tutorgraph.grading.bkt import BKTParams, update_with_score
from tutorgraph.grading.decision import EVAL_MASTERY_WEIGHT
from tutorgraph.store import atomic
from tutorgraph.store.models import ConceptBKTParams, ConceptMastery, utcnow

INITIAL_WMA = 0.0
# Stored P(known) stays strictly inside (0, 1): at exactly 1.0 no wrong answer could lower it.
BKT_FLOOR, BKT_CEILING = 1e-4, 1 - 1e-4


def weighted_moving_average(current: float, score: float) -> float:
    """new = current * 0.4 + score * 0.6."""
    return (1 - EVAL_MASTERY_WEIGHT) * current + EVAL_MASTERY_WEIGHT * score


@dataclass(frozen=True)
class MasterySnapshot:
    wma: float
    bkt: float
    attempts: int


@dataclass(frozen=True)
class MasteryChange:
    concept: str
    before: MasterySnapshot
    after: MasterySnapshot

    def payload(self) -> dict[str, dict[str, float]]:
        """The move as an evaluation event records it (the progress page's evidence)."""
        return {"before": asdict(self.before), "after": asdict(self.after)}


def concept_params(*, session: Session, concept: str) -> BKTParams:
    """Fitted parameters for a concept, or the spec's defaults."""
    row = session.get(ConceptBKTParams, concept)
    if row is None:
        return BKTParams()
    return BKTParams(
        p_init=row.p_init,
        p_learn=row.p_learn,
        p_guess=row.p_guess,
        p_slip=row.p_slip,
        p_forget=row.p_forget,
    )


def current_mastery(*, session: Session, user_id: int, concept: str) -> MasterySnapshot:
    row = _row(session, user_id, concept)
    if row is None:
        return MasterySnapshot(
            wma=INITIAL_WMA, bkt=concept_params(session=session, concept=concept).p_init, attempts=0
        )
    return MasterySnapshot(wma=row.wma, bkt=row.bkt, attempts=row.attempts)


def record_score(
    *, session: Session, user_id: int, concept: str, score: float, certainty: float = 1.0
) -> MasteryChange:
    """Update both estimates with a graded score in [0, 1]. A grade the grader is unsure of
    (certainty < 1) moves them proportionally less: certainty 0.5 goes half the way. The row is
    locked from read to write, so answers graded at once each count (`store.atomic`)."""
    params = concept_params(session=session, concept=concept)
    # One learner's mastery changes one transaction at a time: a transaction that moves several
    # concepts (an interview's or an assessment's end) never waits in a cycle with another.
    atomic.serialize(session, "mastery", user_id)
    row = atomic.locked_or_created(
        session,
        ConceptMastery,
        key={"user_id": user_id, "concept": concept},
        values={"wma": INITIAL_WMA, "bkt": params.p_init, "attempts": 0},
    )
    before = MasterySnapshot(wma=row.wma, bkt=row.bkt, attempts=row.attempts)
    certainty = min(1.0, max(0.0, certainty))
    wma = weighted_moving_average(before.wma, score)
    bkt = update_with_score(before.bkt, score, params)
    after = MasterySnapshot(
        wma=round(before.wma + certainty * (wma - before.wma), 6),
        bkt=min(BKT_CEILING, max(BKT_FLOOR, before.bkt + certainty * (bkt - before.bkt))),
        attempts=before.attempts + 1,
    )
    row.wma, row.bkt, row.attempts, row.updated_at = after.wma, after.bkt, after.attempts, utcnow()
    session.flush()
    return MasteryChange(concept=concept, before=before, after=after)


def learner_mastery(*, session: Session, user_id: int) -> list[ConceptMastery]:
    return list(
        session.scalars(
            select(ConceptMastery)
            .where(ConceptMastery.user_id == user_id)
            .order_by(ConceptMastery.concept)
        )
    )


def mastery_by_concept(*, session: Session, user_id: int) -> dict[str, float]:
    """The learner's mastery (weighted moving average) by concept."""
    return {row.concept: row.wma for row in learner_mastery(session=session, user_id=user_id)}


def _row(session: Session, user_id: int, concept: str) -> ConceptMastery | None:
    return session.scalar(
        select(ConceptMastery).where(
            ConceptMastery.user_id == user_id, ConceptMastery.concept == concept
        )
    )
