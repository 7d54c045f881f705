"""Which passage answers: the section choice of `relevant` and how a table section is quoted."""

from __future__ import annotations

from tutorgraph.tutor._passages import Passage, relevant
from tutorgraph.tutor.compose import answer, citations, table_rows
from tutorgraph.tutor.context import TutorContext


def _passage(
    heading: str, text: str, score: float, *, lesson: str = "lora", source: str = "lesson"
) -> Passage:
    return Passage(
        course="ml",
        lesson=lesson,
        lesson_title="LoRA" if lesson == "lora" else "Other lesson",
        source=source,
        heading_path=["LoRA" if lesson == "lora" else "Other lesson", heading],
        text=text,
        score=score,
    )


def test_a_heading_in_other_words_names_the_section() -> None:
    # "pick" is how the learner says the heading's "choosing" (the paraphrase lexicon's group)
    idea = _passage("The low-rank idea", "The update has low rank: lora learns it as B A.", 3.4)
    choosing = _passage("Choosing target modules and rank", "Rank between 8 and 64 for lora.", 3.2)
    assert relevant([idea, choosing], "how to pick lora rank")[0] is choosing


def test_within_a_lesson_the_section_saying_more_of_the_question_wins() -> None:
    question = "does my agent keep calling tools forever without a final answer? how do i stop it"
    loop = _passage(
        "The loop",
        "The agent loop sends each tool call's result back to the model until the final answer.",
        6.0,
    )
    guard = _passage(
        "Guardrails",
        "Stop the agent loop after a step budget: a model that never gives a final answer "
        "would keep calling tools forever.",
        5.0,
    )
    assert relevant([loop, guard], question)[0] is guard


def test_saying_more_words_does_not_pull_the_answer_out_of_the_open_lesson() -> None:
    question = "why does nothing happen when i call the function"
    here = _passage("Generator functions", "Calling a generator function runs nothing yet.", 2.7)
    elsewhere = _passage(
        "The event loop",
        "Nothing happens when you call a coroutine function until it is awaited.",
        2.5,
        lesson="asyncio",
    )
    assert relevant([elsewhere, here], question, prefer="lora")[0] is here


def test_a_long_question_is_judged_by_the_words_the_courses_know() -> None:
    question = (
        "the softmax plus cross entropy gradient is supposedly p minus y but my derivation is a "
        "huge messy jacobian, where does all that stuff cancel"
    )
    backward = _passage(
        "Backward equations", "Softmax with a cross term: its gradient is short.", 5.0
    )
    assert relevant([backward], question) == []  # 3 of its 12 content words: too little...
    # ...unless some of the rest are words no course uses: 3 of the 9 it knows
    assert relevant([backward], question, unknown=["suppos", "messi", "jacobian"]) == [backward]


def test_reference_notes_do_not_set_the_bar_for_the_lesson() -> None:
    question = "lora vs qlora, what actually changes? is qlora just lora with a smaller rank"
    notes = _passage(
        "Edge cases",
        "A smaller rank changes little; lora and qlora differ in how the base is stored.",
        7.5,
        source="reference_kb",
    )
    qlora = _passage("QLoRA", "QLoRA stores the frozen base in 4 bits under lora adapters.", 7.2)
    assert relevant([notes, qlora], question)[0] is qlora


TABLE = """Pick the container by what you need:

| You need | Use | Cost |
|---|---|---|
| An ordered sequence | `list` | `pop(0)` is O(n) |
| Lookup by key | `dict` | O(1) |
| Fast membership | `set` | `in` is O(1) |
| A queue with cheap operations at both ends | `collections.deque` | O(1) at both ends |
| A fixed record | `tuple` | immutable |
| Counting | `Counter` | O(1) per item |
"""


def test_a_table_section_is_quoted_by_its_rows_that_answer() -> None:
    rows = table_rows(TABLE, "deque vs list for a queue, is pop(0) slow?", count=2)
    lines = rows.splitlines()
    assert lines[0] == "Pick the container by what you need:"  # the lead-in says what it is
    assert lines[2].startswith("| You need") and lines[3].startswith("|---")
    assert [line.split("|")[2].strip() for line in lines[4:]] == ["`list`", "`collections.deque`"]
    only = table_rows(TABLE, "is a set good for membership tests?").splitlines()[4:]
    assert [line.split("|")[2].strip() for line in only] == ["`set`"]  # only the rows that say it
    unrelated = table_rows(TABLE, "what about zebras", count=2).splitlines()[4:]
    assert len(unrelated) == 2 and "`list`" in unrelated[0]  # none does: the first rows
    assert table_rows("No table here, only prose.", "deque") == ""


def test_an_answer_from_a_table_section_quotes_and_cites_it() -> None:
    section = _passage("Choosing a built-in container", TABLE, 5.0)
    context = TutorContext(lesson_title="LoRA", lesson_slug="lora", course_slug="ml")
    question = "is a set fast for membership"
    reply = answer(context, question, [section], lesson_content="", history=[])
    assert "| Fast membership | `set` | `in` is O(1) |" in reply
    assert citations(reply)[0].heading == "Choosing a built-in container"
