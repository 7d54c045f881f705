"""Graded example answers: the offline grader's reading of an answer beside other learners'."""

from __future__ import annotations

import pytest

from tutorgraph.grading.examples import read_examples
from tutorgraph.grading.offline import OfflineGrader
from tutorgraph.grading.parameters import grading_parameters
from tutorgraph.grading.types import GradedAnswer, GradingRequest, KnownMisconception

QUESTION = "Why does a heavy blanket keep you warm on a cold night?"
REFERENCE = "It traps a layer of still air next to your body, and still air conducts heat poorly."
POINTS = ["it traps still air", "still air is a poor conductor of heat"]
MISCONCEPTION = KnownMisconception(
    id="blanket-makes-heat",
    description="Believes a blanket produces heat of its own.",
    cues=["blanket is hot"],
)
EXAMPLES = [
    GradedAnswer(answer="Air caught in the fibres barely lets warmth through.", grade="correct"),
    GradedAnswer(
        answer="The pockets of air in the weave hardly pass warmth on, so you keep yours.",
        grade="correct",
    ),
    GradedAnswer(answer="Something about the air in it.", grade="partial"),
    GradedAnswer(
        answer="The wool fibres create warmth themselves by friction as you move under them.",
        grade="wrong",
        misconception="blanket-makes-heat",
    ),
    GradedAnswer(
        answer="Wool fibres generate their own warmth through friction whenever you move.",
        grade="wrong",
        misconception="blanket-makes-heat",
    ),
]
# The wrong idea of the examples, in other words again: no cue of the misconception, and the
# rubric's words ("air", "heat") are nowhere in it.
WRONG = "Its wool fibres generate warmth by friction every time you move."


def request(answer: str, examples: list[GradedAnswer]) -> GradingRequest:
    return GradingRequest(
        question=QUESTION,
        reference_answer=REFERENCE,
        answer=answer,
        rubric=POINTS,
        misconceptions=[MISCONCEPTION],
        examples=examples,
    )


def test_no_examples_or_nothing_in_common_reads_nothing() -> None:
    assert read_examples(QUESTION, REFERENCE, WRONG, []) is None
    unrelated = read_examples(QUESTION, REFERENCE, "Paris is in France.", EXAMPLES)
    assert unrelated is None or unrelated.weight == 0


def test_an_answer_like_a_graded_wrong_one_is_read_as_wrong_with_its_misconception() -> None:
    reading = read_examples(QUESTION, REFERENCE, WRONG, EXAMPLES)
    assert reading is not None
    assert reading.nearest_grade == "wrong" and reading.estimate < 0.2
    assert 0 < reading.weight <= grading_parameters().examples.example_share
    assert reading.misconception == "blanket-makes-heat"
    assert reading.blend(1.0) < 1.0 and reading.blend(0.0) == pytest.approx(
        reading.weight * reading.estimate
    )


def test_an_answer_like_a_graded_correct_one_is_read_as_correct() -> None:
    answer = "The little pockets of air caught in the fibres barely let your warmth through."
    reading = read_examples(QUESTION, REFERENCE, answer, EXAMPLES)
    assert reading is not None
    assert reading.nearest_grade == "correct" and reading.estimate > 0.8
    assert reading.misconception is None


def test_a_negated_word_is_another_idea() -> None:
    said = read_examples(QUESTION, REFERENCE, "The fibres create warmth.", EXAMPLES)
    denied = read_examples(QUESTION, REFERENCE, "The fibres do not create warmth.", EXAMPLES)
    assert said is not None and denied is not None
    assert denied.nearest_similarity < said.nearest_similarity


def test_the_grader_reads_the_examples_beside_the_rubric() -> None:
    grader = OfflineGrader()
    alone = grader.grade(request(WRONG, []))
    beside = grader.grade(request(WRONG, EXAMPLES))
    assert beside.score < alone.score
    assert "blanket-makes-heat" in beside.misconceptions
    assert "Nearest graded example: wrong" in beside.reasoning
    right = "The pockets of air in the weave hardly pass warmth on, so your body keeps it."
    assert grader.grade(request(right, EXAMPLES)).score > grader.grade(request(right, [])).score


def test_without_a_rubric_the_examples_move_the_lexical_grade_too() -> None:
    grader = OfflineGrader()
    plain = request(WRONG, []).model_copy(update={"rubric": []})
    assert grader.grade(plain.model_copy(update={"examples": EXAMPLES})).score < (
        grader.grade(plain).score
    )


def test_an_example_naming_a_misconception_the_request_lacks_adds_nothing() -> None:
    graded = OfflineGrader().grade(
        request(WRONG, EXAMPLES).model_copy(update={"misconceptions": []})
    )
    assert graded.misconceptions == []


