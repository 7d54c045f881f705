"""The evaluator's 8 phases end to end: scripted model, fake OpenAI server, offline fallback."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from sqlalchemy import func, select

from tests.fakes.openai_server import FakeOpenAIServer, Fault
from tutorgraph.engines import offline_engine
from tutorgraph.errors import ProviderUnavailable
from tutorgraph.grading.feedback import FeedbackOutput
from tutorgraph.grading.types import GradingRequest, KnownMisconception
from tutorgraph.learner_model.evaluator import Evaluator
from tutorgraph.learner_model.events import EVALUATION_COMPLETED, EventBus
from tutorgraph.llm import ScriptedEngine, aclose_model, build_model
from tutorgraph.settings import GradingSettings, LLMSettings, RubricWeights
from tutorgraph.store import users
from tutorgraph.store.db import Database
from tutorgraph.store.models import EvaluationEvent, InstructorAlert

REQUEST = GradingRequest(
    question="Why is the dot product divided by sqrt(d_k) in attention?",
    reference_answer=(
        "Dot products of d_k-dimensional vectors have variance d_k, so large scores push the "
        "softmax into saturation with tiny gradients; dividing by sqrt(d_k) keeps the variance "
        "near one."
    ),
    answer="Because it makes the computation faster on GPUs.",
    rubric=["variance grows with d_k", "softmax saturates", "keeps variance near one"],
    misconceptions=[
        KnownMisconception(
            id="scaling-for-speed",
            description="Thinks scaling is a speed trick.",
            cues=["computation faster"],
        )
    ],
    difficulty=4,
    concept="self-attention",
)


async def test_llm_judge_and_feedback_with_scripted_model() -> None:
    model = ScriptedEngine()
    reply = (
        '{"correctness": 2, "completeness": 3, "clarity": 9, '
        '"error_type": "CONCEPTUAL", "misconceptions": ["scaling-for-speed"], '
        '"missing_key_points": ["softmax saturates"], "reasoning": "wrong"}'
    )
    # Three runs (the default): the median verdict's `10.0 X` is the score.
    model.enqueue_chat(f"10.0 3.0\n{reply}", f"10.0 3.5\n{reply}", f"10.0 2.5\n{reply}")
    model.enqueue_structured(FeedbackOutput(feedback="Scaling is not about speed."))
    result = await Evaluator(model).grade(REQUEST)
    assert result.grader == "llm"
    assert result.score == pytest.approx(0.30)
    assert result.rubric.correctness == pytest.approx(0.2)  # the JSON marks are shown as given
    assert result.error_type == "CONCEPTUAL" and result.decision == "REMEDIATE"
    assert [m.id for m in result.misconceptions] == ["scaling-for-speed"]
    assert result.feedback == "Scaling is not about speed."
    judge_call = model.requests[0]
    assert judge_call.agent == "judge" and "Assistant 1" in (judge_call.messages[1].content or "")
    assert [r.agent for r in model.requests].count("judge") == 3


async def test_judge_runs_and_rubric_weights_are_settings() -> None:
    model = ScriptedEngine()
    model.enqueue_chat('{"correctness": 10, "completeness": 0, "clarity": 0}')
    model.enqueue_structured(FeedbackOutput(feedback="ok"))
    grading = GradingSettings(
        judge_runs=1, rubric_weights=RubricWeights(correctness=0.5, completeness=0.5, clarity=0)
    )
    result = await Evaluator(model, grading=grading).grade(REQUEST)
    assert result.score == pytest.approx(0.5)  # no `10.0 X`: the criteria, weighted as set
    assert [r.agent for r in model.requests].count("judge") == 1


async def test_unparseable_judge_reply_falls_back_to_the_offline_grader() -> None:
    model = ScriptedEngine()
    model.enqueue_chat(*["I refuse to use the format."] * 3)
    model.enqueue_structured(ProviderUnavailable("feedback server down"))
    result = await Evaluator(model).grade(REQUEST)
    assert result.grader == "offline"
    assert result.score < 0.6
    assert result.error_type == "CONCEPTUAL"  # the misconception cue is detected
    assert "speed trick" in result.feedback  # offline feedback names the misconception
    assert any("offline grader used" in w for w in result.warnings)


async def test_empty_answer_scores_zero_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    result = await Evaluator(offline_engine()).grade(REQUEST.model_copy(update={"answer": "  "}))
    assert result.score == 0.0 and result.decision == "RETRY"
    assert result.warnings == ["empty answer: scored 0.0"]
    assert "empty answer" in caplog.text


async def test_offline_engine_grades_a_good_answer_highly() -> None:
    good = REQUEST.model_copy(update={"answer": REQUEST.reference_answer})
    result = await Evaluator(offline_engine()).grade(good)
    assert result.grader == "offline"
    assert result.score >= 0.8 and result.error_type is None
    assert result.decision in ("MASTERED", "PROCEED")


async def test_through_the_fake_openai_server(fake_openai: FakeOpenAIServer) -> None:
    settings = LLMSettings(engine="openai", base_url=fake_openai.base_url, backoff_seconds=0)
    model = build_model(settings, offline=offline_engine())
    try:
        fake_openai.enqueue(*['10.0 9.6\n{"correctness": 10, "completeness": 9, "clarity": 9}'] * 3)
        fake_openai.enqueue(FeedbackOutput(feedback="Spot on."))
        good = REQUEST.model_copy(update={"answer": REQUEST.reference_answer})
        result = await Evaluator(model).grade(good)
        assert (result.grader, result.decision, result.feedback) == ("llm", "MASTERED", "Spot on.")
        assert result.score == pytest.approx(0.96)  # the `10.0 X` line, median of 3 runs
        # The server fails three times for the judge and three times for feedback: offline.
        fake_openai.enqueue(*[Fault.status(500)] * 6)
        fallback = await Evaluator(model).grade(REQUEST)
        assert fallback.grader == "offline" and fallback.error_type == "CONCEPTUAL"
        assert fake_openai.pending == 0
    finally:
        await aclose_model(model)


async def test_evaluate_updates_mastery_alerts_and_stores_the_event(database: Database) -> None:
    with database.session() as session:
        user_id = users.create_user(
            session=session, email="l@example.org", password="plenty long enough", name="L"
        ).id
    seen: list[dict[str, Any]] = []
    bus = EventBus()

    def broken(event: str, payload: dict[str, Any]) -> None:
        raise RuntimeError("subscriber bug")

    bus.subscribe(EVALUATION_COMPLETED, broken)
    bus.subscribe(EVALUATION_COMPLETED, lambda event, payload: seen.append(payload))
    evaluator = Evaluator(offline_engine(), bus=bus)

    with database.session() as session:
        bad = await evaluator.evaluate(REQUEST, session=session, user_id=user_id)
    assert bad.mastery is not None and bad.mastery.before.attempts == 0
    # Mastery from 0: half the way to the score (a typed answer), as far as the grader is sure.
    assert bad.mastery.kind == "answer"
    assert bad.mastery.after.wma == pytest.approx(0.5 * bad.score * bad.certainty, abs=1e-6)
    assert bad.mastery.after.bkt < bad.mastery.before.bkt  # a wrong answer lowers P(known)
    assert bad.alert_id is not None  # score < 0.4
    with database.session() as session:
        good = await evaluator.evaluate(
            REQUEST.model_copy(update={"answer": REQUEST.reference_answer}),
            session=session,
            user_id=user_id,
        )
    assert good.alert_id is None
    assert good.mastery is not None and good.mastery.before == bad.mastery.after
    before, target = bad.mastery.after.wma, 0.5 * bad.mastery.after.wma + 0.5 * good.score
    assert good.mastery.after.wma == pytest.approx(
        before + good.certainty * (target - before), abs=1e-6
    )
    assert good.mastery.after.bkt > good.mastery.before.bkt
    assert [p["decision"] for p in seen] == [bad.decision, good.decision]
    with database.session() as session:
        assert session.scalar(select(func.count()).select_from(EvaluationEvent)) == 2
        assert session.scalar(select(func.count()).select_from(InstructorAlert)) == 1


def test_bkt_mastery_never_sticks_at_certainty(database: Database) -> None:
    from tutorgraph.learner_model import mastery

    with database.session() as session:
        user_id = users.create_user(
            session=session, email="s@example.org", password="plenty long enough", name="S"
        ).id
        for _ in range(30):
            change = mastery.record_score(session=session, user_id=user_id, concept="c", score=1.0)
        assert change.after.bkt < 1.0
        wrong = mastery.record_score(session=session, user_id=user_id, concept="c", score=0.0)
        assert wrong.after.bkt < wrong.before.bkt


async def test_an_answer_the_grader_cannot_read_is_graded_unsure_and_says_so() -> None:
    answer = (
        "Because the numbers become enormous and the squashing function flattens out, "
        "leaving learning stuck."
    )
    result = await Evaluator(offline_engine()).grade(REQUEST.model_copy(update={"answer": answer}))
    assert result.certainty < 0.6
    assert result.feedback.startswith("I'm not sure I understood your answer:")
    sure = await Evaluator(offline_engine()).grade(
        REQUEST.model_copy(update={"answer": REQUEST.reference_answer})
    )
    assert sure.certainty >= 0.6 and "not sure" not in sure.feedback


def test_an_unsure_grade_moves_mastery_less(database: Database) -> None:
    from tutorgraph.learner_model import mastery

    with database.session() as session:
        user_id = users.create_user(
            session=session, email="m@example.org", password="plenty long enough", name="M"
        ).id
        sure = mastery.record_score(session=session, user_id=user_id, concept="a", score=1.0)
        unsure = mastery.record_score(
            session=session, user_id=user_id, concept="b", score=1.0, certainty=0.5
        )
    assert sure.after.wma == pytest.approx(0.5)
    assert unsure.after.wma == pytest.approx(0.25)  # half the way
    assert unsure.before.bkt < unsure.after.bkt < sure.after.bkt
