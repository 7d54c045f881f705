"""Saying an idea in other words: the lexicon, negation, opposites, numbers, code and cues."""

from __future__ import annotations

import pytest

from tutorgraph.grading.keypoints import assess_points, stated_misconceptions
from tutorgraph.grading.offline import OfflineGrader
from tutorgraph.grading.types import GradingRequest, KnownMisconception
from tutorgraph.text.meaning import Analysis, find


def says(phrasing: str, answer: str) -> tuple[float, bool]:
    match = find(Analysis.of(phrasing), Analysis.of(answer))
    return match.share, match.contradicted


@pytest.mark.parametrize(
    ("phrasing", "answer"),
    [
        ("the list is modified in place", "append mutates that list in-place"),
        ("no copy is made", "nothing is copied, b is just another name"),
        ("b = a binds b to the same object", "assigning b to a points b to the very same object"),
        ("sigmoid of 0 is 0.5", "sigmoid(0) = 0.50"),
        ("accuracy is 0.731", "I get about 0.73 accuracy"),
        ("generators are lazy", "a generator yields them one at a time"),
        ("the race loses updates", "in that race, updates are lost"),
        ("the task runs to completion", "the task ran to completion"),
    ],
)
def test_an_idea_in_other_words_is_found(phrasing: str, answer: str) -> None:
    assert says(phrasing, answer) == (1.0, False)


@pytest.mark.parametrize(
    ("phrasing", "answer"),
    [
        ("strings are immutable", "strings are mutable"),
        ("strings are immutable", "strings are not immutable"),
        ("no copy is made", "b gets its own copy"),
        ("darker colors absorb more heat", "darker colors absorb less heat"),
    ],
)
def test_saying_the_opposite_contradicts(phrasing: str, answer: str) -> None:
    assert says(phrasing, answer)[1] is True


def test_asserting_what_a_point_denies_is_not_a_contradiction() -> None:
    share, contradicted = says("is tests identity, not equality", "is compares identity")
    assert not contradicted and share > 0


def test_numbers_must_agree_to_the_coarser_precision() -> None:
    assert says("the loss is 0.693", "loss 0.69")[0] == 1.0
    assert says("the loss is 0.693", "loss 0.59")[0] < 1.0


def test_a_rounded_value_matches_but_another_value_does_not() -> None:
    assert says("new weight 0.05", "the new weight is 0.05")[0] == 1.0
    assert says("new weight 0.05", "the new weight is 0.1")[0] < 1.0  # 0.05 rounds to 0.1


def test_thousands_separators_make_one_number() -> None:
    assert says("131,072 parameters", "that is 131072 parameters")[0] == 1.0
    assert says("about 16,777,216 in all", "16777216 trainable in all")[0] == 1.0
    # "100,000" is one hundred thousand, not 100 and 0
    assert [t.number for t in Analysis.of("another 100,000 rows").tokens if t.number] == ["100000"]
    assert says("the label is 0", "label another 100,000 rows")[0] < 1.0
    assert [t.number for t in Analysis.of("x = [1, 2]").tokens if t.number] == ["1", "2"]


def test_maths_symbols_are_read_as_written() -> None:
    assert says("dL/dw = -0.5", "dL/dw = (−1)(0.25)(2) = −0.5")[0] == 1.0
    assert says("dL/dw = -0.5", "dL/dw = 0.5")[0] < 1.0
    assert says("sigmoid(0) = 0.5", "σ(0) = 0.5")[0] == 1.0
    assert says("r much smaller than d", "r ≪ d")[0] < 1.0  # the symbol is not the words...
    assert says("r << d", "r ≪ d")[0] == 1.0  # ...but it is the operator


