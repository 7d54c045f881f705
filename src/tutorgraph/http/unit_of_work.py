"""Routes whose synchronous endpoints commit the request's session on their own thread.

FastAPI runs a sync endpoint on a worker thread and then needs another worker thread to validate
its response; the session dependency commits only after that. On SQLite a request that wrote
holds the database's write lock in between, so when every worker thread is taken by requests
waiting for that lock, the holder cannot get the thread it needs to finish: the server stalls
until the lock waits time out. Committing before the endpoint returns ends the transaction where
it began."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from fastapi.routing import APIRoute
from sqlalchemy.orm import Session

_MARK = "_commits_its_session"


class UnitOfWorkRoute(APIRoute):
    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        if not inspect.iscoroutinefunction(endpoint) and not hasattr(endpoint, _MARK):
            endpoint = _committing(endpoint)
        super().__init__(path, endpoint, **kwargs)


def _committing(endpoint: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(endpoint)
    def run_and_commit(*args: Any, **kwargs: Any) -> Any:
        result = endpoint(*args, **kwargs)
        for value in kwargs.values():
            if isinstance(value, Session):
                value.commit()
        return result

    setattr(run_and_commit, _MARK, True)  # included routers re-create routes: wrap once
    return run_and_commit
