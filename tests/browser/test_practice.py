from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.accounts import register_and_log_in
from tests.fakes.live_server import LiveServer
from tutorgraph.knowledge import get_domain

pytestmark = pytest.mark.browser


def _opening(question: str) -> str:
    """The question's first words as the page shows them (its markdown rendered)."""
    return " ".join(question.replace("`", "").split())[:60]


def test_one_full_practice_round(page: Page, live_server: LiveServer) -> None:
    register_and_log_in(page, live_server.url)
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Practice").click()
    page.get_by_label("Topic").select_option("python/iterators-generators")
    page.get_by_role("button", name="Start practising").click()
    topic = get_domain("python").topic("iterators-generators")
    answers = {_opening(q.text): q.reference_answer for q in topic.questions}
    for number in range(1, 6):
        expect(page.get_by_role("heading", name=f"Question {number}")).to_be_visible()
        text = _opening(page.get_by_test_id("question-text").inner_text())
        page.get_by_label("Your answer").fill(answers[text] if number % 2 else "no idea")
        page.get_by_role("button", name="Submit answer").click()
        expect(page.get_by_test_id("round-progress")).to_have_text(f"{number} of 5 answered")
        expect(page.get_by_test_id("decision")).to_be_visible()
        expect(page.get_by_test_id("mastery")).to_contain_text("Mastery of iterators-generators")
    expect(page.get_by_role("status")).to_contain_text("Round complete")
    page.reload()
    expect(page.get_by_role("listitem").filter(has_text="(RETRY)")).to_have_count(2)
