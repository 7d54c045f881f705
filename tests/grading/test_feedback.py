"""The offline feedback's wording of a misconception, said to the learner."""

from __future__ import annotations

import pytest

from tutorgraph.grading.feedback import misconception_warning
from tutorgraph.knowledge import get_domain


@pytest.mark.parametrize(
    ("description", "said"),
    [
        (
            "Believes a variable is a box that holds its own copy of a value.",
            "you seem to believe a variable is a box that holds its own copy of a value.",
        ),
        ("Applies the mask after the softmax.", "you seem to apply the mask after the softmax."),
        ("Confuses precision with recall.", "you seem to confuse precision with recall."),
        ("Catches every exception.", "you seem to catch every exception."),
        (
            "Does not realise that dropout must be disabled at evaluation time.",
            "you seem not to realise that dropout must be disabled at evaluation time.",
        ),
        (
            "Compares perplexity across tokenizers, or treats lower perplexity as proof.",
            "you seem to compare perplexity across tokenizers, or treat lower perplexity as proof.",
        ),
        (
            "Does not realise dropout is off at evaluation (or treats its noise as normal).",
            "you seem not to realise dropout is off at evaluation (or treat its noise as normal).",
        ),
    ],
)
def test_a_misconception_is_said_to_the_learner(description: str, said: str) -> None:
    assert misconception_warning(description) == (
        f"This sounds like a common misconception: {said}"
    )


def test_a_description_in_another_form_is_quoted_as_it_is() -> None:
    for description in (
        "Off-by-one errors in range().",
        "Has trouble with recursion.",
        "Lists are copied on assignment.",  # a caller's own wording: "Lists" is not a verb
    ):
        assert misconception_warning(description) == (
            f"Watch out for a common misconception: {description}"
        )


def test_every_shipped_description_reads_as_a_sentence_to_the_learner() -> None:
    for domain in ("python", "machine-learning"):
        for topic in get_domain(domain).topics.values():
            for misconception in topic.misconceptions:
                said = misconception_warning(misconception.description)
                assert said.startswith("This sounds like a common misconception: you seem ")
                assert "you seem to believes" not in said and "to does" not in said
                assert " or treats " not in said and "(or treats " not in said
