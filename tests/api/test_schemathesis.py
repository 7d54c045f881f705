"""Property-based tests of the whole API from its own OpenAPI document (schemathesis): for every
operation, generated requests (valid and invalid), sent in process as a registered learner,
never get a 5xx, and every response is one the document declares, with a body that matches its
schema. Bounded: a few examples per operation, derandomized so CI sees the same cases."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.conftest import PG_URL_ENV, make_settings, register_and_login
from tutorgraph.server import create_app
from tutorgraph.store import migrate

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


def _build_app() -> FastAPI:
    """The app under test, built at import (parametrization needs its schema): hermetic like
    every test's app, in a data directory of its own."""
    with pytest.MonkeyPatch.context() as patch:
        for name in list(os.environ):
            if name.startswith("TUTORGRAPH_") and name != PG_URL_ENV:
                patch.delenv(name)
        patch.setenv("TUTORGRAPH_SETTINGS_FILE", str(DATA / "no-settings.yaml"))
        app = create_app(make_settings(DATA))
    migrate.upgrade(app.state.settings)
    return app


DATA = Path(tempfile.mkdtemp(prefix="tutorgraph-schemathesis-"))
APP = _build_app()
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


@pytest.fixture(scope="module")
def learner() -> Iterator[dict[str, str]]:
    """A registered learner's bearer token; the data directory goes when the module is done."""
    yield register_and_login(TestClient(APP), email="fuzz@example.org")
    shutil.rmtree(DATA, ignore_errors=True)


@schema.parametrize()
@settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_the_api_honours_its_schema(case: schemathesis.Case, learner: dict[str, str]) -> None:
    case.call_and_validate(headers=learner, checks=CHECKS)
