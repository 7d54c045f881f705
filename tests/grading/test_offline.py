"""The offline grader: reference-guided scores, no-credit cases, error types, calibration."""

from __future__ import annotations

from pathlib import Path

import pytest

from tutorgraph.grading.calibration import (
    Calibration,
    TrainingRow,
    fit_calibration,
    load_default,
)
from tutorgraph.grading.features import FEATURE_NAMES, extract
from tutorgraph.grading.keypoints import assess_points, described_misconceptions
from tutorgraph.grading.offline import OfflineGrader
from tutorgraph.grading.parameters import grading_parameters
from tutorgraph.grading.types import GradingRequest, KnownMisconception

SPOON_Q = "Why does a metal spoon feel colder than a wooden spoon at the same temperature?"
SPOON_REF = (
    "Metal is a better conductor of heat than wood, so it carries heat away from your hand faster."
)
TCP_Q = "How does TCP establish a connection?"
TCP_REF = (
    "With a three-way handshake: the client sends SYN, the server answers SYN-ACK, "
    "and the client replies with ACK."
)
TCP_POINTS = [
    "the client sends a SYN segment",
    "the server answers with SYN-ACK",
    "the client acknowledges with a final ACK",
]


@pytest.fixture(scope="module")
def grader() -> OfflineGrader:
    return OfflineGrader()


@pytest.fixture(scope="module")
def simple() -> OfflineGrader:
    """A hand-made model, P(correct) = sigmoid(4 * coverage - 2), so rule tests survive refits."""
    return OfflineGrader(Calibration(feature_names=["ref_recall_novel"], weights=[4.0], bias=-2.0))


def spoon(answer: str, misconceptions: list[KnownMisconception] | None = None) -> GradingRequest:
    return GradingRequest(
        question=SPOON_Q,
        reference_answer=SPOON_REF,
        answer=answer,
        misconceptions=misconceptions or [],
    )


def test_grading_is_deterministic(grader: OfflineGrader) -> None:
    request = spoon("Metal conducts heat away from the hand faster than wood does.")
    first, second = grader.grade(request), OfflineGrader().grade(request)
    assert first.model_dump() == second.model_dump()
    assert first.grader == "offline"


def test_a_correct_paraphrase_scores_well_above_a_wrong_answer(grader: OfflineGrader) -> None:
    right = grader.grade(
        spoon(
            "Because metal conducts heat better than wood and pulls heat away from the hand faster."
        )
    )
    wrong = grader.grade(spoon("Because the wooden spoon is heavier and has a rough handle."))
    assert right.score >= 0.8 and right.error_type is None
    assert wrong.score < 0.5 and wrong.error_type is not None
    assert right.score - wrong.score > 0.4
    assert right.score == right.rubric.score  # the verdict's score is the weighted rubric


@pytest.mark.parametrize("answer", ["", "   \n\t"])
def test_an_empty_answer_gets_zero(grader: OfflineGrader, answer: str) -> None:
    verdict = grader.grade(spoon(answer))
    assert verdict.score == 0.0
    assert verdict.rubric.correctness == verdict.rubric.completeness == 0.0


def test_echoing_the_question_gets_no_credit(grader: OfflineGrader) -> None:
    verdict = grader.grade(
        spoon("A metal spoon feels colder than a wooden spoon at the same temperature.")
    )
    assert verdict.score == 0.0
    assert "restates the question" in verdict.reasoning


def test_reusing_a_few_question_words_is_not_an_echo(grader: OfflineGrader) -> None:
    request = GradingRequest(
        question="A switch controls a motor in a circuit. What will happen to the motor when "
        "the switch is closed and the circuit is complete?",
        reference_answer="The motor will run.",
        answer="The motor will run.",
    )
    assert grader.grade(request).score >= 0.8


def test_a_known_misconception_is_detected_and_conceptual(grader: OfflineGrader) -> None:
    misconception = KnownMisconception(
        id="metal-is-colder",
        description="Believes the metal is at a lower temperature.",
        cues=["metal is actually colder", "lower temperature"],
    )
    verdict = grader.grade(
        spoon("The METAL is Actually   colder than the wood.", misconceptions=[misconception])
    )
    assert verdict.misconceptions == ["metal-is-colder"]
    assert verdict.error_type == "CONCEPTUAL"
    assert verdict.rubric.correctness <= 0.4


def test_a_cue_must_match_whole_words(grader: OfflineGrader) -> None:
    misconception = KnownMisconception(id="m", description="", cues=["cold"])
    verdict = grader.grade(spoon("Metal feels colder: it conducts heat.", [misconception]))
    assert verdict.misconceptions == []


