"""What independent reviewers of the builder's output found ill formed, as behaviour: a heading
that is a sentence pasted where a name goes, the reader's goal asked as "what happens if", a
code name that lost its underscores, and a right option given away by its font."""

from __future__ import annotations

import pytest

from tutorgraph.constructor.choices import Wrong, topic_phrase, with_choices
from tutorgraph.constructor.programs import cell_questions
from tutorgraph.constructor.questions import _conditions
from tutorgraph.constructor.state import QuizItem, Topic
from tutorgraph.constructor.text import prose, sentences
from tutorgraph.knowledge.bloom import BloomLevel
from tutorgraph.sandbox import sandbox_available


def topic(title: str) -> Topic:
    return Topic(topic_id="t", title=title, unit_id="u", section_ids=["s"])


def test_a_heading_that_is_a_sentence_is_named_as_the_lesson() -> None:
    assert topic_phrase(topic("What about NULL?")) == "the lesson “What about NULL?”"
    assert topic_phrase(topic("Diving in")) == "the lesson “Diving in”"
    assert topic_phrase(topic("Filtering")) == "Filtering"  # a name stays as it is


def test_the_readers_goal_is_asked_how_not_what_happens() -> None:
    said = "If we want to select a single column, we can type its name instead of the wildcard."
    [item] = _conditions(topic("Writing queries"), [said], "")
    assert item.text == "In Writing queries, how do you select a single column?"
    assert item.asks == "how"


def test_a_code_name_keeps_its_underscores_and_stars() -> None:
    text = "- The `__iter__()` method is **called** when _someone_ calls `iter(fib)` with `*args`."
    assert sentences(prose(text)) == [
        "The `__iter__()` method is called when someone calls `iter(fib)` with `*args`."
    ]


def test_options_share_one_font() -> None:
    item = QuizItem(
        item_id="t-q1",
        topic_id="t",
        bloom_level=BloomLevel.APPLY,
        type="scenario",
        difficulty=2,
        text="In Saving changes, which command stages a file for the next commit?",
        reference_answer="`git add`",
        key_points=["`git add`"],
        evidence="Use `git add` to stage a file.",
        asks="command",
    )
    chosen = with_choices(
        item, "`git add`", [Wrong("git commit", ""), Wrong("git status", "")], verbatim=True
    )
    assert chosen.options and all(o.startswith("`") and o.endswith("`") for o in chosen.options)


@pytest.mark.skipif(not sandbox_available(), reason="needs bubblewrap")
def test_an_ipython_cell_shows_a_class_by_its_name_as_ipython_does() -> None:
    text = "Booleans have their own type:\n\n```\nIn [3]: type(True)\nOut[3]: bool\n```\n"
    [question] = cell_questions("Types", text, "", runs=2).questions
    assert question.output == "bool"  # not "<class 'bool'>", which IPython does not show
