"""Which lesson a learning-plan item links: the rule (decision record 0050).

A course's lessons name the knowledge-base topics they teach in `concepts`, main topic first.
The plan used to link, for a topic, every lesson listing it anywhere: so "Type hints and static
checking" linked the lesson "Testing with pytest", which lists `type-hints` second because one of
its sections covers type hints alongside tests. Read as a plan item, that is a link to the wrong
lesson. The rule now, for a plan item's topic, among the lessons the learner may see in courses
of the assessment's domain:

1. a lesson whose main concept (its first) is the topic: linked as "Lesson: <title>";
2. else a lesson listing the topic as a further concept: linked to its section on the topic,
   "Section <heading> of the lesson <title>", at the heading's anchor. The section is the heading
   sharing the most content words with the topic's title, at least half of them
   (`SECTION_SHARE`; the first such heading on a tie); with none, the lesson is linked as
   "Part of the lesson <title>";
3. else no lesson: the item says that no lesson teaches the topic yet and offers practice.

Either way the linked lesson's concepts include the topic."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import pairwise

from markdown_it import MarkdownIt

from tutorgraph.content.rendering import heading_anchor
from tutorgraph.knowledge import Topic
from tutorgraph.text.stemming import content_stems

# The share of a topic title's content words a heading must have to be the topic's section.
SECTION_SHARE = 0.5
_headings_parser = MarkdownIt("commonmark")


@dataclass(frozen=True)
class LessonSource:
    """A lesson the learner may open, as the rule reads it."""

    course_slug: str
    lesson_slug: str
    title: str
    concepts: tuple[str, ...]
    content: str


@dataclass(frozen=True)
class PlanLesson:
    """The lesson a plan item links; `section` is the heading of the part of a lesson on
    something else that teaches the topic (None: the lesson as a whole, `whole` True when the
    topic is its main one)."""

    title: str
    url: str
    concepts: tuple[str, ...]
    section: str | None = None
    whole: bool = True


def lesson_for_topic(topic: Topic, lessons: Iterable[LessonSource]) -> PlanLesson | None:
    """The module docstring's rule."""
    candidates = [lesson for lesson in lessons if topic.id in lesson.concepts]
    for lesson in candidates:
        if lesson.concepts[0] == topic.id:
            return PlanLesson(lesson.title, _url(lesson), lesson.concepts)
    if not candidates:
        return None
    lesson = candidates[0]
    heading = _section(topic.title, lesson.content)
    if heading is None:
        return PlanLesson(lesson.title, _url(lesson), lesson.concepts, whole=False)
    text, anchor = heading
    return PlanLesson(
        lesson.title, f"{_url(lesson)}#{anchor}", lesson.concepts, section=text, whole=False
    )


def _url(lesson: LessonSource) -> str:
    return f"/learn/{lesson.course_slug}/{lesson.lesson_slug}"


def headings(markdown: str) -> list[tuple[str, str]]:
    """The lesson's section headings (level 2 and below) with the anchors the lesson page gives
    them (`content.rendering`: a repeated heading's anchor gets `_2`, `_3`, ...)."""
    found: list[tuple[str, str]] = []
    seen: dict[str, int] = {}
    tokens = _headings_parser.parse(markdown)
    for opening, inline in pairwise(tokens):
        if opening.type != "heading_open" or inline.type != "inline":
            continue
        anchor = heading_anchor(inline.content)
        seen[anchor] = seen.get(anchor, 0) + 1
        if opening.tag != "h1":
            found.append(
                (inline.content, anchor if seen[anchor] == 1 else f"{anchor}_{seen[anchor]}")
            )
    return found


def _section(title: str, markdown: str) -> tuple[str, str] | None:
    wanted = _words(title)
    best: tuple[str, str] | None = None
    # At least half the title's words: one shared "list" does not make "Multiplying a list of
    # lists" the section on "Lists, tuples, dicts and sets".
    best_shared = max(math.ceil(len(wanted) * SECTION_SHARE), 1) - 1
    for text, anchor in headings(markdown):
        shared = len(wanted & _words(text))
        if shared > best_shared:
            best, best_shared = (text, anchor), shared
    return best


def _words(text: str) -> set[str]:
    """The content stems of a title or heading ("Type hints" and "type hinting" share two)."""
    return set(content_stems(text))
