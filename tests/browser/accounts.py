"""Signing up and in through the pages themselves, as a newcomer does."""

from __future__ import annotations

from playwright.sync_api import Page, expect


def register_and_log_in(
    page: Page, base: str, *, name: str = "Lin", email: str = "lin@example.org"
) -> None:
    password = "plenty long enough"
    page.goto(base + "/register")
    page.get_by_label("Name").fill(name)
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Register").click()
    # Registering signs the newcomer in: no second form to fill.
    expect(page.get_by_test_id("current-user")).to_have_text(name)
