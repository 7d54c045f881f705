"""Alembic, driven from settings: `tutorgraph db upgrade` and the test fixtures call this."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

from tutorgraph.errors import ConfigurationError
from tutorgraph.settings import Settings

MIGRATIONS_DIR = Path(__file__).parent / "migrations"


def alembic_config(settings: Settings) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("sqlalchemy.url", settings.sqlalchemy_url.replace("%", "%%"))
    return config


def upgrade(settings: Settings, revision: str = "head") -> None:
    if settings.sqlalchemy_url.startswith("sqlite"):
        from tutorgraph.store.db import create_private_sqlite_file

        settings.data_dir.mkdir(parents=True, exist_ok=True)
        create_private_sqlite_file(settings.sqlalchemy_url)  # before alembic creates it 0644
    command.upgrade(alembic_config(settings), revision)


def current_revision(settings: Settings) -> str | None:
    """The database's revision; None when it is empty or (SQLite) its file does not exist yet.
    A database that cannot be reached is a ConfigurationError naming it (password hidden)."""
    from alembic.runtime.migration import MigrationContext
    from sqlalchemy import create_engine
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import SQLAlchemyError

    url = make_url(settings.sqlalchemy_url)
    file = url.database if url.get_backend_name() == "sqlite" else None
    if file and file != ":memory:" and not Path(file).exists():
        return None  # connecting would create an empty file
    engine = create_engine(settings.sqlalchemy_url)
    try:
        with engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()
    except SQLAlchemyError as exc:
        where = url.render_as_string(hide_password=True)
        raise ConfigurationError(
            f"cannot open the database {where}: {exc.__class__.__name__}"
        ) from exc
    finally:
        engine.dispose()


def head_revision() -> str:
    """The revision this version of tutorgraph needs."""
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    head = ScriptDirectory.from_config(config).get_current_head()
    if head is None:
        raise RuntimeError(f"no migrations under {MIGRATIONS_DIR}")
    return head


def require_current(settings: Settings) -> None:
    """Refuse, in one clear line, to work on a database whose schema is not this version's."""
    current = current_revision(settings)
    head = head_revision()
    if current != head:
        state = "empty or missing" if current is None else f"at schema revision {current}"
        raise ConfigurationError(
            f"the database is {state} and this version needs {head}: "
            "run `tutorgraph db upgrade` first"
        )
