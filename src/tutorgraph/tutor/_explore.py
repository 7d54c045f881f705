"""Explore's questions about the catalogue itself: which courses and lessons there are, and what
to learn next (the course order from the lesson the learner names, or from their progress)."""

from __future__ import annotations

from tutorgraph.tutor._text import stem_set
from tutorgraph.tutor.context import CourseInfo, TutorContext

_AFTER = ("after", "finished", "completed", "done with", "once i know")


def catalogue(context: TutorContext) -> str:
    """Every visible course with its lessons in order, and where the learner stands."""
    if not context.available_courses:
        return "There are no courses here yet. An author can create one from the Create page."
    done = set(context.completed_lesson_titles)
    parts = ["Here's what you can study here:"]
    for course in context.available_courses:
        lessons = "\n".join(
            f"  {i}. {title}{' (done)' if title in done else ''}"
            for i, title in enumerate(course.lessons, start=1)
        )
        parts.append(f"**{course.title}** — {course.description}\n{lessons}")
    parts.append(
        "Open a course from **Learn** to study a lesson with its tutor, or ask me about any of "
        "these topics here. Which one catches your eye?"
    )
    return "\n\n".join(parts)


def what_next(context: TutorContext, message: str) -> str:
    """The lessons that follow the one the learner names (in course order), else the first
    lessons they have not completed."""
    found = _named_lesson(context, message)
    done = set(context.completed_lesson_titles)
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
