"""Explore's questions about the catalogue itself: which courses and lessons there are, and what
to learn next (the course order from the lesson the learner names, or from their progress)."""

from __future__ import annotations

import re

from tutorgraph.text.query import expand, stem_set
from tutorgraph.tutor.context import CourseInfo, TutorContext
from tutorgraph.tutor.parameters import tutor_parameters

_AFTER = ("after", "finished", "completed", "done with", "once i know")
_KNOWN = re.compile(  # "I already know python, where do I start with ML?": not about python
    r"\b(i|i'm|im)\s+(already\s+|pretty\s+)?(know|familiar with|good at|comfortable with)\b.*?"
    r"(?=\b(and|but|so)\b|[,.;]|$)",
    re.IGNORECASE,
)
_START = re.compile(r"\b(start|begin|beginning|from scratch|first)\b", re.IGNORECASE)


def catalogue(context: TutorContext, *, after_redirect: bool = False) -> str:
    """Every visible course with its lessons in order, where the learner stands, and a map of
    the order the lessons build in; `after_redirect` when the questions before were outside
    the courses."""
    if not context.available_courses:
        return "There are no courses here yet. An author can create one from the Create page."
    done = set(context.completed_lesson_titles)
    lead = (
        "Your earlier questions were outside these courses, but here's everything I can help "
        "you study:"
        if after_redirect
        else "Here's what you can study here:"
    )
    parts = [lead]
    for course in context.available_courses:
        lessons = "\n".join(
            f"  {i}. {title}{' (done)' if title in done else ''}"
            for i, title in enumerate(course.lessons, start=1)
        )
        parts.append(f"**{course.title}** — {course.description}\n{lessons}")
    course_order = course_map(context.available_courses, done)
    parts.append(f"How the lessons build on each other:\n\n{course_order}")
    parts.append(
        "Open a course from **Learn** to study a lesson with its tutor, or ask me about any of "
        "these topics here. Which one catches your eye?"
    )
    return "\n\n".join(parts)


def course_map(courses: list[CourseInfo], done: set[str]) -> str:
    """A Mermaid flowchart of each course's lessons in order (completed ones ticked)."""
    lines = ["```mermaid", "flowchart TB"]
    for c, course in enumerate(courses, start=1):
        lines.append(f'  subgraph c{c}["{_label(course.title)}"]')
        lines.append("    direction LR")
        nodes = [
            f'c{c}l{i}["{"✓ " if title in done else ""}{_label(title)}"]'
            for i, title in enumerate(course.lessons, start=1)
        ]
        if nodes:
            lines.append("    " + " --> ".join(nodes))
        lines.append("  end")
    if len(courses) > 1:  # one course under the other, not side by side
        lines.append("  " + " ~~~ ".join(f"c{c}" for c in range(1, len(courses) + 1)))
    lines.append("```")
    return "\n".join(lines)


def _label(text: str) -> str:
    """Text safe inside a quoted Mermaid label."""
    return text.replace('"', "'").replace("[", "(").replace("]", ")")


def what_next(context: TutorContext, message: str) -> str:
    """The lessons that follow the one the learner names (in course order), else the first
    lessons they have not completed; "where do I start with ML?" starts the course it names."""
    done = set(context.completed_lesson_titles)
    lowered = message.lower()
    if _START.search(message) and not any(w in lowered for w in _AFTER):
        course = _named_course(context, message)
        if course is not None:
            return _start(course, done)
    found = _named_lesson(context, message)
    if found is not None:
        course, index = found
        following = [t for t in course.lessons[index + 1 :] if t not in done]
        if not following:
            return (
                f"**{course.lessons[index]}** is the last lesson of **{course.title}**. "
                + _elsewhere(context, course)
            )
        first, *rest = following
        later = f" After that the course continues with {', '.join(rest)}." if rest else ""
        return (
            f"Next comes **{first}**: it follows {course.lessons[index]} in {course.title}."
            f"{later}\n\nIt builds directly on what you just learned. What do you want to be "
            "able to do with it?"
        )
    for course in context.available_courses:
        pending = [t for t in course.lessons if t not in done]
        if pending and len(pending) < len(course.lessons):
            return (
                f"You're part-way through **{course.title}**: the next lesson is "
                f"**{pending[0]}**. Shall we start there?"
            )
    if not context.available_courses:
        return "There are no courses here yet."
    course = context.available_courses[0]
    first_lesson = course.lessons[0] if course.lessons else course.title
    return (
        f"A good place to start is **{course.title}**, beginning with **{first_lesson}**. "
        "What do you already know about it?"
    )


def _named_course(context: TutorContext, message: str) -> CourseInfo | None:
    """The course whose title, description and lesson titles share most words with the message
    (None when none shares any)."""
    wanted = stem_set(expand(_KNOWN.sub(" ", message)))
    scored = [
        (len(wanted & stem_set(f"{c.title} {c.description} {' '.join(c.lessons)}")), -i, c)
        for i, c in enumerate(context.available_courses)
    ]
    best = max(scored, key=lambda item: item[:2], default=None)
    return best[2] if best is not None and best[0] > 0 else None


def _start(course: CourseInfo, done: set[str]) -> str:
    """Where to begin a course: its first lesson, or the first one not completed yet."""
    pending = [t for t in course.lessons if t not in done]
    if not course.lessons:
        return f"**{course.title}** has no lessons yet."
    if not pending:
        return f"You've completed every lesson of **{course.title}**. Want to review one?"
    order = ", ".join(pending[1 : 1 + tutor_parameters().explore.then_lessons])
    then = f" Then it goes on with {order}." if order else ""
    if len(pending) < len(course.lessons):
        return (
            f"Pick up **{pending[0]}**: it's the next lesson of **{course.title}** you haven't "
            f"completed.{then}\n\nShall we look at what it covers?"
        )
    return (
        f"Begin with **{pending[0]}**, the first lesson of **{course.title}**: the course "
        f"builds on it from there.{then}\n\nWhat do you already know about it?"
    )


def _named_lesson(context: TutorContext, message: str) -> tuple[CourseInfo, int] | None:
    """The lesson whose title shares most words with what follows "after" in the message."""
    lowered = message.lower()
    cut = max((lowered.rfind(w) for w in _AFTER), default=-1)
    wanted = stem_set(lowered[cut:] if cut >= 0 else lowered)
    best: tuple[int, CourseInfo, int] | None = None
    for course in context.available_courses:
        for index, title in enumerate(course.lessons):
            score = len(wanted & stem_set(title))
            if score and (best is None or score > best[0]):
                best = (score, course, index)
    return (best[1], best[2]) if best is not None else None


def _elsewhere(context: TutorContext, current: CourseInfo) -> str:
    others = [c for c in context.available_courses if c.slug != current.slug]
    if not others:
        return "You've reached the end of the catalogue: try Practice or Assess to consolidate."
    return f"You could continue with **{others[0].title}**. Want an overview of it?"
