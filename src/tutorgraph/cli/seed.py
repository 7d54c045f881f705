"""`tutorgraph seed`: load shipped courses into the database."""

from __future__ import annotations

from tutorgraph.cli._console import console
from tutorgraph.content.seeding import seed_content
from tutorgraph.settings import Settings
from tutorgraph.store.db import Database


def run_seed(settings: Settings) -> None:
    database = Database(settings)
    try:
        with database.session() as session:
            report = seed_content(session=session, content_dir=settings.content_dir)
    finally:
        database.dispose()
    if not report.courses:
        console.print(f"no courses found under {settings.content_dir}/ (nothing to seed)")
        return
    console.print(
        f"seeded {len(report.courses)} course(s): {', '.join(report.courses)} — "
        f"{report.created} lesson(s) created, {report.updated} updated, "
        f"{report.unchanged} unchanged, {report.removed} removed"
    )
