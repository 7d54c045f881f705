"""What a row id can be. Integer keys are INTEGER columns, 32-bit on PostgreSQL (64-bit on
SQLite), so no row has an id outside 1..2**31-1: ids are checked against that at the edges
(paths, queries, bodies, token subjects) and a larger one is a 422 or 401, never a database
overflow."""

from __future__ import annotations

from typing import Annotated

from annotated_types import Ge, Le

MAX_ID = 2**31 - 1

DbId = Annotated[int, Ge(1), Le(MAX_ID)]
"""An integer id as a request may carry it: in a path, a query or a body field."""


def is_db_id(value: int) -> bool:
    return 1 <= value <= MAX_ID
