"""The FastAPI application factory: `create_app(settings)` wires storage, engines and routers."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import APIRouter, FastAPI
from fastapi.staticfiles import StaticFiles

from tutorgraph import __version__
from tutorgraph.api.problems import install_exception_handlers
from tutorgraph.api.routes import auth, courses, health, lessons, search
from tutorgraph.content.retrieval import SearchIndexes
from tutorgraph.settings import Settings, load_settings
from tutorgraph.store.db import Database
from tutorgraph.web import learn, pages
from tutorgraph.web.templating import STATIC_DIR

log = logging.getLogger(__name__)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or load_settings()
    database = Database(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        log.info("tutorgraph %s up (engine=%s)", __version__, settings.llm.engine)
        yield
        database.dispose()

    app = FastAPI(
        title="tutorgraph",
        version=__version__,
        description="Adaptive learning platform API. Authenticate with `POST /api/v1/auth/login`.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.db = database
    app.state.search = SearchIndexes(settings.index_dir)

    api = APIRouter(prefix="/api/v1")
    api.include_router(auth.router)
    api.include_router(courses.router)
    api.include_router(courses.shares_router)
    api.include_router(lessons.router)
    api.include_router(search.router)
    app.include_router(api)
    app.include_router(health.router)
    app.include_router(learn.router)
    app.include_router(pages.router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    install_exception_handlers(app)
    return app
