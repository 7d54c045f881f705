"""Refit per-concept BKT parameters from the platform's stored evaluations, so mastery tracking
calibrates itself as learners use it. A score of at least 0.6 counts as a correct answer.

Two models: standard BKT and BKT with forgetting (a known idea can be lost between answers).
`auto` fits both on four learners in five and keeps the one that predicts the fifth better (AUC
of P(correct) before each held-out answer); with too few held-out answers to tell, it keeps BKT
with forgetting, which predicted better on ASSISTments 2009 (AUC 0.8265 against 0.7594:
BENCHMARKS.md, `tutorgraph bench kt`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from sqlalchemy.orm import Session

from tutorgraph.learner_model.bkt import BKTParams
from tutorgraph.learner_model.bkt_fit import Sequences, fit_skills, predict_sequences
from tutorgraph.learner_model.decision import ALTERNATE_THRESHOLD
from tutorgraph.learner_model.ranking import auc
from tutorgraph.store import learning as record
from tutorgraph.store import mastery as stored
from tutorgraph.store.models import utcnow

MIN_OBSERVATIONS = 20
HOLDOUT_EVERY = 5  # every fifth learner of a concept is held out when models are compared
MIN_HOLDOUT = 30  # held-out answers needed to prefer one model over the other
KTModel = Literal["auto", "bkt", "bkt_forgetting"]


@dataclass(frozen=True)
class RefitReport:
    fitted: dict[str, int]
    skipped: dict[str, int]
    model: str = "bkt"  # the model fitted: bkt | bkt_forgetting
    holdout_auc: dict[str, float] = field(default_factory=dict)  # per model, when compared
    reason: str = ""


def stored_sequences(*, session: Session) -> dict[str, list[list[int]]]:
    """Correct/incorrect sequences per concept, one per learner, in answer order."""
    rows = record.answer_scores(session)
    by_concept: dict[str, dict[int, list[int]]] = {}
    for concept, user_id, score in rows:
        assert user_id is not None
        learners = by_concept.setdefault(concept, {})
        learners.setdefault(user_id, []).append(int(score >= ALTERNATE_THRESHOLD))
    return {concept: list(learners.values()) for concept, learners in by_concept.items()}


def choose_model(sequences: Mapping[str, Sequences]) -> tuple[bool, dict[str, float], str]:
    """(forgetting?, held-out AUC per model, why), as the module docstring says."""
    train = {
        c: [s for i, s in enumerate(seqs) if i % HOLDOUT_EVERY != 4]
        for c, seqs in sequences.items()
    }
    held = {
        c: [s for i, s in enumerate(seqs) if i % HOLDOUT_EVERY == 4]
        for c, seqs in sequences.items()
    }
    train = {c: seqs for c, seqs in train.items() if seqs}
    labels = [float(x) for c in train for seq in held[c] for x in seq]
    if len(labels) < MIN_HOLDOUT or len(set(labels)) < 2:
        return (
            True,
            {},
            (
                f"{len(labels)} held-out answers are too few to compare; BKT with forgetting "
                "predicted better on ASSISTments 2009"
            ),
        )
    scores: dict[str, float] = {}
    for name, forgetting in (("bkt", False), ("bkt_forgetting", True)):
        fitted = fit_skills(train, forgetting=forgetting)
        predicted = [
            float(p)
            for concept, params in fitted.items()
            for series in predict_sequences(params, held[concept])
            for p in series
        ]
        scores[name] = round(auc(labels, predicted), 4)
    forgetting = scores["bkt_forgetting"] > scores["bkt"]
    better = "bkt_forgetting" if forgetting else "bkt"
    return forgetting, scores, f"{better} predicted {len(labels)} held-out answers better"


def refit_concepts(
    *, session: Session, min_observations: int = MIN_OBSERVATIONS, model: KTModel = "auto"
) -> RefitReport:
    """Fit and store parameters for every concept with enough stored answers."""
    sequences = stored_sequences(session=session)
    counts = {c: sum(len(s) for s in seqs) for c, seqs in sequences.items()}
    eligible = {c: s for c, s in sequences.items() if counts[c] >= min_observations}
    skipped = {c: n for c, n in counts.items() if c not in eligible}
    scores: dict[str, float] = {}
    if model == "auto" and eligible:
        forgetting, scores, reason = choose_model(eligible)
    else:
        forgetting = model == "bkt_forgetting"
        reason = f"{'bkt_forgetting' if forgetting else 'bkt'} as configured"
    fitted: dict[str, BKTParams] = fit_skills(eligible, forgetting=forgetting) if eligible else {}
    for concept, params in fitted.items():
        stored.save_fitted_params(
            session,
            concept=concept,
            p_init=params.p_init,
            p_learn=params.p_learn,
            p_guess=params.p_guess,
            p_slip=params.p_slip,
            p_forget=params.p_forget,
            observations=counts[concept],
            fitted_at=utcnow(),
        )
    session.flush()
    return RefitReport(
        fitted={c: counts[c] for c in fitted},
        skipped=skipped,
        model="bkt_forgetting" if forgetting else "bkt",
        holdout_auc=scores,
        reason=reason if eligible else "",
    )


def last_refit(*, session: Session) -> datetime | None:
    """When parameters were last fitted (None: never)."""
    return stored.last_fit(session)


def refit_due(*, session: Session, every_hours: float, now: datetime) -> bool:
    """A scheduled refit is due when answers arrived since the last one and it is old enough."""
    if every_hours <= 0:
        return False
    last = last_refit(session=session)
    newest = record.newest_event_at(session)
    if newest is None or (last is not None and newest <= last):
        return False
    return last is None or (now - last).total_seconds() >= every_hours * 3600
