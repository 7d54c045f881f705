"""What a row id can be. Integer keys are INTEGER columns, 32-bit on PostgreSQL (64-bit on
SQLite), so no row has an id outside 1..2**31-1: ids are checked against that at the edges
(paths, queries, bodies, form fields, headers, token subjects) and a larger one is a 422 or 401,
never a database overflow. Every integer a request carries is one of these types (a test walks
every route to keep it so). A base module: the edges, `security` (token subjects) and the store
all use it, none through another."""

from __future__ import annotations

import re
from typing import Annotated

from annotated_types import Ge, Le

MAX_ID = 2**31 - 1

DbId = Annotated[int, Ge(1), Le(MAX_ID)]
"""An integer id as a request may carry it: in a path, a query, a body or a form field."""

DbCursor = Annotated[int, Ge(0), Le(MAX_ID)]
"""A position in a sequence of rows: the id of the last one seen, or 0 before the first."""

_DIGITS = re.compile(r"[0-9]{1,10}")


def is_db_id(value: int) -> bool:
    return 1 <= value <= MAX_ID


def parse_cursor(text: str) -> int | None:
    """A cursor sent as text (e.g. a Last-Event-ID header); None unless it is plain ASCII
    digits within 0..MAX_ID (`str.isdigit` would also take '²', which `int` refuses)."""
    if not _DIGITS.fullmatch(text):
        return None
    value = int(text)
    return value if value <= MAX_ID else None
