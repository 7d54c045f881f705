from __future__ import annotations

import random
from datetime import timedelta

from tutorgraph.learner_model import mastery
from tutorgraph.learner_model.bkt import BKTParams
from tutorgraph.learner_model.refit import refit_concepts, refit_due
from tutorgraph.store import users
from tutorgraph.store.db import Database
from tutorgraph.store.models import EvaluationEvent, utcnow


def test_mastery_fit_learns_parameters_from_stored_answers(database: Database) -> None:
    rng = random.Random(7)
    with database.session() as session:
        learners = [
            users.create_user(
                session=session, email=f"u{i}@example.org", password="plenty long enough", name="U"
            ).id
            for i in range(40)
        ]
        for user_id in learners:
            known = False
            for _ in range(10):
                known = known or rng.random() < 0.3
                correct = (rng.random() > 0.1) if known else (rng.random() < 0.2)
                session.add(
                    EvaluationEvent(
                        user_id=user_id,
                        concept="loops",
                        score=0.9 if correct else 0.2,
                        decision="PROCEED",
                    )
                )
        session.add(EvaluationEvent(user_id=learners[0], concept="rare", score=1.0, decision="X"))
    with database.session() as session:
        report = refit_concepts(session=session)
    assert report.fitted == {"loops": 400} and report.skipped == {"rare": 1}
    with database.session() as session:
        params = mastery.concept_params(session=session, concept="loops")
        assert params != BKTParams()
        assert 0.1 < params.p_learn < 0.6 and params.p_guess < 0.4 and params.p_slip < 0.25
        assert mastery.concept_params(session=session, concept="rare") == BKTParams()


def _store_learners(
    database: Database, *, forget: float, learners: int = 60, answers: int = 12, seed: int = 3
) -> None:
    """Simulated answers from a BKT learner that forgets a known idea with P(forget)."""
    rng = random.Random(seed)
    with database.session() as session:
        for i in range(learners):
            user_id = users.create_user(
                session=session, email=f"f{i}@example.org", password="plenty long enough", name="F"
            ).id
            known = False
            for _ in range(answers):
                correct = (rng.random() > 0.05) if known else (rng.random() < 0.15)
                session.add(
                    EvaluationEvent(
                        user_id=user_id,
                        concept="recursion",
                        score=0.95 if correct else 0.1,
                        decision="PROCEED",
                    )
                )
                known = (rng.random() >= forget) if known else (rng.random() < 0.35)


def test_auto_keeps_the_model_that_predicts_held_out_learners_better(database: Database) -> None:
    _store_learners(database, forget=0.35)
    with database.session() as session:
        report = refit_concepts(session=session, model="auto")
    assert set(report.holdout_auc) == {"bkt", "bkt_forgetting"}
    assert report.model == "bkt_forgetting"
    assert report.holdout_auc["bkt_forgetting"] > report.holdout_auc["bkt"]
    with database.session() as session:
        assert mastery.concept_params(session=session, concept="recursion").p_forget > 0.1


def test_a_configured_model_is_fitted_as_asked(database: Database) -> None:
    _store_learners(database, forget=0.35)
    with database.session() as session:
        report = refit_concepts(session=session, model="bkt")
    assert report.model == "bkt" and report.holdout_auc == {}
    with database.session() as session:
        assert mastery.concept_params(session=session, concept="recursion").p_forget == 0.0


def test_a_scheduled_refit_is_due_only_after_new_answers_and_the_interval(
    database: Database,
) -> None:
    now = utcnow()
    with database.session() as session:
        assert not refit_due(session=session, every_hours=24, now=now)  # no answers yet
    _store_learners(database, forget=0.0, learners=3)
    with database.session() as session:
        assert refit_due(session=session, every_hours=24, now=now)  # never fitted
        assert not refit_due(session=session, every_hours=0, now=now)  # schedule off
        refit_concepts(session=session)
    with database.session() as session:
        later = now + timedelta(hours=30)
        assert not refit_due(session=session, every_hours=24, now=later)  # nothing new
