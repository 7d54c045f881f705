"""`tutorgraph seed`: load shipped courses into the database and (re)build their search indexes."""

from __future__ import annotations

from sqlalchemy import select

from tutorgraph.cli._console import console
from tutorgraph.content.retrieval import SearchIndexes
from tutorgraph.content.seeding import seed_content
from tutorgraph.settings import Settings
from tutorgraph.store import migrate
from tutorgraph.store.db import Database
from tutorgraph.store.models import LearningPath
from tutorgraph.wording import counted


def run_seed(settings: Settings) -> None:
    migrate.require_current(settings)
    database = Database(settings)
    try:
        with database.session() as session:
            report = seed_content(session=session, content_dir=settings.content_dir)
        indexes = SearchIndexes(settings.index_dir)
        with database.session() as session:
            for course in session.scalars(select(LearningPath)):
                index = indexes.course_index(session=session, course=course)
                console.print(f"search index for {course.slug}: {len(index.chunks)} chunks")
    finally:
        database.dispose()
    if not report.courses:
        console.print(f"no courses found under {settings.content_dir}/ (nothing to seed)")
        return
    console.print(
        f"seeded {counted(len(report.courses), 'course')}: {', '.join(report.courses)} — "
        f"{counted(report.created, 'lesson')} created, {report.updated} updated, "
        f"{report.unchanged} unchanged, {report.removed} removed"
    )