def test_a_missing_key_point_is_incomplete_and_listed(simple: OfflineGrader) -> None:
    request = GradingRequest(
        question=TCP_Q,
        reference_answer=TCP_REF,
        answer="The client sends a SYN segment first.",
        rubric=TCP_POINTS,
    )
    verdict = simple.grade(request)
    assert verdict.error_type == "INCOMPLETE"
    assert verdict.covered_key_points == ["the client sends a SYN segment"]
    assert verdict.missing_key_points == TCP_POINTS[1:]
    assert verdict.rubric.completeness == pytest.approx(1 / 3, abs=1e-3)


def test_all_key_points_covered(grader: OfflineGrader) -> None:
    answer = "Client sends SYN, server answers SYN-ACK, client acknowledges with a final ACK."
    request = GradingRequest(
        question=TCP_Q, reference_answer=TCP_REF, answer=answer, rubric=TCP_POINTS
    )
    verdict = grader.grade(request)
    assert verdict.missing_key_points == [] and verdict.rubric.completeness == 1.0
    assert verdict.score >= 0.8


def test_wrong_content_is_conceptual(simple: OfflineGrader) -> None:
    request = GradingRequest(
        question=TCP_Q,
        reference_answer=TCP_REF,
        answer="It uses UDP datagrams and checksums to be fast.",
        rubric=TCP_POINTS,
    )
    assert simple.grade(request).error_type == "CONCEPTUAL"


def test_an_opposite_word_with_the_rest_right_is_careless(simple: OfflineGrader) -> None:
    request = GradingRequest(
        question="Why should Sue put the dark green sheet on the bottom of the pool?",
        reference_answer="Darker colors absorb more heat than lighter colors, so water warms up.",
        answer="Darker colors absorb less heat and the water warms up.",
    )
    verdict = simple.grade(request)
    assert verdict.score < 0.8 and verdict.error_type == "CARELESS"
    assert "opposite" in verdict.reasoning


def test_a_near_miss_is_careless(simple: OfflineGrader) -> None:
    request = GradingRequest(
        question="What are the stages of the water cycle?",
        reference_answer="Evaporation, condensation, precipitation and collection.",
        answer="Evaporation, then condensation and precipitation, in a loop driven by the sun.",
    )
    verdict = simple.grade(request)
    assert 0.6 <= verdict.score < 0.8 and verdict.error_type == "CARELESS"


def test_a_partial_answer_to_a_coding_question_is_procedural(simple: OfflineGrader) -> None:
    request = GradingRequest(
        question="Write a Python function that returns the largest item of a list.",
        reference_answer="Loop over the list keeping the largest item seen so far and return it.",
        answer=(
            "for item in items:\n    if item > items[0]:\n        largest = item"
            "  # loop over the list"
        ),
        rubric=["loop over the list", "keep the largest item seen so far", "return the largest"],
    )
    assert simple.grade(request).error_type == "PROCEDURAL"
    # code mostly about something else is not a slip in a procedure but an idea of its own
    other = "for x in items:\n    if x > items[0]:\n        print(x)  # loop over the list"
    elsewhere = request.model_copy(update={"answer": other})
    assert simple.grade(elsewhere).error_type != "PROCEDURAL"
    described = request.model_copy(update={"answer": "You loop over the list and compare."})
    assert simple.grade(described).error_type == "INCOMPLETE"  # steps left out, none done wrong


def test_an_alternative_reference_is_used_when_it_fits_better(grader: OfflineGrader) -> None:
    request = GradingRequest(
        question="What happens to a bulb in series when another bulb burns out?",
        reference_answer="The bulb goes out because the circuit is broken.",
        answer="It stops shining since the path is open.",
    )
    alone = grader.grade(request)
    helped = grader.grade_with_alternatives(
        request, alternatives=["It stops shining because the path is open."]
    )
    assert helped.score > alone.score + 0.3


def test_the_shipped_calibration_loads_and_round_trips(tmp_path: Path) -> None:
    calibration = load_default()
    assert calibration.feature_names == list(FEATURE_NAMES)
    assert "train" in calibration.fitted_on
    path = tmp_path / "calibration.json"
    calibration.save(path)
    assert load_default(path) == calibration
    values = extract(SPOON_Q, [SPOON_REF], "Metal conducts heat.").values
    assert 0.0 < calibration.probability(values) < 1.0


def test_a_calibration_with_mismatched_weights_is_refused() -> None:
    with pytest.raises(ValueError, match="differ in length"):
        Calibration(feature_names=["a", "b"], weights=[1.0], bias=0.0)


