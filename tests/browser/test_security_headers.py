"""The Content-Security-Policy in a real browser: the lesson page (KaTeX, Mermaid, the chat) and
/docs (Swagger UI) work without a single violation."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import ConsoleMessage, Page, expect

from tests.browser.accounts import register_and_log_in
from tests.conftest import make_settings
from tests.fakes.live_server import LiveServer
from tutorgraph.cli.seed import run_seed
from tutorgraph.server import create_app
from tutorgraph.store import migrate

pytestmark = pytest.mark.browser

REPO_CONTENT = Path(__file__).resolve().parents[2] / "content"


@pytest.fixture
def seeded_server(tmp_path: Path) -> Iterator[LiveServer]:
    settings = make_settings(tmp_path, content_dir=REPO_CONTENT)
    migrate.upgrade(settings)
    run_seed(settings)
    with LiveServer(create_app(settings)) as server:
        yield server


def csp_violations(page: Page) -> list[str]:
    seen: list[str] = []

    def note(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text:
            seen.append(message.text)

    page.on("console", note)
    return seen


def test_lessons_render_math_and_diagrams_under_the_policy(
    page: Page, seeded_server: LiveServer
) -> None:
    violations = csp_violations(page)
    register_and_log_in(page, seeded_server.url)
    page.goto(seeded_server.url + "/learn/modern-machine-learning/self-attention")
    article = page.locator("article.lesson-body")
    expect(article.locator(".katex").first).to_be_visible()
    expect(article.locator("pre.mermaid svg").first).to_be_visible()
    page.get_by_label("Your message").fill("What is a query vector?")
    page.get_by_role("button", name="Send").click()
    expect(page.get_by_test_id("assistant-message")).to_have_count(1)
    expect(page.get_by_role("button", name="Send")).to_be_enabled()
    assert violations == []


def test_docs_run_from_local_files_under_the_policy(page: Page, seeded_server: LiveServer) -> None:
    violations = csp_violations(page)
    outside: list[str] = []
    page.on(
        "request",
        lambda request: (
            None if request.url.startswith(seeded_server.url) else outside.append(request.url)
        ),
    )
    page.goto(seeded_server.url + "/docs")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("tutorgraph")
    expect(page.locator(".opblock").first).to_be_visible()
    assert violations == [] and outside == []
