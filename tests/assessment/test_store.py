"""The assessments table: migration 0003 matches the model, on SQLite and PostgreSQL."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

from tutorgraph.store.db import Database
from tutorgraph.store.models import Assessment, Base


def _mentions_assessments(diff: object) -> bool:
    return "assessments" in repr(diff)


def test_migration_0003_matches_the_model(database: Database) -> None:
    with database.engine.connect() as connection:
        diffs = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    assert [d for d in diffs if _mentions_assessments(d)] == []
    columns = {c["name"] for c in inspect(database.engine).get_columns("assessments")}
    assert columns == {c.name for c in Assessment.__table__.columns}


def test_an_assessment_row_stores_its_report_as_json(database: Database) -> None:
    with database.session() as session:
        row = Assessment(id="a" * 36, domain="python", target_level="mid", thread_id="t-1")
        session.add(row)
    with database.session() as session:
        stored = session.get(Assessment, "a" * 36)
        assert stored is not None and stored.status == "in_progress" and stored.report is None
        stored.report = {"overall_readiness": 42, "gaps": [{"topic_id": "x"}]}
    with database.session() as session:
        stored = session.get(Assessment, "a" * 36)
        assert stored is not None and stored.report == {
            "overall_readiness": 42,
            "gaps": [{"topic_id": "x"}],
        }
