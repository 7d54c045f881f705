"""The FastAPI application factory: `create_app(settings)` wires storage, engines, the JSON API
(`tutorgraph.api`) and the pages (`tutorgraph.web`). It sits above both, so neither imports the
other: what they share (dependencies, cookies, CSRF, errors, middleware) is `tutorgraph.http`."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

import anyio.to_thread
from fastapi import APIRouter, Depends, FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from tutorgraph import __version__, observability, offload
from tutorgraph.api.docs import OPENAPI_URL, install_api_docs
from tutorgraph.api.openapi_problems import document_problems
from tutorgraph.api.routes import (
    assessments,
    auth,
    courses,
    grading,
    health,
    lessons,
    me,
    practice,
    search,
    teach,
    tutor,
    tutor_session,
)
from tutorgraph.api.routes import constructor as constructor_routes
from tutorgraph.api.routes import interview as interview_routes
from tutorgraph.constructor.publish import load_authored_domains
from tutorgraph.constructor.state import CHECKPOINT_TYPES
from tutorgraph.content.embeddings import embedder_from
from tutorgraph.content.retrieval import SearchIndexes
from tutorgraph.engines import build_engine
from tutorgraph.http.body_limit import BodyLimitMiddleware
from tutorgraph.http.csrf import verify_csrf
from tutorgraph.http.deps import constructor_service
from tutorgraph.http.problems import install_exception_handlers
from tutorgraph.http.security_headers import SecurityHeadersMiddleware
from tutorgraph.http.unicode_input import UnicodeInputMiddleware
from tutorgraph.knowledge import shipped_domains
from tutorgraph.knowledge.lint import warm_up
from tutorgraph.learner_model.evaluator import Evaluator
from tutorgraph.learner_model.events import EVALUATION_COMPLETED
from tutorgraph.learner_model.refit_schedule import refit_periodically
from tutorgraph.learning import xapi
from tutorgraph.learning.planner import PathPlanner
from tutorgraph.llm import aclose_model
from tutorgraph.lti import service as lti_service
from tutorgraph.settings import Settings, load_settings
from tutorgraph.store.checkpoints import open_checkpointer
from tutorgraph.store.db import Database
from tutorgraph.store.models import utcnow
from tutorgraph.web import assess, explore, learn, pages
from tutorgraph.web import create as create_pages
from tutorgraph.web import interview as interview_pages
from tutorgraph.web import loop as loop_pages
from tutorgraph.web import lti as lti_pages
from tutorgraph.web import practice as practice_pages
from tutorgraph.web import teach as teach_pages
from tutorgraph.web.error_pages import error_page
from tutorgraph.web.templating import STATIC_DIR

log = logging.getLogger(__name__)

FAVICON = STATIC_DIR / "favicon.svg"
FAVICON_MAX_AGE = 86_400  # a day: browsers ask for /favicon.ico on every page otherwise


def favicon() -> FileResponse:
    """The site icon where browsers look for it unasked (pages also link /static/favicon.svg)."""
    return FileResponse(
        FAVICON,
        media_type="image/svg+xml",
        headers={"cache-control": f"public, max-age={FAVICON_MAX_AGE}"},
    )


def _load_authored(database: Database) -> int:
    with database.session() as session:
        return load_authored_domains(session)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or load_settings()
    offload.configure(settings.limits)  # code runs and upload readers in this process
    database = Database(settings)
    model = build_engine(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        log.info("tutorgraph %s up (engine=%s)", __version__, settings.llm.engine)
        tracing = observability.configure(settings.tracing)
        if tracing != "off":
            log.info("tracing: %s", tracing)
        # Parse the knowledge base now, on a worker thread: done lazily, the first request that
        # needs it would stop the event loop for about a second.
        domains = await anyio.to_thread.run_sync(shipped_domains)
        # ...and its grading content analysed once, so no learner's first grade pays for it.
        await anyio.to_thread.run_sync(warm_up, [kb.domain for kb in domains.values()])
        # Grades the planner never acted on (the server stopped first) get their next step now.
        planned = await anyio.to_thread.run_sync(path_planner.catch_up)
        if planned:
            log.info("path planner: planned %d pending evaluation event(s)", planned)
        background = [asyncio.create_task(refit_periodically(database, settings.mastery))]
        if settings.lti.enabled:
            background.append(
                asyncio.create_task(lti_service.send_periodically(settings, database))
            )
        if settings.xapi.enabled:
            background.append(asyncio.create_task(xapi.flush_periodically(database, settings.xapi)))
        async with AsyncExitStack() as stack:
            checkpointer = await stack.enter_async_context(
                open_checkpointer(settings, allowed_types=CHECKPOINT_TYPES)
            )
            app.state.checkpointer = checkpointer
            # Published courses' knowledge bases, and builds a stopped process left running.
            authored = await anyio.to_thread.run_sync(_load_authored, database)
            if authored:
                log.info("knowledge base: %d authored domain(s) loaded", authored)
            if settings.uses_job_queue:  # course builds go through the PostgreSQL job queue
                from tutorgraph.constructor.queue import (  # needs the postgres extra
                    QueueJobs,
                    ensure_schema,
                    queue_app,
                    run_worker,
                )

                jobs_app = queue_app(settings.sqlalchemy_url)
                await ensure_schema(jobs_app)
                await stack.enter_async_context(jobs_app.open_async())
                app.state.constructor_jobs = QueueJobs(jobs_app)
                if settings.jobs.embedded_worker:
                    worker = run_worker(
                        jobs_app,
                        constructor_service(app.state),
                        concurrency=settings.jobs.concurrency,
                    )
                    background.append(asyncio.create_task(worker))
            resumed = await constructor_service(app.state).recover()
            if resumed:
                log.info("course constructor: resuming %d build(s)", resumed)
            try:
                yield
            finally:  # a service built on this checkpointer must not outlive it
                for task in background:
                    task.cancel()
                await asyncio.gather(*background, return_exceptions=True)
                app.state.assessments = None
                app.state.constructor = None
                app.state.interviews = None
        await aclose_model(model)
        observability.shutdown()
        database.dispose()

    app = FastAPI(
        title="tutorgraph",
        version=__version__,
        description="Adaptive learning platform API. Authenticate with `POST /api/v1/auth/login`.",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,  # ReDoc loads from a CDN; /docs is served offline instead
        openapi_url=OPENAPI_URL if settings.api_docs_public else None,
        dependencies=[Depends(verify_csrf)],
    )
    app.add_middleware(SecurityHeadersMiddleware, hsts=settings.cookies_secure)
    app.state.settings = settings
    app.state.db = database
    app.state.search = SearchIndexes(settings.index_dir, embedder=embedder_from(settings.llm))
    app.state.model = model
    app.state.evaluator = Evaluator(model, grading=settings.grading)
    path_planner = PathPlanner(database)
    app.state.evaluator.bus.subscribe(EVALUATION_COMPLETED, path_planner.on_evaluation)
    app.state.clock = utcnow  # the learning loop's now; tests move it

    api = APIRouter(prefix="/api/v1")
    api.include_router(auth.router)
    api.include_router(courses.router)
    api.include_router(courses.shares_router)
    api.include_router(lessons.router)
    api.include_router(search.router)
    api.include_router(grading.router)
    api.include_router(practice.router)
    api.include_router(tutor.router)
    api.include_router(tutor_session.router)
    api.include_router(assessments.router)
    api.include_router(me.router)
    api.include_router(teach.router)
    api.include_router(constructor_routes.router)
    api.include_router(interview_routes.router)
    app.include_router(api)
    app.include_router(health.router)
    if settings.api_docs_public:
        install_api_docs(app)  # before the pages' catch-all /{section}
    app.include_router(learn.router)
    app.include_router(practice_pages.router)
    app.include_router(assess.router)
    app.include_router(explore.router)
    app.include_router(loop_pages.router)
    app.include_router(teach_pages.router)
    app.include_router(create_pages.router)
    app.include_router(interview_pages.router)
    app.include_router(lti_pages.router)
    app.add_api_route("/favicon.ico", favicon, methods=["GET"], include_in_schema=False)
    app.include_router(pages.router)  # last: its /{section} answers every other path
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    install_exception_handlers(app, error_page=error_page)
    document_problems(app)
    app.add_middleware(UnicodeInputMiddleware)  # inside the body limit: bodies come bounded
    app.add_middleware(
        BodyLimitMiddleware,
        max_body_bytes=settings.limits.max_body_bytes,
        # a file and its form fields
        upload_paths={
            constructor_routes.UPLOAD_PATH: settings.limits.max_upload_bytes + 65536,
            interview_routes.RESUME_PATH: settings.interview.max_resume_bytes + 65536,
        },
    )
    if settings.trusted_proxies:  # outermost: every layer sees the client the proxy names
        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=settings.trusted_proxies)
    return app
