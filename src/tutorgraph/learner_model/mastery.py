"""Mastery per learner and concept: the spec's weighted moving average and BKT, side by side."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

from sqlalchemy.orm import Session

from tutorgraph.learner_model.bkt import BKTParams, update_with_score
from tutorgraph.store import atomic
from tutorgraph.store import mastery as stored
from tutorgraph.store.models import ConceptMastery, utcnow

INITIAL_WMA = 0.0
EVAL_MASTERY_WEIGHT = 0.6  # the weight of the newest score in the moving average
# Stored P(known) stays strictly inside (0, 1): at exactly 1.0 no wrong answer could lower it.
BKT_FLOOR, BKT_CEILING = 1e-4, 1 - 1e-4


# What kind of evidence a graded answer is; the weight of each kind is decided in one place
# (`EVIDENCE_WEIGHT`, set by the "one mastery" work of issue 35).
EvidenceKind = Literal["answer", "multiple_choice"]
EVIDENCE_WEIGHT: dict[str, float] = {
    "answer": EVAL_MASTERY_WEIGHT,
    "multiple_choice": EVAL_MASTERY_WEIGHT,
}


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
    row = stored.fitted_params(session, concept)
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
    row = stored.mastery_row(session, user_id=user_id, concept=concept)
    if row is None:
        return MasterySnapshot(
            wma=INITIAL_WMA, bkt=concept_params(session=session, concept=concept).p_init, attempts=0
        )
    return MasterySnapshot(wma=row.wma, bkt=row.bkt, attempts=row.attempts)


def record_score(
    *,
    session: Session,
    user_id: int,
    concept: str,
    score: float,
    certainty: float = 1.0,
    kind: EvidenceKind = "answer",
) -> MasteryChange:
    """Update both estimates with a graded score in [0, 1]. A grade the grader is unsure of
    (certainty < 1) moves them proportionally less: certainty 0.5 goes half the way. The row is
    locked from read to write, so answers graded at once each count (`store.atomic`)."""
    params = concept_params(session=session, concept=concept)
    # One learner's mastery changes one transaction at a time: a transaction that moves several
    # concepts (an interview's or an assessment's end) never waits in a cycle with another.
    atomic.serialize(session, "mastery", user_id)
    row = stored.mastery_row_locked(
        session,
        user_id=user_id,
        concept=concept,
        initial={"wma": INITIAL_WMA, "bkt": params.p_init, "attempts": 0},
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
    return stored.mastery_rows(session, user_id)


def mastery_by_concept(*, session: Session, user_id: int) -> dict[str, float]:
    """The learner's mastery (weighted moving average) by concept."""
    return {row.concept: row.wma for row in learner_mastery(session=session, user_id=user_id)}
