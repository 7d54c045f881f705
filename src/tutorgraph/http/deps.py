"""Dependency aliases so route signatures read like prose.

One database session per request (`SessionDep`), committed before the response is sent. A
session holds a pool connection only while a transaction is open: the user lookup ends its
read transaction at once, so no request keeps a connection while it waits for a worker thread,
a password hash or a model."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import datetime
from typing import Annotated, Any

import anyio.to_thread
from fastapi import Depends, Request
from fastapi.security import APIKeyCookie, HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.orm import Session

from tutorgraph import auth
from tutorgraph.assessment.service import AssessmentService
from tutorgraph.constructor.service import ConstructorService, InProcessJobs
from tutorgraph.content.extract import ExtractionLimits
from tutorgraph.errors import AuthenticationError, PermissionDeniedError
from tutorgraph.http.cookies import SESSION_COOKIE as SESSION_COOKIE  # re-exported
from tutorgraph.interview.context import InterviewContext
from tutorgraph.interview.embeddings import embedding_similarity
from tutorgraph.interview.service import InterviewService
from tutorgraph.offload import COMMIT_THREADS, thread_limiter
from tutorgraph.settings import Settings
from tutorgraph.store.db import Database
from tutorgraph.store.models import User, utcnow
from tutorgraph.store.thread_locks import ThreadLocks
from tutorgraph.tutor.coordinator import Coordinator
from tutorgraph.tutor.service import TutorRuntime
from tutorgraph.tutor.session_graph import Graph, build_session_graph


async def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def get_database(request: Request) -> Database:
    database: Database = request.app.state.db
    return database


async def get_session(request: Request) -> AsyncIterator[Session]:
    """The request's unit of work. It is committed (or rolled back) on worker threads of its
    own: a request that wrote holds SQLite's write lock until then, so its commit must never
    queue behind requests that are themselves waiting for that lock."""
    database: Database = request.app.state.db
    session = database.sessions()
    try:
        yield session
        await _on_commit_thread(session.commit)
    except BaseException:
        await _on_commit_thread(session.rollback)
        raise
    finally:
        await _on_commit_thread(session.close)


async def _on_commit_thread(step: Callable[[], None]) -> None:
    await anyio.to_thread.run_sync(step, limiter=thread_limiter("commit", COMMIT_THREADS))


SettingsDep = Annotated[Settings, Depends(get_settings)]
DatabaseDep = Annotated[Database, Depends(get_database)]
# scope="function": the commit happens before the response leaves, so a client that reads
# right after a write (on this process or another) sees it.
SessionDep = Annotated[Session, Depends(get_session, scope="function")]


def get_now(request: Request) -> datetime:
    """The learning loop's now: `app.state.clock` (tests move it to see reviews come due)."""
    clock: Callable[[], datetime] = getattr(request.app.state, "clock", utcnow)
    return clock()


NowDep = Annotated[datetime, Depends(get_now)]


def request_token(request: Request) -> str | None:
    """The access token of the request: the bearer header, else the session cookie."""
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value:
        return value.strip()
    return request.cookies.get(SESSION_COOKIE)


# Declared security schemes, so the OpenAPI document says how to authenticate.
bearer_scheme = HTTPBearer(
    auto_error=False, description="The `access_token` from `POST /api/v1/auth/login`."
)
cookie_scheme = APIKeyCookie(
    name=SESSION_COOKIE, auto_error=False, description="The HTTP-only cookie login sets."
)


async def get_token(
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer_scheme)],
    cookie: Annotated[str | None, Depends(cookie_scheme)],
) -> str | None:
    """The access token: the bearer header if sent, else the session cookie."""
    return bearer.credentials if bearer is not None else cookie


TokenDep = Annotated[str | None, Depends(get_token)]


async def get_optional_user(
    token: TokenDep, session: SessionDep, settings: SettingsDep
) -> User | None:
    """The caller if a valid bearer token or session cookie came with the request."""
    if not token:
        return None

    def lookup() -> User | None:
        user = auth.user_for_token(session=session, settings=settings, token=token)
        session.commit()  # end the lookup's transaction: its connection goes back to the pool
        return user

    return await anyio.to_thread.run_sync(lookup)


