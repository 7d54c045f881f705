from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.fakes.live_server import LiveServer

pytestmark = pytest.mark.browser


def test_register_log_in_and_see_the_home_page(page: Page, live_server: LiveServer) -> None:
    page.goto(live_server.url + "/")
    page.get_by_role("link", name="Register").first.click()
    page.get_by_label("Name").fill("Grace Hopper")
    page.get_by_label("Email").fill("grace@example.org")
    page.get_by_label("Password").fill("cobol forever")
    page.get_by_role("button", name="Register").click()
    expect(page.get_by_role("status")).to_contain_text("Registration received")
    page.get_by_label("Email").fill("grace@example.org")
    page.get_by_label("Password").fill("cobol forever")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Welcome back, Grace Hopper")
    expect(page.get_by_test_id("current-user")).to_have_text("Grace Hopper")
    nav = page.get_by_role("navigation", name="Main")
    expect(nav.get_by_role("link")).to_have_text(
        ["Learn", "Explore", "Assess", "Practice", "Review", "Progress", "Interview", "Create"]
    )


def test_wrong_password_shows_an_alert(page: Page, live_server: LiveServer) -> None:
    page.goto(live_server.url + "/login")
    page.get_by_label("Email").fill("nobody@example.org")
    page.get_by_label("Password").fill("whatever123")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("alert")).to_have_text("invalid email or password")
