"""A course is named by its material or its author, never "Untitled"."""

from __future__ import annotations

import pytest

from tutorgraph.constructor.coordinator import intake, title_said
from tutorgraph.constructor.publish import course_title
from tutorgraph.constructor.state import ConstructorState, CourseStructure
from tutorgraph.errors import InputError


@pytest.mark.parametrize(
    ("message", "title"),
    [
        ("title: Shell tools", "Shell tools"),
        ("The course title is “Data wrangling”.", "Data wrangling"),
        ("call it Version control basics", "Version control basics"),
        ("the course is called Missing pieces", "Missing pieces"),
        ("looks good, approve", ""),
        ("split Loops", ""),
    ],
)
def test_an_author_names_the_course_in_chat(message: str, title: str) -> None:
    assert title_said(message) == title


async def test_a_title_said_in_chat_becomes_the_course_title() -> None:
    update = await intake({"request": {"message": "title: Shell tools"}})
    assert update["course_title"] == "Shell tools"


def test_a_course_nothing_names_is_not_published_under_a_made_up_title() -> None:
    unnamed: ConstructorState = {"structure": CourseStructure(title="", units=[], topics=[])}
    with pytest.raises(InputError, match="no title"):
        course_title(unnamed)
    named: ConstructorState = {**unnamed, "course_title": "Shell tools"}
    assert course_title(named) == "Shell tools"