@pytest.mark.parametrize(
    ("phrasing", "answer"),
    [
        ("O(n^2) overall", "every check walks the whole list, so it's n^2 overall"),
        ("O(n^2) overall", "quadratic overall"),
        ("O(n²) overall", "O(n ** 2) overall"),
        ("O(1) membership", "membership in constant time"),
        ("O(n log n) sort", "sorting is O(n log n)"),
    ],
)
def test_complexity_is_read_in_any_spelling(phrasing: str, answer: str) -> None:
    assert says(phrasing, answer)[0] == 1.0


def test_one_complexity_is_not_another() -> None:
    assert says("O(n) lookup", "O(n^2) lookup")[0] < 1.0
    assert says("O(n^2) overall", "O(n^3) overall")[0] < 1.0
    assert says("O(1) membership", "O(n) membership")[0] < 1.0
    # "quadratic" names a loss, not a running time, and stays a word
    assert "o(n^2)" not in Analysis.of("a quadratic loss").texts


def test_python_scope_names_are_not_ordinary_words() -> None:
    # "built-in" is one word, not "built" (the lexicon's "create"); the Enclosing scope is not
    # the opposite of looking "inside" a function
    assert "builtin" in Analysis.of("Built-in scope, then built-ins like len").texts
    share, contradicted = says(
        "Local, Enclosing, Global and Built-in",
        "python looks inside the function first: local, enclosing, global and built-in",
    )
    assert (share, contradicted) == (1.0, False)


def test_words_of_order_are_part_of_an_idea() -> None:
    # "before" was a function word: "read before assignment" met "reads it, then assigns"
    assert says("read before assignment", "it is read before the assignment")[0] == 1.0
    assert says("read before assignment", "it reads the global and assigns after")[1] is True


def test_one_ordinary_word_does_not_make_a_point() -> None:
    question = "How is each LoRA factor initialised?"
    # "A random" comes down to "random": an answer that says "randomly" elsewhere makes nothing
    wrong = "Both are set to zero. Initialising either one randomly would break training."
    assert assess_points(question, wrong, ["A random"])[0].credit == 0.0
    # a phrasing made only of the question's words needs them all
    rebinds = assess_points("Why is `items = items + [1]` invisible?", "a local", ["items local"])
    assert rebinds[0].credit == 0.0


def test_a_denial_needs_the_answer_to_talk_about_the_point() -> None:
    _share, contradicted = says(
        "the test set is not used for selection", "they used cross-validation on the train split"
    )
    assert not contradicted


def test_a_comparison_is_denied_only_where_the_phrasing_says_what_is_compared() -> None:
    # the smaller side with "more" says what the larger side with "fewer" says
    assert (
        says("fewer tokens", "with 32k entries, Thai is split into bytes: more tokens")[1] is False
    )
    assert (
        says(
            "a larger vocabulary gives shorter sequences",
            "a larger vocabulary gives longer sequences",
        )[1]
        is True
    )


def test_words_scattered_over_a_long_answer_do_not_make_a_point() -> None:
    filler = " ".join(f"word{i}" for i in range(40))
    assert says("mutable default argument", f"mutable {filler} default {filler} argument")[0] < 1


def test_cues_match_in_order_and_with_their_polarity() -> None:
    known = [KnownMisconception(id="boxes", description="", cues=["b is a copy of a"])]
    assert stated_misconceptions("Now b is a copy of a, so they differ.", known) == ["boxes"]
    assert stated_misconceptions("b is not a copy of a: same list.", known) == []
    assert stated_misconceptions("Use b = a.copy() for a real copy.", known) == []


def test_accepted_phrasings_credit_a_point() -> None:
    point = "assignment binds a name without copying"
    question = "Why does b.append(3) change a after b = a?"
    plain = assess_points(question, "Both names are aliases of one list.", [point])
    helped = assess_points(
        question, "Both names are aliases of one list.", [point], {point: ["alias one list"]}
    )
    assert plain[0].credit == 0.0 and helped[0].credit == 1.0