OptionalUser = Annotated[User | None, Depends(get_optional_user)]


async def get_current_user(user: OptionalUser) -> User:
    if user is None:
        raise AuthenticationError("log in first: send a bearer token or the session cookie")
    return user


CurrentUser = Annotated[User, Depends(get_current_user)]


def require_role(*roles: str) -> Callable[[User], Awaitable[User]]:
    async def dependency(user: CurrentUser) -> User:
        if user.role not in roles:
            raise PermissionDeniedError(f"requires the {' or '.join(roles)} role")
        return user

    return dependency


InstructorUser = Annotated[User, Depends(require_role("instructor", "admin"))]


def client_key(request: Request) -> str:
    return request.client.host if request.client else "unknown"


async def get_assessments(request: Request) -> AssessmentService:
    """One service per app, over the app's database, checkpointer and model."""
    service: AssessmentService | None = getattr(request.app.state, "assessments", None)
    if service is None:
        state = request.app.state
        service = AssessmentService(
            database=state.db,
            checkpointer=state.checkpointer,
            model=state.model,
            evaluator=state.evaluator,
        )
        state.assessments = service
    return service


AssessmentsDep = Annotated[AssessmentService, Depends(get_assessments)]


def tutor_runtime(state: Any) -> TutorRuntime:
    """The app's one tutor runtime (the SSE chat, guided sessions and their WebSocket share
    it, so shutdown drains every running turn)."""
    runtime: TutorRuntime | None = getattr(state, "tutor_runtime", None)
    if runtime is None:
        runtime = TutorRuntime(database=state.db, indexes=state.search, settings=state.settings)
        state.tutor_runtime = runtime
    return runtime


def coordinator(state: Any) -> Coordinator:
    """Guided sessions over the app's checkpointer, runtime and model (the model is read at
    each call, so a test may swap it)."""
    graph: Graph | None = getattr(state, "tutor_graph", None)
    if graph is None:
        graph = build_session_graph(state.checkpointer)
        state.tutor_graph = graph
        state.tutor_threads = ThreadLocks(state.db.engine)
    return Coordinator(
        graph=graph,
        database=state.db,
        runtime=tutor_runtime(state),
        model=state.model,
        threads=state.tutor_threads,
    )


async def get_tutor_runtime(request: Request) -> TutorRuntime:
    return tutor_runtime(request.app.state)


async def get_coordinator(request: Request) -> Coordinator:
    return coordinator(request.app.state)


RuntimeDep = Annotated[TutorRuntime, Depends(get_tutor_runtime)]
CoordinatorDep = Annotated[Coordinator, Depends(get_coordinator)]


def constructor_service(state: Any) -> ConstructorService:
    """The app's one course-constructor service (over the app's checkpointer and model)."""
    service: ConstructorService | None = getattr(state, "constructor", None)
    if service is None:
        service = ConstructorService(
            database=state.db,
            checkpointer=state.checkpointer,
            model=state.model,
            limits=ExtractionLimits(max_bytes=state.settings.limits.max_upload_bytes),
            jobs=getattr(state, "constructor_jobs", None) or InProcessJobs(),
        )
        state.constructor = service
    return service


async def get_constructor(request: Request) -> ConstructorService:
    return constructor_service(request.app.state)


ConstructorDep = Annotated[ConstructorService, Depends(get_constructor)]


def interview_service(state: Any) -> InterviewService:
    """The app's one interview service (over the app's checkpointer, model and grader)."""
    service: InterviewService | None = getattr(state, "interviews", None)
    if service is None:
        service = InterviewService(
            database=state.db,
            checkpointer=state.checkpointer,
            context=InterviewContext(
                model=state.model,
                evaluator=state.evaluator,
                similarity=embedding_similarity(state.settings),
            ),
            settings=state.settings.interview,
        )
        state.interviews = service
    return service


async def get_interviews(request: Request) -> InterviewService:
    return interview_service(request.app.state)


InterviewsDep = Annotated[InterviewService, Depends(get_interviews)]
