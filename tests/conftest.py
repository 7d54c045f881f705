"""Hermetic test setup: every test gets its own data dir and database; PostgreSQL runs too when
TUTORGRAPH_TEST_DATABASE_URL is set."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from tutorgraph.cli.seed import run_seed
from tutorgraph.server import create_app
from tutorgraph.settings import Settings, normalize_database_url
from tutorgraph.store import migrate
from tutorgraph.store.db import Database

pytest_plugins = ["tests.fakes.plugin"]

REPO_CONTENT = Path(__file__).resolve().parents[1] / "content"
PG_URL_ENV = "TUTORGRAPH_TEST_DATABASE_URL"
TEST_SECRET = "test-secret-that-is-long-enough-for-hs256"
BACKENDS = ["sqlite", "postgres"]


@pytest.fixture(autouse=True)
def _isolated_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No TUTORGRAPH_* variable or settings.yaml from the developer's shell leaks into a test."""
    for name in list(os.environ):
        if name.startswith("TUTORGRAPH_") and name != PG_URL_ENV:
            monkeypatch.delenv(name)
    monkeypatch.setenv("TUTORGRAPH_SETTINGS_FILE", str(tmp_path / "no-settings.yaml"))
    monkeypatch.chdir(tmp_path)


def postgres_url() -> str | None:
    return os.environ.get(PG_URL_ENV) or None


def reset_postgres(url: str) -> None:
    engine = create_engine(normalize_database_url(url))
    with engine.begin() as connection:
        connection.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
        connection.execute(text("CREATE SCHEMA public"))
    engine.dispose()


def make_settings(tmp_path: Path, backend: str = "sqlite", **overrides: object) -> Settings:
    values: dict[str, object] = {
        "environment": "test",
        "jwt_secret": TEST_SECRET,
        "api_docs": True,  # tests read the OpenAPI document; exposure has its own tests
        "data_dir": tmp_path / "data",
        "content_dir": tmp_path / "content",
    }
    if backend == "postgres":
        url = postgres_url()
        if url is None:
            pytest.skip(f"PostgreSQL half: set {PG_URL_ENV} to run it")
        reset_postgres(url)
        values["database_url"] = url
    values.update(overrides)
    return Settings(**values)  # type: ignore[arg-type]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """Parametrizes a test over SQLite and PostgreSQL (skipped without its URL)."""
    name: str = request.param
    if name == "postgres" and postgres_url() is None:
        pytest.skip(f"PostgreSQL half: set {PG_URL_ENV} to run it")
    return name


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return make_settings(tmp_path)


@pytest.fixture
def any_settings(tmp_path: Path, backend: str) -> Settings:
    """Settings on each storage backend in turn."""
    return make_settings(tmp_path, backend)


@pytest.fixture
def database(any_settings: Settings) -> Iterator[Database]:
    migrate.upgrade(any_settings)
    db = Database(any_settings)
    yield db
    db.dispose()


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    migrate.upgrade(settings)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def csrf_token(client: TestClient) -> str:
    """The CSRF token a page gives this client's browser (forms post it as `csrf_token`)."""
    response = client.get("/", headers={"accept": "text/html"})
    meta = BeautifulSoup(response.text, "html.parser").find("meta", attrs={"name": "csrf-token"})
    assert meta is not None, response.text
    return str(meta["content"])


def register_and_login(
    client: TestClient,
    email: str = "ada@example.org",
    password: str = "correct horse",
    name: str = "Ada",
) -> dict[str, str]:
    """Create an account through the API and return its Authorization header."""
    response = client.post(
        "/api/v1/auth/register", json={"email": email, "password": password, "name": name}
    )
    assert response.status_code == 201, response.text
    response = client.post("/api/v1/auth/login", json={"email": email, "password": password})
    assert response.status_code == 200, response.text
    client.cookies.clear()
    return {"Authorization": f"Bearer {response.json()['access_token']}"}


@pytest.fixture(scope="session")
def seeded_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data dir holding the demo courses (database and search indexes), seeded once."""
    root = tmp_path_factory.mktemp("seeded")
    settings = make_settings(root, content_dir=REPO_CONTENT)
    migrate.upgrade(settings)
    run_seed(settings)
    return settings.data_dir


def seeded_copy(tmp_path: Path, seeded_data: Path, **overrides: object) -> Settings:
    """Settings on a private copy of the seeded data dir."""
    shutil.copytree(seeded_data, tmp_path / "data")
    return make_settings(tmp_path, content_dir=REPO_CONTENT, **overrides)