def test_fit_learns_a_positive_weight_for_coverage() -> None:
    rows = []
    for i in range(40):
        coverage = i / 39
        noise = ((i * 7) % 10) / 10  # deterministic, unrelated to the label
        features = {name: noise for name in FEATURE_NAMES} | {"ref_recall_novel": coverage}
        rows.append(TrainingRow(features=features, target=1.0 if coverage > 0.5 else 0.0))
    calibration = fit_calibration(rows, fitted_on="synthetic")
    weights = dict(zip(calibration.feature_names, calibration.weights, strict=True))
    assert weights["ref_recall_novel"] > 1.0
    assert weights["ref_recall_novel"] > max(
        abs(w) for n, w in weights.items() if n != "ref_recall_novel"
    )
    high = {name: 0.5 for name in FEATURE_NAMES} | {"ref_recall_novel": 0.95}
    low = high | {"ref_recall_novel": 0.05}
    assert calibration.probability(high) > 0.5 > calibration.probability(low)
    assert fit_calibration(rows, fitted_on="synthetic") == calibration  # deterministic


@pytest.mark.parametrize(
    ("answer", "credit"),
    [
        ("Kernel, buffer and socket.", 1.0),  # 3 of 4 terms: covered
        ("The kernel and a socket.", 0.5),  # half of a 4-term point: partial credit
        ("Only the kernel.", 0.0),  # one shared word is no evidence
    ],
)
def test_a_key_point_earns_credit_from_half_its_terms(answer: str, credit: float) -> None:
    point = "kernel buffer socket descriptor"
    [result] = assess_points("What is involved?", answer, [point])
    assert result.credit == pytest.approx(credit)
    assert result.covered == (credit == 1.0)


def test_saying_the_opposite_of_the_reference_costs_correctness(grader: OfflineGrader) -> None:
    question = "Why should Sue put the dark green sheet on the bottom of the pool?"
    reference = "Darker colors absorb more heat than lighter colors, so the water warms up."
    right, wrong = (
        grader.grade(GradingRequest(question=question, reference_answer=reference, answer=a))
        for a in (
            "Darker colors absorb more heat, so the water gets warmer.",
            "Darker colors absorb less heat and the water warms up.",
        )
    )
    assert right.score >= 0.8
    assert wrong.score < right.score - 0.2 and "opposite" in wrong.reasoning


def test_code_that_fixes_the_question_code_is_not_an_echo(grader: OfflineGrader) -> None:
    question = "Explain and fix:\n\n    def add_tag(tag, tags=[]):\n        tags.append(tag)"
    request = GradingRequest(
        question=question,
        reference_answer="Defaults are evaluated once; use None as a sentinel.",
        answer="def add_tag(tag, tags=None):\n    if tags is None:\n        tags = []",
        rubric=["use None as a sentinel"],
        phrasings={"use None as a sentinel": ["tags=None"]},
    )
    verdict = grader.grade(request)
    assert verdict.covered_key_points == ["use None as a sentinel"]
    echo = request.model_copy(update={"answer": "def add_tag(tag, tags=[]): tags.append(tag)"})
    assert grader.grade(echo).reasoning == "The answer only restates the question."


def test_an_answer_mostly_about_something_else_loses_correctness(grader: OfflineGrader) -> None:
    point = "a generator is lazy and produces items one at a time"
    base = GradingRequest(
        question="What does a generator do?",
        reference_answer="A generator is lazy: it produces items one at a time on demand.",
        answer="A generator is lazy and produces items one at a time.",
        rubric=[point],
    )
    focused = grader.grade(base)
    wandering = grader.grade(
        base.model_copy(
            update={
                "answer": base.answer + " Threads share memory, the GIL serialises bytecode, "
                "processes need pickling, asyncio schedules coroutines on an event loop and "
                "decorators wrap functions with closures."
            }
        )
    )
    assert focused.rubric.correctness > wandering.rubric.correctness


def test_focus_reads_the_answer_as_the_points_do(grader: OfflineGrader) -> None:
    # "quadratic" makes the point "O(n^2) overall"; the answer is on the point, not off it
    verdict = grader.grade(
        GradingRequest(
            question="Why is this dedupe loop slow on 200,000 emails?",
            reference_answer="`e not in seen` scans a list, so the loop is O(n^2) overall.",
            answer="it is quadratic",
            rubric=["the loop is O(n^2) overall", "a set makes membership O(1)"],
            phrasings={"the loop is O(n^2) overall": ["O(n^2)"]},
        )
    )
    assert verdict.covered_key_points == ["the loop is O(n^2) overall"]
    assert verdict.rubric.correctness >= 0.4


