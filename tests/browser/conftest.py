"""Headless Chromium (Debian's `chromium`, driven by Playwright) against a live server."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import make_settings
from tests.fakes.live_server import LiveServer
from tutorgraph.cli.seed import run_seed
from tutorgraph.server import create_app
from tutorgraph.store import migrate

REPO_CONTENT = Path(__file__).resolve().parents[2] / "content"

CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def chromium_path() -> str | None:
    for candidate in CHROMIUM_CANDIDATES:
        if Path(candidate).exists():
            return candidate
    return shutil.which("chromium")


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[LiveServer]:
    settings = make_settings(tmp_path)
    migrate.upgrade(settings)
    with LiveServer(create_app(settings)) as server:
        yield server


@pytest.fixture
def seeded_server(tmp_path: Path) -> Iterator[LiveServer]:
    """A live server over the shipped demo courses, with the offline tutor."""
    settings = make_settings(tmp_path, content_dir=REPO_CONTENT)
    migrate.upgrade(settings)
    run_seed(settings)
    with LiveServer(create_app(settings)) as server:
        yield server


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    executable = chromium_path()
    if executable is None:
        if os.environ.get("TUTORGRAPH_REQUIRE_BROWSER"):
            pytest.fail("TUTORGRAPH_REQUIRE_BROWSER is set but no Chromium is installed")
        pytest.skip("no Chromium here: install Debian's `chromium` package to run browser tests")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    from playwright.sync_api import Browser

    assert isinstance(browser, Browser)
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()
