"""The offline structure engine: topics from headings, boxes and boilerplate folded in,
heading-less text, prerequisites that only point backwards, and the author's edits."""

from __future__ import annotations

import pytest

from tutorgraph.constructor import analysis
from tutorgraph.constructor.edits import STRUCTURE_EDITS, apply_structure_edits
from tutorgraph.constructor.state import CourseStructure, SourceFile, Topic, Unit
from tutorgraph.constructor.text import definition_of, flatten_divs, salient_terms
from tutorgraph.errors import InputError

CHAPTER = """# Lists

Lists hold several values in one variable.

## Creating lists

A list is an ordered collection of values written between square brackets. Lists can hold
values of different types, and the values are called elements.

## Exercises

Make a list of three numbers and print it.

## Indexing lists

An index is the position of an element in a list, counting from zero. Negative indexes count
from the end of the list, so the last element of a list is at index minus one.

## Tiny

Too short.
"""


def source(markdown: str, file_id: str = "f1", title: str = "Lists") -> SourceFile:
    return SourceFile(
        file_id=file_id,
        filename=f"{file_id}.md",
        kind="markdown",
        title=title,
        markdown=markdown,
        pages=1,
        words=len(markdown.split()),
    )


def test_topics_follow_headings_and_fold_boilerplate_and_tiny_sections() -> None:
    file = source(CHAPTER)
    drafts = analysis.draft_topics(file, analysis.file_sections(file))
    assert [d.title for d in drafts] == ["Creating lists", "Indexing lists"]
    assert [d.unit_title for d in drafts] == ["Lists", "Lists"]
    # Exercises are the unit's, never a topic's; the introduction is the unit's too (issue 36).
    assert all("three numbers" not in d.text for d in drafts)
    assert all("Lists hold several values" not in d.text for d in drafts)
    assert "Too short" in drafts[1].text


def test_pandoc_boxes_are_not_sections_and_instructor_notes_are_dropped() -> None:
    markdown = (
        "# Loops\n\n## For loops\n\nA loop repeats its body for each item in a list of values.\n\n"
        "::::: challenge\n\n## Summing a list\n\nAdd up the values.\n\n::: solution\n\n"
        "## Solution\n\nUse an accumulator.\n\n:::\n:::::\n\n"
        "::: instructor\n\nSay this only to instructors.\n\n:::\n"
    )
    flat = flatten_divs(markdown)
    assert "## Summing a list" not in flat and "**Challenge: Summing a list**" in flat
    assert "instructors" not in flat and ":::" not in flat
    file = source(flat, title="Loops")
    assert [d.title for d in analysis.draft_topics(file, analysis.file_sections(file))] == [
        "For loops"
    ]


def test_long_text_without_headings_is_cut_into_named_topics() -> None:
    paragraphs = [
        "Photosynthesis converts light energy into chemical energy stored in glucose. " * 80,
        "Respiration releases the energy stored in glucose inside the mitochondria. " * 80,
        "Fermentation lets cells make energy without oxygen by producing lactate. " * 80,
    ]
    file = source("\n\n".join(paragraphs), title="Energy")
    drafts = analysis.draft_topics(file, analysis.file_sections(file))
    assert len(drafts) >= 2
    assert all(d.title and d.title != "Energy" for d in drafts)
    short = source(paragraphs[0], title="Energy")
    assert [d.title for d in analysis.draft_topics(short, analysis.file_sections(short))] == [
        "Energy"
    ]


def test_definitions_and_salient_terms() -> None:
    assert definition_of("A list is an ordered collection of values.") == (
        "list",
        "ordered collection of values",
    )
    assert definition_of("This is what happens next in the story.") is None
    assert definition_of("Explain what a library is used for in Python.") is None
    terms = salient_terms(
        [
            "The **gradient** points uphill. The gradient of the loss tells the step.",
            "A learning rate scales each step. The learning rate is small.",
        ]
    )
    assert terms[0][0] == "gradient" and "learning rate" in terms[1]


def topic(topic_id: str, terms: list[str], prerequisites: list[str] | None = None) -> Topic:
    return Topic(
        topic_id=topic_id,
        title=topic_id.replace("-", " "),
        unit_id="u1",
        section_ids=[topic_id],
        key_terms=terms,
        key_points=[f"{topic_id} point"],
        prerequisites=prerequisites or [],
    )


def test_prerequisites_come_from_terms_introduced_earlier_and_never_point_forward() -> None:
    topics = [
        topic("variables", ["variable", "assignment"]),
        topic("lists", ["list", "index"]),
        topic("loops", ["loop", "accumulator"]),
    ]
    texts = [
        "A variable is a name for a value. Assignment binds a variable.",
        "A list holds values. An index picks an element.",
        "Recall that a list has an index for each element; a loop visits each one.",
    ]
    found = analysis.prerequisites(topics, texts)
    assert found[0] == [] and found[2] == ["lists"]
    assert analysis.earlier_only(topics, {"variables": ["loops"], "loops": ["lists", "x"]}) == {
        "variables": [],
        "lists": [],
        "loops": ["lists"],
    }
    cyclic = [topic("a", [], ["b"]), topic("b", [], ["a"])]
    assert analysis.find_cycle(cyclic) in (["a", "b", "a"], ["b", "a", "b"])


def structure() -> CourseStructure:
    topics = [topic("one", ["x"]), topic("two", ["y"], ["one"]), topic("three", ["z"], ["two"])]
    return CourseStructure(
        title="Course",
        units=[Unit(unit_id="u1", title="Unit", topic_ids=["one", "two", "three"])],
        topics=topics,
    )


def test_edits_rename_merge_move_and_drop_keep_the_graph_acyclic() -> None:
    edits = STRUCTURE_EDITS.validate_python(
        [
            {"op": "rename", "topic_id": "one", "title": "First"},
            {"op": "move", "topic_id": "one", "unit_id": "u1", "position": 2},
        ]
    )
    edited = apply_structure_edits(structure(), edits)
    assert [t.topic_id for t in edited.ordered_topics()] == ["two", "three", "one"]
    assert edited.topic("one").title == "First"
    assert edited.topic("two").prerequisites == []  # "one" now comes after it
    assert analysis.find_cycle(edited.topics) is None

    merged = apply_structure_edits(
        structure(),
        STRUCTURE_EDITS.validate_python([{"op": "merge", "topic_ids": ["two", "three"]}]),
    )
    assert [t.topic_id for t in merged.topics] == ["one", "two"]
    assert merged.topic("two").section_ids == ["two", "three"]
    dropped = apply_structure_edits(
        structure(), STRUCTURE_EDITS.validate_python([{"op": "drop", "topic_id": "one"}])
    )
    assert dropped.topic("two").prerequisites == []
    with pytest.raises(InputError, match="no topic 'nope'"):
        apply_structure_edits(
            structure(), STRUCTURE_EDITS.validate_python([{"op": "drop", "topic_id": "nope"}])
        )