LOGREG_Q = "Name the loss function logistic regression is trained with, and why."
LOGREG_REF = (
    "Logistic regression is trained by minimising binary cross-entropy, the negative "
    "log-likelihood of a Bernoulli model; it is convex in the weights."
)
LOGREG_POINTS = [
    "minimises binary cross-entropy",
    "cross-entropy is the negative log-likelihood",
    "the loss is convex in the weights",
]
SQUARED = KnownMisconception(
    id="logistic-with-mse",
    description="Believes logistic regression is fitted by least squares, minimising the mean "
    "squared error on the probabilities like linear regression.",
    cues=["fit logistic regression with mse"],  # a cue these answers do not use word for word
)


def logreg(answer: str) -> GradingRequest:
    return GradingRequest(
        question=LOGREG_Q,
        reference_answer=LOGREG_REF,
        answer=answer,
        rubric=LOGREG_POINTS,
        misconceptions=[SQUARED],
    )


def test_a_misconception_told_in_other_words_than_its_cues_is_found(
    grader: OfflineGrader,
) -> None:
    wrong = grader.grade(
        logreg(
            "Same as linear regression: it minimises the mean squared error between the "
            "probabilities and the labels, a least squares fit, which is convex in the weights."
        )
    )
    assert wrong.misconceptions == ["logistic-with-mse"]
    assert wrong.error_type == "CONCEPTUAL"
    assert wrong.score < 0.4


def test_denying_a_described_misconception_or_making_the_points_is_not_stating_it(
    grader: OfflineGrader,
) -> None:
    denied = grader.grade(
        logreg("Not by least squares or mean squared error on the probabilities: cross-entropy.")
    )
    assert denied.misconceptions == []
    right = grader.grade(
        logreg(
            "It minimises binary cross-entropy, the negative log-likelihood, which is convex in "
            "the weights, unlike the mean squared error of linear regression on probabilities."
        )
    )
    assert right.misconceptions == [] and right.score >= 0.6  # it makes every point


def test_a_misconception_told_at_length_has_less_correctness_than_one_point_said_right(
    grader: OfflineGrader,
) -> None:
    def four_points(answer: str) -> GradingRequest:
        points = [*LOGREG_POINTS, "predicts a probability through the sigmoid"]
        return logreg(answer).model_copy(update={"rubric": points})

    wrong = grader.grade(
        four_points(
            "Same as linear regression: it minimises the mean squared error between the "
            "probabilities and the labels, a least squares fit, which is convex in the weights."
        )
    )
    partial = grader.grade(four_points("The loss is convex in the weights."))
    assert wrong.misconceptions == ["logistic-with-mse"] and partial.misconceptions == []
    assert wrong.covered_key_points == partial.covered_key_points  # the same one point of four
    cap = grading_parameters().scoring.misconception_cap
    assert wrong.rubric.correctness <= cap < partial.rubric.correctness
    assert wrong.score < partial.score


def test_a_described_misconception_denied_in_a_sentence_is_not_stated() -> None:
    l2_sparse = KnownMisconception(
        id="l2-gives-sparsity",
        description="Believes ridge regularisation sets coefficients exactly to zero and "
        "performs feature selection.",
        cues=[],
    )
    question = "Which penalty gives a short list of features, L1 or L2?"
    refuted = (
        "Ridge only shrinks the coefficients and never sets them exactly to zero. Lasso's "
        "penalty sets most coefficients exactly to zero, which performs feature selection."
    )
    held = "Ridge sets the coefficients exactly to zero, which performs feature selection."
    assert described_misconceptions(refuted, question, [l2_sparse]) == []
    assert described_misconceptions(held, question, [l2_sparse]) == ["l2-gives-sparsity"]


def test_without_a_rubric_a_described_misconception_is_found_too(grader: OfflineGrader) -> None:
    # a caller's own question with a concept's misconceptions (`tutorgraph grade --concept`)
    request = logreg(
        "Same as linear regression: it minimises the mean squared error between the "
        "probabilities and the labels, a least squares fit."
    ).model_copy(update={"rubric": []})
    verdict = grader.grade(request)
    assert verdict.misconceptions == ["logistic-with-mse"]
    assert verdict.rubric.correctness <= 0.3


def test_a_one_word_right_answer_to_a_one_sentence_reference_is_clear(
    grader: OfflineGrader,
) -> None:
    """Without a rubric, clarity's length adequacy asks for an eighth of the reference's content
    words (one at least): "parallel" answers a one-sentence reference in full, and saying more
    words that are not the reference's does not make an answer clearer."""
    question = "Which kind of circuit keeps the other bulbs lit when one bulb burns out?"
    reference = "A parallel circuit, because each bulb has its own path to the battery."
    terse, padded = (
        grader.grade(GradingRequest(question=question, reference_answer=reference, answer=a))
        for a in ("parallel", "I think it could be the parallel one, probably, maybe")
    )
    assert terse.rubric.clarity >= padded.rubric.clarity
    assert terse.rubric.clarity >= 0.8
