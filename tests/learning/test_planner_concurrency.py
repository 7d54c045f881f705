"""Several processes planning at once (the bus subscriber, a page, start-up): every event gets
exactly one next step and one set of effects, on SQLite and PostgreSQL."""

from __future__ import annotations

import threading

from sqlalchemy import select

from tutorgraph import practice
from tutorgraph.learner_model.events import store_event
from tutorgraph.learning.planner import plan_pending
from tutorgraph.store import users
from tutorgraph.store.db import Database
from tutorgraph.store.models import ConceptReview, NextStep, QuizAnswer, QuizQuestion

PLANNERS = 4


def test_concurrent_planners_plan_each_event_once(database: Database) -> None:
    with database.session() as session:
        user = users.create_user(
            session=session, email="c@example.org", password="plenty long enough", name="C"
        )
        quiz = practice.start_round(
            session=session, user_id=user.id, domain="python", topic="python-data-model"
        )
        progress = practice.load_round(session=session, user_id=user.id, round_id=quiz.id)
        question = progress.questions[0]
        session.add(
            QuizAnswer(quiz_question_id=question.id, user_id=user.id, answer="no idea", score=0.0)
        )
        for _ in range(3):
            store_event(
                session,
                user_id=user.id,
                concept="python-data-model",
                score=0.05,
                decision="RETRY",
                payload={
                    "concept": "python-data-model",
                    "decision": "RETRY",
                    "score": 0.05,
                    "missing_key_points": ["identity, type and value"],
                    "source": {
                        "kind": "practice",
                        "domain": "python",
                        "round_id": quiz.id,
                        "question_id": question.id,
                        "attempt": 1,
                    },
                },
            )
        user_id, round_id = user.id, quiz.id

    barrier = threading.Barrier(PLANNERS)
    errors: list[BaseException] = []

    def planner() -> None:
        try:
            barrier.wait()
            with database.session() as session:
                plan_pending(session, user_id=user_id)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=planner) for _ in range(PLANNERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    with database.session() as session:
        steps = session.scalars(select(NextStep).where(NextStep.user_id == user_id)).all()
        assert len(steps) == 3 and len({s.event_id for s in steps}) == 3
        assert sum(1 for s in steps if s.taken_at is None) == 1  # the newest stands
        review = session.scalars(select(ConceptReview)).one()
        assert review.reviews == 3  # each event reviewed once, whoever planned it
        asked = session.scalars(
            select(QuizQuestion).where(QuizQuestion.quiz_session_id == round_id)
        ).all()
        assert sum(1 for q in asked if q.source_id == asked[0].source_id) == 2  # once again