def test_a_fragment_of_a_correct_answer_gains_no_completeness_from_resembling_it() -> None:
    """Half of a correct answer is close to it, yet gives half of what was asked."""
    grader = OfflineGrader()
    half = "It traps a layer of still air next to your body."
    beside, alone = grader.grade(request(half, EXAMPLES)), grader.grade(request(half, []))
    assert beside.rubric.completeness <= alone.rubric.completeness < 1
    reading = read_examples(QUESTION, REFERENCE, half, EXAMPLES)
    assert reading is not None and reading.estimate > 0.5
    assert reading.lower(0.5) == 0.5 < reading.blend(0.5)


def test_the_examples_tell_a_partial_answer_from_a_wrong_one() -> None:
    """A vague answer like a graded partial one is INCOMPLETE (try again), not CONCEPTUAL
    (re-learn), though it makes too little of the rubric for the key points to say so."""
    grader = OfflineGrader()
    vague = "Something to do with the air inside the blanket, I guess."
    assert grader.grade(request(vague, [])).error_type == "CONCEPTUAL"
    assert grader.grade(request(vague, EXAMPLES)).error_type == "INCOMPLETE"
    assert grader.grade(request(WRONG, EXAMPLES)).error_type == "CONCEPTUAL"
    reading = read_examples(QUESTION, REFERENCE, vague, EXAMPLES)
    assert reading is not None and reading.partly_right is True
    wrong = read_examples(QUESTION, REFERENCE, WRONG, EXAMPLES)
    assert wrong is not None and wrong.partly_right is False
    far = read_examples(
        QUESTION, REFERENCE, "Heavy things hold on to the air around you.", EXAMPLES
    )
    assert far is not None and far.weight == 0 and far.partly_right is None  # too far to say


def test_an_answer_like_a_graded_wrong_one_is_capped_though_it_names_no_misconception() -> None:
    """What else it says stands on the wrong idea: correctness is capped as for a stated
    misconception before the examples move it, though no known misconception is named."""
    unnamed = [e.model_copy(update={"misconception": None}) for e in EXAMPLES]
    mixed = "It traps still air, and the wool fibres generate their own warmth whenever you move."
    reading = read_examples(QUESTION, REFERENCE, mixed, unnamed)
    assert reading is not None and reading.wrong_idea and reading.misconception is None
    grader = OfflineGrader()
    beside, alone = grader.grade(request(mixed, unnamed)), grader.grade(request(mixed, []))
    cap = grading_parameters().scoring.misconception_cap
    assert beside.misconceptions == [] and alone.rubric.correctness > cap
    capped = reading.blend(min(alone.rubric.correctness, cap))
    assert beside.rubric.correctness == pytest.approx(capped, abs=1e-3)
    assert capped < reading.blend(alone.rubric.correctness)
    right = "The pockets of air in the weave hardly pass warmth on, so your body keeps it."
    near_right = read_examples(QUESTION, REFERENCE, right, unnamed)
    assert near_right is not None and not near_right.wrong_idea


def test_a_wrong_example_says_the_wrong_idea_as_soon_as_the_examples_weigh() -> None:
    """The wrong idea told among many words of the learner's own: the nearest example is a
    wrong one, little alike, and still the answer's wrong idea as long as it weighs at all."""
    words = "my grandmother knitted ours from sheep on her farm in the hills every winter"
    seen: set[bool] = set()
    for k in range(0, len(words.split()) + 1):
        answer = "Friction as you move, " + " ".join(words.split()[:k]) + "."
        reading = read_examples(QUESTION, REFERENCE, answer, EXAMPLES)
        assert reading is not None and reading.nearest_grade == "wrong"
        assert reading.wrong_idea == (reading.weight > 0)
        assert (reading.misconception == "blanket-makes-heat") == (reading.weight > 0)
        seen.add(reading.weight > 0 and reading.nearest_similarity < 0.25)
    assert seen == {True, False}  # one weighs below 0.25, once the read wrong idea's threshold


def test_a_description_is_not_read_into_an_answer_the_examples_vouch_for() -> None:
    """A right answer using a misconception's words in another sense ("your body generates it")
    is not said to state it when it is as close as the examples get to a graded correct one."""
    fibres = KnownMisconception(
        id="fibres-make-heat", description="Believes the wool fibres generate warmth.", cues=[]
    )
    right = (
        "Air caught in the wool fibres barely lets warmth through; your body generates it and "
        "the fibres keep it."
    )

    def graded(examples: list[GradedAnswer]) -> list[str]:
        asked = request(right, examples).model_copy(update={"misconceptions": [fibres]})
        return OfflineGrader().grade(asked).misconceptions

    assert graded([]) == ["fibres-make-heat"]  # the description's words, read alone
    reading = read_examples(QUESTION, REFERENCE, right, EXAMPLES)
    assert reading is not None and reading.vouches
    assert graded(EXAMPLES) == []
