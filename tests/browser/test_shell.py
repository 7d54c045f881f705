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
    # Registering signs the new account in; a first visit is a welcome, not a welcome back.
    expect(page.get_by_role("heading", level=1)).to_have_text("Welcome, Grace Hopper")
    expect(page.get_by_test_id("current-user")).to_have_text("Grace Hopper")
    nav = page.get_by_role("navigation", name="Main")
    expect(nav.get_by_role("link")).to_have_text(
        ["Learn", "Explore", "Assess", "Practice", "Review", "Progress", "Interview", "Create"]
    )
    page.get_by_role("button", name="Log out").click()
    page.locator(".site-header").get_by_role("link", name="Log in").click()
    page.get_by_label("Email").fill("grace@example.org")
    page.get_by_label("Password").fill("cobol forever")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_test_id("current-user")).to_have_text("Grace Hopper")


def test_wrong_password_shows_an_alert(page: Page, live_server: LiveServer) -> None:
    page.goto(live_server.url + "/login")
    page.get_by_label("Email").fill("nobody@example.org")
    page.get_by_label("Password").fill("whatever123")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("alert")).to_have_text("invalid email or password")


def test_the_site_icon_is_served_where_browsers_look(page: Page, live_server: LiveServer) -> None:
    missing: list[str] = []
    page.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
    page.goto(live_server.url + "/")
    icon = page.locator('link[rel="icon"]')
    expect(icon).to_have_attribute("type", "image/svg+xml")
    linked = page.request.get(live_server.url + icon.get_attribute("href"))
    assert linked.status == 200 and linked.headers["content-type"].startswith("image/svg+xml")
    unasked = page.request.get(live_server.url + "/favicon.ico")  # what browsers try by default
    assert unasked.status == 200, f"/favicon.ico answered {unasked.status}"
    assert unasked.headers["content-type"].startswith("image/svg+xml")
    assert unasked.body() == linked.body()
    assert not missing, f"the home page asked for what is not there: {missing}"
