"""`tutorgraph seed`: load shipped courses into the database and (re)build their search indexes."""

from __future__ import annotations

from tutorgraph.cli._console import console
from tutorgraph.content.seeding import seed_database
from tutorgraph.settings import Settings
from tutorgraph.store import migrate
from tutorgraph.wording import counted


def run_seed(settings: Settings) -> None:
    migrate.require_current(settings)
    report, chunks = seed_database(settings)
    for slug, count in chunks.items():
        console.print(f"search index for {slug}: {count} chunks")
    if not report.courses:
        console.print(f"no courses found under {settings.content_dir}/ (nothing to seed)")
        return
    console.print(
        f"seeded {counted(len(report.courses), 'course')}: {', '.join(report.courses)} — "
        f"{counted(report.created, 'lesson')} created, {report.updated} updated, "
        f"{report.unchanged} unchanged, {report.removed} removed"
    )
