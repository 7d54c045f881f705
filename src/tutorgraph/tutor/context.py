"""TutorContext: everything a tutor turn knows about the lesson and the learner, built once per
request from the database (the spec's fields, plus the slugs and quiz the tools and the offline
tutor work from)."""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from tutorgraph.store import courses
from tutorgraph.store.models import Lesson, User

Mode = Literal["default", "eli5", "analogy", "code", "deep_dive"]
MODES: tuple[Mode, ...] = get_args(Mode)

MAX_IMAGES = 15


class CurriculumEntry(BaseModel):
    """Another lesson of the same course, for cross-references."""

    lesson_id: int
    slug: str
    title: str
    concepts: list[str] = Field(default_factory=list)
    completed: bool = False


class ImageInfo(BaseModel):
    """A teaching image the tutor may show with an `<image>` block."""

    path: str
    caption: str = ""
    concepts: list[str] = Field(default_factory=list)
    when_to_show: str = ""


class CourseInfo(BaseModel):
    """A course in the explore catalogue."""

    slug: str
    title: str
    description: str = ""
    lessons: list[str] = Field(default_factory=list)


class QuizCard(BaseModel):
    """One of the lesson's multiple-choice checks (the correct index stays server-side data)."""

    id: str
    question: str
    options: list[str]
    correct_index: int
    explanation: str = ""
    reference_answer: str = ""
    concept: str = ""


class TutorContext(BaseModel):
    """The request-time context a prompt and the tools are built from."""

    lesson_id: int | None = None
    lesson_title: str = ""
    lesson_summary: str = ""
    concepts: list[str] = Field(default_factory=list)
    lesson_content: str = ""
    reference_kb: str = ""
    completed_lesson_titles: list[str] = Field(default_factory=list)
    curriculum_index: list[CurriculumEntry] = Field(default_factory=list)
    mode: Mode = "default"
    domain: str = "technical"
    available_images: list[ImageInfo] = Field(default_factory=list)
    exploration_mode: bool = False
    available_courses: list[CourseInfo] = Field(default_factory=list)
    # Beyond the spec: who is asking and where, for the tools and the offline tutor.
    user_id: int | None = None
    lesson_slug: str = ""
    course_slug: str = ""
    course_title: str = ""
    quiz: list[QuizCard] = Field(default_factory=list)


def build_lesson_context(
    *, session: Session, lesson: Lesson, user: User | None, mode: Mode
) -> TutorContext:
    """The context for a lesson chat (the lesson must already be visible to `user`)."""
    course = lesson.module.learning_path
    done = courses.completed_lesson_ids(session=session, user=user)
    ordered = courses.course_outline(session=session, course_id=course.id)
    return TutorContext(
        lesson_id=lesson.id,
        lesson_title=lesson.title,
        lesson_summary=lesson.summary,
        concepts=[str(c) for c in lesson.concepts],
        lesson_content=lesson.content,
        reference_kb=lesson.reference_kb,
        completed_lesson_titles=completed_titles(session=session, done=done),
        curriculum_index=[
            CurriculumEntry(
                lesson_id=item.id,
                slug=item.slug,
                title=item.title,
                concepts=[str(c) for c in item.concepts],
                completed=item.id in done,
            )
            for item in ordered
            if item.id != lesson.id
        ],
        mode=mode,
        domain=course.domain or "technical",
        available_images=_images(lesson.image_metadata)[:MAX_IMAGES],
        user_id=user.id if user is not None else None,
        lesson_slug=lesson.slug,
        course_slug=course.slug,
        course_title=course.title,
        quiz=[QuizCard.model_validate(item) for item in lesson.quiz if is_quiz(item)],
    )


def build_explore_context(*, session: Session, user: User | None, mode: Mode) -> TutorContext:
    """The context for open-ended exploration: the catalogue of visible courses, no lesson."""
    done = courses.completed_lesson_ids(session=session, user=user)
    visible = [v.course for v in courses.visible_courses(session=session, user=user)]
    titles: dict[int, list[str]] = {course.id: [] for course in visible}
    for course_id, title in courses.lesson_titles_by_course(session=session, course_ids=titles):
        titles[course_id].append(title)
    catalogue = [
        CourseInfo(
            slug=course.slug,
            title=course.title,
            description=course.description,
            lessons=titles[course.id],
        )
        for course in visible
    ]
    return TutorContext(
        mode=mode,
        exploration_mode=True,
        available_courses=catalogue,
        completed_lesson_titles=completed_titles(session=session, done=done),
        user_id=user.id if user is not None else None,
    )


def completed_titles(*, session: Session, done: set[int]) -> list[str]:
    if not done:
        return []
    return courses.lesson_titles(session=session, lesson_ids=done)


def _images(metadata: list[Any]) -> list[ImageInfo]:
    images = []
    for item in metadata:
        if isinstance(item, dict) and (item.get("path") or item.get("src")):
            images.append(
                ImageInfo(
                    path=str(item.get("path") or item.get("src")),
                    caption=str(item.get("caption", "")),
                    concepts=[str(c) for c in item.get("concepts", [])],
                    when_to_show=str(item.get("when_to_show", "")),
                )
            )
    return images


def is_quiz(item: object) -> bool:
    return isinstance(item, dict) and {"id", "question", "options", "correct_index"} <= set(item)
