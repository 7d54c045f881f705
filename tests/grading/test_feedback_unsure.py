"""One feedback block: a grader that is unsure and partly right says both in one sentence, and
the feedback leaves what to do next to the one next step."""

from __future__ import annotations

import pytest

from tests.learner_model.test_evaluator import REQUEST
from tutorgraph.engines import offline_engine
from tutorgraph.grading.feedback import FeedbackInputs, offline_feedback
from tutorgraph.grading.types import PathDecision, RubricScores, Verdict
from tutorgraph.learner_model.evaluator import Evaluator

# Says one point ("softmax saturates") in words the grader knows, the rest in words it does not.
HALF_READ = (
    "softmax saturates; meanwhile the frobnicator glimmers, wozzles hum, blorps zigzag, "
    "quibbles murmur, snarks wobble, gizmos twinkle"
)


async def test_unsure_and_partly_right_is_one_coherent_sentence() -> None:
    result = await Evaluator(offline_engine()).grade(
        REQUEST.model_copy(update={"answer": HALF_READ})
    )
    assert result.certainty < 0.6 and result.covered_key_points == ["softmax saturates"]
    first = result.feedback.split(". ")[0]
    # the doubt and the credit in one sentence, not two headlines that contradict each other
    assert first.startswith("I'm not sure I understood your answer: part of it matches")
    assert "(softmax saturates)" in first
    assert "You got part of it right" not in result.feedback
    assert result.feedback.count("I'm not sure") == 1


async def test_a_sure_partial_answer_keeps_its_plain_headline() -> None:
    answer = (
        "Honestly the variance grows with d_k, which makes the exponentials explode into "
        "lopsided spiky distributions, flattening gradients everywhere downstream"
    )
    result = await Evaluator(offline_engine()).grade(REQUEST.model_copy(update={"answer": answer}))
    assert result.certainty >= 0.6
    assert result.feedback.startswith("You got part of it right (variance grows with d_k).")
    assert "not sure" not in result.feedback


@pytest.mark.parametrize("decision", ["MASTERED", "PROCEED", "ALTERNATE", "REMEDIATE", "RETRY"])
def test_the_feedback_names_no_next_action_of_its_own(decision: PathDecision) -> None:
    """A result showed two competing next actions: the feedback's closing advice and the next
    step. What to do next is the next step's alone."""
    verdict = Verdict(
        score=0.3,
        rubric=RubricScores(correctness=0.3, completeness=0.3, clarity=0.5),
        covered_key_points=["softmax saturates"],
        missing_key_points=["variance grows with d_k"],
        reasoning="",
    )
    text = offline_feedback(FeedbackInputs(request=REQUEST, verdict=verdict, decision=decision))
    for advice in ("Have another go", "move ahead", "another angle", "Go back over", "Continue"):
        assert advice not in text
    assert "A complete answer also covers: variance grows with d_k." in text
