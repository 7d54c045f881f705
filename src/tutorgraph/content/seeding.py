"""Seeding: create or update platform courses from the content directory, idempotently."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from tutorgraph.content.embeddings import embedder_from
from tutorgraph.content.manifest import LoadedCourse, LoadedLesson, discover_courses, load_course
from tutorgraph.content.retrieval import SearchIndexes
from tutorgraph.settings import Settings
from tutorgraph.store.db import Database
from tutorgraph.store.models import LearningPath, Lesson, Module


@dataclass
class SeedReport:
    courses: list[str] = field(default_factory=list)
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    changed_courses: list[str] = field(default_factory=list)


def seed_content(*, session: Session, content_dir: Path) -> SeedReport:
    """Load every course under `content_dir`; a re-run updates changed lessons only."""
    report = SeedReport()
    for course_dir in discover_courses(content_dir):
        course = load_course(course_dir)
        report.courses.append(course.manifest.slug)
        before = (report.created, report.updated, report.removed)
        upsert_course(session=session, course=course, report=report)
        if (report.created, report.updated, report.removed) != before:
            report.changed_courses.append(course.manifest.slug)
    return report


def seed_database(settings: Settings) -> tuple[SeedReport, dict[str, int]]:
    """Seed the shipped courses into the configured database and (re)build each course's search
    index; returns the report and the number of indexed chunks per course slug."""
    database = Database(settings)
    try:
        with database.session() as session:
            report = seed_content(session=session, content_dir=settings.content_dir)
        indexes = SearchIndexes(settings.index_dir, embedder=embedder_from(settings.llm))
        chunks: dict[str, int] = {}
        with database.session() as session:
            for course in session.scalars(select(LearningPath)):
                index = indexes.course_index(session=session, course=course)
                chunks[course.slug] = len(index.chunks)
    finally:
        database.dispose()
    return report, chunks


def upsert_course(
    *, session: Session, course: LoadedCourse, report: SeedReport, owner_id: int | None = None
) -> LearningPath:
    manifest = course.manifest
    path = session.scalar(select(LearningPath).where(LearningPath.slug == manifest.slug))
    if path is None:
        # An author's course starts private; platform (seeded) courses are public.
        path = LearningPath(
            slug=manifest.slug,
            created_by=owner_id,
            visibility="public" if owner_id is None else "private",
        )
        session.add(path)
    path.title = manifest.title
    path.description = manifest.description
    path.level = manifest.level
    path.domain = manifest.domain
    path.order_index = manifest.order_index
    if owner_id is None:
        path.visibility = "public"
    session.flush()

    modules = list(path.modules)
    existing = {lesson.slug: lesson for module in modules for lesson in module.lessons}
    for index, module_manifest in enumerate(manifest.modules):
        if index < len(modules):
            module = modules[index]
        else:
            module = Module(learning_path_id=path.id)
            session.add(module)
            modules.append(module)
        module.title = module_manifest.title
        module.order_index = index
    session.flush()

    wanted = set()
    for loaded in course.lessons:
        slug = loaded.manifest.slug
        wanted.add(slug)
        lesson = existing.get(slug)
        module_id = modules[loaded.module_index].id
        if lesson is None:
            lesson = Lesson(slug=slug, module_id=module_id)
            session.add(lesson)
            report.created += 1
        elif lesson.content_hash == loaded.content_hash and lesson.module_id == module_id:
            report.unchanged += 1
            continue
        else:
            report.updated += 1
        _fill_lesson(lesson, loaded, module_id)
    for slug, lesson in existing.items():
        if slug not in wanted:
            session.delete(lesson)
            report.removed += 1
    for module in modules[len(manifest.modules) :]:
        session.delete(module)
    session.flush()
    return path


def _fill_lesson(lesson: Lesson, loaded: LoadedLesson, module_id: int) -> None:
    m = loaded.manifest
    lesson.module_id = module_id
    lesson.title = m.title
    lesson.order_index = loaded.order_index
    lesson.summary = m.summary
    lesson.concepts = list(m.concepts)
    lesson.sources_used = list(m.sources)
    lesson.quiz = [q.model_dump() for q in m.quiz]
    lesson.image_metadata = list(m.image_metadata)
    lesson.youtube_id = m.youtube_id
    lesson.video_title = m.video_title
    lesson.transcript = m.transcript
    lesson.content = loaded.content
    lesson.reference_kb = loaded.reference_kb
    lesson.content_hash = loaded.content_hash
