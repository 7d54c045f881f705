"""Refit per-concept BKT parameters from the platform's stored evaluations, so mastery tracking
calibrates itself as learners use it. A score of at least 0.6 counts as a correct answer."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from tutorgraph.grading.bkt_fit import fit_skills
from tutorgraph.grading.decision import ALTERNATE_THRESHOLD
from tutorgraph.store.models import ConceptBKTParams, EvaluationEvent, utcnow

MIN_OBSERVATIONS = 20


@dataclass(frozen=True)
class RefitReport:
    fitted: dict[str, int]
    skipped: dict[str, int]


def stored_sequences(*, session: Session) -> dict[str, list[list[int]]]:
    """Correct/incorrect sequences per concept, one per learner, in answer order."""
    rows = session.execute(
        select(EvaluationEvent.concept, EvaluationEvent.user_id, EvaluationEvent.score)
        .where(EvaluationEvent.concept != "", EvaluationEvent.user_id.is_not(None))
        .order_by(EvaluationEvent.id)
    )
    by_concept: dict[str, dict[int, list[int]]] = {}
    for concept, user_id, score in rows:
        assert user_id is not None
        learners = by_concept.setdefault(concept, {})
        learners.setdefault(user_id, []).append(int(score >= ALTERNATE_THRESHOLD))
    return {concept: list(learners.values()) for concept, learners in by_concept.items()}


def refit_concepts(*, session: Session, min_observations: int = MIN_OBSERVATIONS) -> RefitReport:
    """Fit and store parameters for every concept with enough stored answers."""
    sequences = stored_sequences(session=session)
    counts = {c: sum(len(s) for s in seqs) for c, seqs in sequences.items()}
    eligible = {c: s for c, s in sequences.items() if counts[c] >= min_observations}
    skipped = {c: n for c, n in counts.items() if c not in eligible}
    fitted = fit_skills(eligible) if eligible else {}
    for concept, params in fitted.items():
        row = session.get(ConceptBKTParams, concept) or ConceptBKTParams(concept=concept)
        row.p_init, row.p_learn = params.p_init, params.p_learn
        row.p_guess, row.p_slip, row.p_forget = params.p_guess, params.p_slip, params.p_forget
        row.observations, row.fitted_at = counts[concept], utcnow()
        session.add(row)
    session.flush()
    return RefitReport(fitted={c: counts[c] for c in fitted}, skipped=skipped)
