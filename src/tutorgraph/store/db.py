"""Engine and session factory from settings; SQLite gets foreign keys and WAL, and its files
are private to the server's user (0600)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, make_url, text
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import NullPool

from tutorgraph.settings import Settings


def create_db_engine(settings: Settings) -> Engine:
    url = settings.sqlalchemy_url
    if url.startswith("sqlite"):
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        create_private_sqlite_file(url)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20)


def create_private_sqlite_file(url: str) -> None:
    """Create the file of a SQLite URL, empty (SQLite takes that as a new database) and
    readable by its owner only, unless it exists. Left to SQLite, it would get the umask's mode
    (usually 0644: every local user could read the accounts and answers); SQLite gives the
    `-wal` and `-shm` files it makes beside it the database file's mode."""
    parsed = make_url(url)
    name = parsed.database
    if parsed.get_backend_name() != "sqlite" or not name or name == ":memory:":
        return
    path = Path(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return  # an existing database keeps the mode its operator gave it
    try:
        os.fchmod(fd, 0o600)  # whatever the umask
    finally:
        os.close(fd)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    # WAL's recommended durability: a commit survives a crash of the process, not a power cut,
    # and costs no fsync, so concurrent writers are not starved of SQLite's single write lock.
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


class Database:
    """The engine plus a session factory; one per process."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.engine = create_db_engine(settings)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)
        # Health pings connect outside the pool: a pool busy with requests is not an outage.
        self._ping_engine = create_engine(self.engine.url, poolclass=NullPool)

    def ping(self) -> None:
        """Run `SELECT 1` on a fresh connection; raises if the database does not answer."""
        with self._ping_engine.connect() as connection:
            connection.execute(text("SELECT 1"))

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A session that commits on success and rolls back on error."""
        with self.sessions() as session:
            try:
                yield session
                session.commit()
            except BaseException:
                session.rollback()
                raise

    def dispose(self) -> None:
        self.engine.dispose()
        self._ping_engine.dispose()
