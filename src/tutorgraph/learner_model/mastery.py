"""Mastery per learner and concept: one number, one update rule (and BKT kept beside it).

**The rule** (issue 35; decision record 0046, superseding the evaluator spec's 0.4/0.6 average):

    mastery_after = mastery_before + w * c * (score - mastery_before)

`score` is the graded answer in [0, 1], `c` the grader's certainty in [0, 1] and `w` the weight
of the kind of evidence (`EVIDENCE_WEIGHT`): a typed answer the grader read (0.5) or a
multiple-choice pick (0.2: a guess succeeds one time in four and a click says nothing of why).
Since |score - mastery_before| <= 1, one answer moves mastery by at most `w`. The number is
stored per (learner, concept) as `ConceptMastery.wma` and read by every page through
`mastery_by_concept` / `mastery_of`, so Progress, Teach, the home card, a practice result and an
assessment report show the same number for the same concept at the same moment.

BKT's P(known) is still updated and stored (the knowledge-tracing benchmark and the instructor's
refit use it); it is not shown to learners as a second mastery."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

from sqlalchemy.orm import Session

from tutorgraph.learner_model.bkt import BKTParams, update_with_score
from tutorgraph.store import atomic
from tutorgraph.store import mastery as stored
from tutorgraph.store.models import ConceptMastery, utcnow

INITIAL_WMA = 0.0  # mastery before any answer: nothing shown yet
# The weight of one piece of evidence: how far towards its score one sure answer moves mastery.
# A typed answer the grader read shows the learner's own reasoning: half the way, so one answer
# cannot make or break a concept (three right in a row from nothing reach 87.5%, past the 80%
# the planner calls mastered; one 0% from 60% leaves 30%, not the spec's 24%).
ANSWER_WEIGHT = 0.5
# A multiple-choice pick is a quarter as likely to be right by chance and says nothing of why:
# 0.2, so a wrong pick from 60% leaves 48% and only eight right picks in a row from nothing pass
# 80% (1 - 0.8**8 = 0.83): clicks alone are slow to call a concept mastered.
MULTIPLE_CHOICE_WEIGHT = 0.2
# Stored P(known) stays strictly inside (0, 1): at exactly 1.0 no wrong answer could lower it.
BKT_FLOOR, BKT_CEILING = 1e-4, 1 - 1e-4


# What kind of evidence a graded answer is; the weight of each kind is decided here only.
EvidenceKind = Literal["answer", "multiple_choice"]
EVIDENCE_WEIGHT: dict[str, float] = {
    "answer": ANSWER_WEIGHT,
    "multiple_choice": MULTIPLE_CHOICE_WEIGHT,
}


def mastery_update(
    before: float, score: float, *, weight: float = ANSWER_WEIGHT, certainty: float = 1.0
) -> float:
    """The rule: `before + weight * certainty * (score - before)`, rounded to 6 places (what is
    stored). Certainty is clamped to [0, 1], so a move is never larger than `weight`."""
    certainty = min(1.0, max(0.0, certainty))
    return round(before + weight * certainty * (score - before), 6)


def weighted_moving_average(current: float, score: float) -> float:
    """One sure typed answer's move (`mastery_update` with the answer weight): the moving
    average new = (1 - w) * current + w * score that the knowledge-tracing benchmark scores."""
    return current + ANSWER_WEIGHT * (score - current)


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
    kind: EvidenceKind = "answer"

    def payload(self) -> dict[str, object]:
        """The move as an evaluation event records it (the progress page's evidence)."""
        return {"before": asdict(self.before), "after": asdict(self.after), "kind": self.kind}


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
    """Update mastery (`mastery_update`, weighted by the kind of evidence) and BKT with a graded
    score in [0, 1]. A grade the grader is unsure of (certainty < 1) moves both proportionally
    less: certainty 0.5 goes half the way. The row is locked from read to write, so answers
    graded at once each count (`store.atomic`)."""
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
    bkt = update_with_score(before.bkt, score, params)
    after = MasterySnapshot(
        wma=mastery_update(before.wma, score, weight=EVIDENCE_WEIGHT[kind], certainty=certainty),
        bkt=min(BKT_CEILING, max(BKT_FLOOR, before.bkt + certainty * (bkt - before.bkt))),
        attempts=before.attempts + 1,
    )
    row.wma, row.bkt, row.attempts, row.updated_at = after.wma, after.bkt, after.attempts, utcnow()
    session.flush()
    return MasteryChange(concept=concept, before=before, after=after, kind=kind)


def learner_mastery(*, session: Session, user_id: int) -> list[ConceptMastery]:
    """The stored rows (mastery, BKT, attempts); pages read the number via `mastery_by_concept`."""
    return stored.mastery_rows(session, user_id)


def mastery_by_concept(*, session: Session, user_id: int) -> dict[str, float]:
    """THE learner's mastery by concept, for every page and API that shows or uses it (Progress,
    Review, Teach, the home card, practice results, assessment reports, the planner): the
    stored number, so two pages read at the same moment agree. Concepts never answered are
    absent (mastery `INITIAL_WMA`); format with the templates' `percent` filter."""
    return {row.concept: row.wma for row in learner_mastery(session=session, user_id=user_id)}


def mastery_of(*, session: Session, user_id: int, concept: str) -> float:
    """One concept's mastery (as `mastery_by_concept` reads it), `INITIAL_WMA` if never answered."""
    row = stored.mastery_row(session, user_id=user_id, concept=concept)
    return INITIAL_WMA if row is None else row.wma
