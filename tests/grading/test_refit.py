from __future__ import annotations

import random

from tutorgraph.grading import mastery
from tutorgraph.grading.bkt import BKTParams
from tutorgraph.grading.refit import refit_concepts
from tutorgraph.store import users
from tutorgraph.store.db import Database
from tutorgraph.store.models import EvaluationEvent


def test_mastery_fit_learns_parameters_from_stored_answers(database: Database) -> None:
    rng = random.Random(7)
    with database.session() as session:
        learners = [
            users.create_user(
                session=session, email=f"u{i}@example.org", password="long enough", name="U"
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
