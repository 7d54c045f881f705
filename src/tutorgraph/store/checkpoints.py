"""LangGraph checkpointer from settings: a SQLite file by default, PostgreSQL in production."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Final, Literal

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from tutorgraph.errors import ConfigurationError
from tutorgraph.settings import Settings
from tutorgraph.store.db import create_private_sqlite_file

# The interview, assessment and guided-tutor graphs write a node's checkpoint before the next node
# starts. LangGraph's default ("async") writes it in the background: a killed process could lose
# the last node's work and do it again (the interview's kill test said a line twice). The course
# constructor keeps the default (see its service).
DURABILITY: Final[Literal["sync"]] = "sync"

# The assessment keeps one answered question (resume -> evaluate -> update -> route -> next
# question) as one unit: its checkpoint is written when the step ends (at the next question, at
# the report, or at a failure such as a model error, which the next call then carries on from).
# A process killed mid-step leaves the previous question waiting, and the answer is sent again
# (with "sync", it left no question showing, and the next answer sent was ignored). No
# assessment node acts outside the graph's state, so nothing is done twice; and one checkpoint
# per answer instead of five is most of an answer's orchestration cost (BENCHMARKS.md).
ASSESSMENT_DURABILITY: Final[Literal["exit"]] = "exit"


def postgres_conninfo(url: str) -> str:
    """psycopg wants `postgresql://`; SQLAlchemy URLs carry a `+driver` suffix."""
    scheme, rest = url.split("://", 1)
    return "postgresql://" + rest if scheme.startswith("postgres") else url


def serializer(allowed_types: Iterable[type] = ()) -> JsonPlusSerializer:
    """Checkpoint (de)serialisation that rebuilds LangGraph's safe built-ins and the listed
    types only: a tampered checkpoint row cannot name a class to import and call."""
    return JsonPlusSerializer(allowed_msgpack_modules=tuple(allowed_types) or None)


@asynccontextmanager
async def open_checkpointer(
    settings: Settings, *, allowed_types: Iterable[type] = ()
) -> AsyncIterator[BaseCheckpointSaver[str]]:
    """Open the durable checkpointer; tables are created on first use. `allowed_types` are the
    application types graphs keep in their state."""
    serde = serializer(allowed_types)
    url = settings.checkpointer_url
    if url.startswith("postgres"):
        try:
            from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise ConfigurationError(
                "checkpoint storage on PostgreSQL needs the postgres extra: "
                "pip install 'tutorgraph[postgres]'"
            ) from exc
        async with AsyncPostgresSaver.from_conn_string(
            postgres_conninfo(url), serde=serde
        ) as saver:
            await saver.setup()
            yield saver
        return
    if not url.startswith("sqlite:///"):
        raise ConfigurationError(f"checkpoint_url: unsupported URL scheme in {url.split(':')[0]!r}")
    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    path = Path(url.removeprefix("sqlite:///"))
    create_private_sqlite_file(url)  # 0600: checkpoints hold answers and transcripts
    async with aiosqlite.connect(str(path)) as conn:
        sqlite_saver = AsyncSqliteSaver(conn, serde=serde)
        await sqlite_saver.setup()  # WAL journal
        # The application database's durability (store/db.py): a commit survives a crash of
        # the process, not a power cut, and costs no fsync.
        await conn.execute("PRAGMA synchronous=NORMAL")
        yield sqlite_saver
