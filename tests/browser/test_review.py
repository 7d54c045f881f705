"""Review brings back what was missed (issue 35): a missed concept is due again within the hour
with its miss shown (not "Recall now 100%"), and "Review now" starts a round on the weakest
concept even when nothing is due."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from playwright.sync_api import Page, expect

from tests.browser.accounts import register_and_log_in
from tests.browser.chat import page_overflow
from tests.browser.test_one_mastery import practise
from tests.fakes.live_server import LiveServer
from tutorgraph.knowledge import get_domain
from tutorgraph.store.models import utcnow

pytestmark = pytest.mark.browser

MISSED = "python-data-model"


def test_a_missed_concept_is_due_within_the_hour_and_not_shown_as_recalled(
    page: Page, seeded_server: LiveServer
) -> None:
    base = seeded_server.url
    register_and_log_in(page, base)
    practise(page, base, MISSED, ["no idea"])

    page.goto(base + "/review")
    row = page.get_by_test_id("upcoming-reviews").locator(f"[data-concept='{MISSED}']")
    expect(row.get_by_test_id("due")).to_have_text(re.compile(r"^in \d+ minutes?$"))
    expect(row.get_by_test_id("last-result")).to_have_text("missed")
    expect(row.get_by_test_id("mastery")).to_have_text("0%")
    expect(row).not_to_contain_text("100%")
    expect(page.get_by_test_id("nothing-due")).to_contain_text("next review is due in")

    seeded_server.app.state.clock = lambda: utcnow() + timedelta(minutes=11)
    page.reload()
    due = page.get_by_test_id("due-reviews").locator(f"[data-concept='{MISSED}']")
    expect(due).to_contain_text("last answer: missed")
    due.get_by_role("button").click()
    expect(page.get_by_test_id("round-progress")).to_have_text("0 of 3 answered")

    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 800})
        page.goto(base + "/review")
        assert page_overflow(page)["width"] <= width


def test_review_now_with_nothing_due_starts_on_the_weakest_concept(
    page: Page, seeded_server: LiveServer
) -> None:
    base = seeded_server.url
    register_and_log_in(page, base)
    weak, strong = "python-data-model", "builtin-data-structures"
    practise(page, base, weak, [None])  # one right answer: about half way
    practise(page, base, strong, [None, None])  # two: further

    page.goto(base + "/review")
    expect(page.get_by_test_id("nothing-due")).to_be_visible()
    title = get_domain("python").topic(weak).title
    review_now = page.get_by_test_id("review-now")
    expect(review_now).to_contain_text(title)
    review_now.get_by_role("button", name="Review now").click()
    expect(page).to_have_url(re.compile(r"/quiz/[0-9a-f-]+$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(title)
    expect(page.get_by_test_id("round-progress")).to_have_text("0 of 3 answered")
