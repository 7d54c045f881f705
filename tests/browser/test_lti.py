"""An LTI 1.3 launch in a real browser: the LMS link, the platform's auto-posted form, the
course open and the learner signed in."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import REPO_CONTENT
from tests.conftest import make_settings
from tests.fakes.live_server import LiveServer
from tests.fakes.lti_platform import Platform
from tutorgraph.cli.seed import run_seed
from tutorgraph.server import create_app
from tutorgraph.store import migrate

pytestmark = pytest.mark.browser


@pytest.fixture
def lms_and_tool(tmp_path: Path) -> Iterator[tuple[Platform, LiveServer]]:
    lms = Platform()
    with LiveServer(lms.app(), name="test LMS") as platform_server:
        lms.base = platform_server.url
        settings = make_settings(
            tmp_path,
            content_dir=REPO_CONTENT,
            lti={"platforms": [lms.registration("python-engineering")]},
        )
        migrate.upgrade(settings)
        run_seed(settings)
        with LiveServer(create_app(settings)) as tool:
            lms.tool_jwks_url = f"{tool.url}/lti/jwks"
            yield lms, tool


def test_a_learner_launched_from_the_lms_lands_in_the_course(
    page: Page, lms_and_tool: tuple[Platform, LiveServer]
) -> None:
    lms, tool = lms_and_tool
    page.goto(lms.login_url(tool.url, "student-9"))
    page.wait_for_url(f"{tool.url}/learn/python-engineering")
    expect(page.get_by_test_id("current-user")).to_have_text("Learner student-9")
    page.get_by_role("link", name="Objects, names and mutability").first.click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Objects")
