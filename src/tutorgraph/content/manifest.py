"""The on-disk course format: `content/<slug>/course.json` plus lesson markdown and reference KBs.

A lesson's body is inline (`content`) or in a file (`content_file`, relative to the course dir);
its reference KB is `enrichment/<lesson-slug>_reference_kb.md` when that file exists."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator

from tutorgraph.errors import InputError

SLUG_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"


class QuizItem(BaseModel):
    """A multiple-choice check with a free-text reference answer for grading.

    Two optional lists, one entry per option, let the tutor say why a wrong pick is wrong
    (`tutor/quiz_grading.py`, decision record 0049):
    - `misconceptions`: the knowledge-base misconception id a distractor stands for (an id of
      the card's concept or of one of the lesson's concepts), or null; null for the right option;
    - `why_wrong`: one or two sentences a learner who picked that distractor reads: what is true
      instead. Empty for the right option, never empty for a distractor."""

    id: str
    question: str = Field(min_length=5)
    options: list[str] = Field(min_length=2, max_length=8)
    correct_index: int = Field(ge=0)
    misconceptions: list[str | None] = Field(default_factory=list)
    why_wrong: list[str] = Field(default_factory=list)
    explanation: str = ""
    reference_answer: str = ""
    concept: str = ""

    @model_validator(mode="after")
    def _index_in_range(self) -> QuizItem:
        if self.correct_index >= len(self.options):
            raise ValueError(f"quiz {self.id}: correct_index {self.correct_index} out of range")
        return self

    @model_validator(mode="after")
    def _one_note_per_option(self) -> QuizItem:
        for name, notes in (("misconceptions", self.misconceptions), ("why_wrong", self.why_wrong)):
            if notes and len(notes) != len(self.options):
                raise ValueError(
                    f"quiz {self.id}: {name} needs one entry per option "
                    f"({len(self.options)}), not {len(notes)}"
                )
        if self.misconceptions and self.misconceptions[self.correct_index] is not None:
            raise ValueError(f"quiz {self.id}: the right option stands for no misconception")
        if any(m is not None and not m.strip() for m in self.misconceptions):
            raise ValueError(f"quiz {self.id}: a misconception id is empty (use null)")
        for index, note in enumerate(self.why_wrong):
            if (index == self.correct_index) != (not note.strip()):
                which = "the right option's must be empty" if note.strip() else "is empty"
                raise ValueError(f"quiz {self.id}: why_wrong[{index}] {which}")
        return self


class LessonManifest(BaseModel):
    slug: str = Field(pattern=SLUG_PATTERN, max_length=200)
    title: str = Field(min_length=1, max_length=300)
    summary: str = ""
    concepts: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)
    quiz: list[QuizItem] = Field(default_factory=list)
    content: str | None = None
    content_file: str | None = None
    image_metadata: list[dict[str, Any]] = Field(default_factory=list)
    youtube_id: str | None = None
    video_title: str | None = None
    transcript: str | None = None

    @field_validator("content_file")
    @classmethod
    def _relative_inside(cls, value: str | None) -> str | None:
        if value is not None and (value.startswith("/") or ".." in Path(value).parts):
            raise ValueError("content_file must be a relative path inside the course directory")
        return value


class ModuleManifest(BaseModel):
    title: str = Field(min_length=1, max_length=300)
    lessons: list[LessonManifest] = Field(min_length=1)


class CourseManifest(BaseModel):
    slug: str = Field(pattern=SLUG_PATTERN, max_length=200)
    title: str = Field(min_length=1, max_length=300)
    description: str = ""
    level: str = ""
    domain: str = ""
    order_index: int = 0
    modules: list[ModuleManifest] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_lessons(self) -> CourseManifest:
        seen: set[str] = set()
        for module in self.modules:
            for lesson in module.lessons:
                if lesson.slug in seen:
                    raise ValueError(f"lesson slug {lesson.slug!r} appears twice")
                seen.add(lesson.slug)
        return self


class LoadedLesson(BaseModel):
    """A lesson with its body and reference KB read from disk."""

    manifest: LessonManifest
    module_index: int
    order_index: int
    content: str
    reference_kb: str

    @property
    def content_hash(self) -> str:
        payload = json.dumps(
            [self.manifest.model_dump(mode="json"), self.content, self.reference_kb],
            sort_keys=True,
        )
        return hashlib.sha256(payload.encode()).hexdigest()


class LoadedCourse(BaseModel):
    manifest: CourseManifest
    lessons: list[LoadedLesson]


def load_course(course_dir: Path) -> LoadedCourse:
    """Read and validate one course directory; errors name the file and the lesson."""
    path = course_dir / "course.json"
    try:
        manifest = CourseManifest.model_validate_json(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise InputError(f"{path}: no course.json") from exc
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InputError(f"{path}: {where}: {first['msg']}") from exc
    lessons: list[LoadedLesson] = []
    for module_index, module in enumerate(manifest.modules):
        for order_index, lesson in enumerate(module.lessons):
            lessons.append(
                LoadedLesson(
                    manifest=lesson,
                    module_index=module_index,
                    order_index=order_index,
                    content=_lesson_body(course_dir, lesson),
                    reference_kb=_reference_kb(course_dir, lesson.slug),
                )
            )
    return LoadedCourse(manifest=manifest, lessons=lessons)


def _lesson_body(course_dir: Path, lesson: LessonManifest) -> str:
    if lesson.content_file:
        file = course_dir / lesson.content_file
        if not file.is_file():
            raise InputError(f"{course_dir / 'course.json'}: lesson {lesson.slug}: missing {file}")
        return file.read_text(encoding="utf-8")
    return lesson.content or ""


def _reference_kb(course_dir: Path, slug: str) -> str:
    file = course_dir / "enrichment" / f"{slug}_reference_kb.md"
    return file.read_text(encoding="utf-8") if file.is_file() else ""


def discover_courses(content_dir: Path) -> list[Path]:
    """Course directories under the content dir, in name order."""
    if not content_dir.is_dir():
        return []
    return sorted(p.parent for p in content_dir.glob("*/course.json"))