GRID = GradingRequest(
    question="Why does `grid = [[0] * 3] * 3; grid[0][0] = 1` change every row? Fix it.",
    reference_answer=(
        "The outer * 3 repeats a reference to the same inner list, so all three rows are one "
        "list object and the assignment shows in every row. Build each row anew: "
        "grid = [[0] * 3 for _ in range(3)]."
    ),
    answer="",
    rubric=[
        "outer * 3 repeats the same reference",
        "all three rows are one list object",
        "list comprehension that creates a new inner list",
    ],
    phrasings={
        "outer * 3 repeats the same reference": ["copies the reference not the list"],
        "all three rows are one list object": ["rows are the same list"],
        "list comprehension that creates a new inner list": ["for _ in range(3)"],
    },
    misconceptions=[
        KnownMisconception(
            id="star-copies", description="Thinks * 3 copies the inner list.", cues=["makes copies"]
        )
    ],
)


def test_a_short_right_answer_beats_a_long_wrong_one() -> None:
    grader = OfflineGrader()
    right = grader.grade(
        GRID.model_copy(
            update={
                "answer": "* 3 copies the reference, not the list, so the rows are the same "
                "list. Use [[0] * 3 for _ in range(3)]."
            }
        )
    )
    wrong = grader.grade(
        GRID.model_copy(
            update={
                "answer": "The multiplication makes copies of the inner list, three separate "
                "lists, but Python caches small integers so the zero in each row is shared and "
                "setting it to 1 changes the shared integer object everywhere in memory. You "
                "should use numpy zeros instead, which avoids the integer cache entirely."
            }
        )
    )
    assert right.score >= 0.8 and right.covered_key_points == GRID.rubric
    assert wrong.score < 0.4 and wrong.misconceptions == ["star-copies"]


def test_the_shipped_knowledge_base_has_no_grading_content_errors() -> None:
    from tutorgraph.knowledge import shipped_domains
    from tutorgraph.knowledge.lint import lint_domain

    for kb in shipped_domains().values():
        errors = [f for f in lint_domain(kb.domain) if f.level == "error"]
        assert errors == []


def test_a_point_is_denied_only_where_the_answer_talks_about_most_of_it() -> None:
    question = "Why does send_email(user) never send anything, and how do you fix it?"
    point = ["keep a reference to the task"]
    # a negated word shared with the point is not denying it...
    passing = assess_points(question, "you don't need to keep anything, the task just runs", point)
    assert not passing[0].contradicted
    # ...saying all of it negated is
    denying = assess_points(question, "you do not keep a reference to the task at all", point)
    assert denying[0].contradicted


def test_concurrent_is_not_parallel() -> None:
    """asyncio's whole point: tasks interleave on one thread, they do not run simultaneously."""
    assert says("tasks run in parallel", "the tasks run concurrently")[0] < 1.0
    assert says("tasks run in parallel", "the tasks run simultaneously") == (1.0, False)


def test_learners_say_async_for_asyncio() -> None:
    parallel = KnownMisconception(
        id="async-is-parallel", description="", cues=["asyncio runs in parallel"]
    )
    said = "Just gather all 500 at once, since async runs them in parallel on all cores."
    assert stated_misconceptions(said, [parallel]) == ["async-is-parallel"]


def test_a_cue_is_stated_through_intensifiers_and_a_wrapped_line() -> None:
    cue = [KnownMisconception(id="async-is-parallel", description="", cues=["run in parallel"])]
    wrapped = (
        "Because the workers are spread over all the available CPU cores, the coroutines run at\n"
        "the same time, which is the whole reason asyncio is fast."
    )
    assert stated_misconceptions(wrapped, cue) == ["async-is-parallel"]
    assert stated_misconceptions("They genuinely run in parallel.", cue) == ["async-is-parallel"]
    # A short line is a line of its own (a list item, a line of code), as is a line with code.
    assert stated_misconceptions("- they run at\nthe same time", cue) == []
    code = "tasks_to_run_now = [job for job in all_of_the_jobs if job.ready] and run at\nthe same"
    assert stated_misconceptions(code + " time", cue) == []
