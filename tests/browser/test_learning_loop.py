"""The learning loop in a browser: every grade decides what comes next."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.accounts import register_and_log_in
from tests.browser.chat import page_overflow
from tests.fakes.live_server import LiveServer
from tutorgraph.knowledge import get_domain

pytestmark = pytest.mark.browser

TOPIC = get_domain("python").topic("python-data-model")
MIX_UP = (
    "Every object has a value, and the is operator compares the values, so is and == are the same."
)


def answer(page: Page, text: str) -> None:
    page.get_by_label("Your answer").fill(text)
    page.get_by_role("button", name="Submit answer").click()
    expect(page.get_by_test_id("last-result")).to_be_visible()


def test_wrong_retry_alternate_then_right_and_its_progress(
    page: Page, seeded_server: LiveServer
) -> None:
    base = seeded_server.url
    register_and_log_in(page, base)
    page.goto(base + "/")
    expect(page.get_by_test_id("next-step")).to_contain_text("Start")  # nothing graded yet

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Practice").click()
    page.get_by_label("Topic").select_option("python/python-data-model")
    page.get_by_role("button", name="Start practising").click()
    question = page.get_by_test_id("question-text").inner_text()
    reference = next(
        q.reference_answer
        for q in TOPIC.questions
        if " ".join(q.text.split())[:40] in " ".join(question.split())
    )

    # 1. wrong -> RETRY: the same question again, with a hint
    answer(page, "no idea")
    expect(page.get_by_test_id("decision")).to_contain_text("missed the main idea")
    step = page.get_by_test_id("next-step")
    expect(step).to_have_attribute("data-kind", "retry")
    expect(
        page.get_by_role("heading", name="Question 1 of 5 · second try", exact=True)
    ).to_be_visible()
    expect(page.get_by_test_id("hint")).to_contain_text("Your answer")

    # 2. still wrong, with a misconception: the tutor's other way comes after the round; the
    # step is the question the learner is in the middle of, once more, with a hint
    answer(page, MIX_UP)
    step = page.get_by_test_id("next-step")
    expect(step).to_have_attribute("data-kind", "retry")
    expect(step).to_contain_text("Question 1 of 5 · third try, with a hint")
    expect(step).to_contain_text("After the round: see Objects, types and mutability")
    expect(page.get_by_test_id("hint")).to_contain_text("common mix-up")  # attempt 3 waits
    round_url = page.url.split("#")[0]

    page.goto(base + "/progress")
    mix_up = page.locator("[data-misconception='is-equals-equality']")
    expect(mix_up).to_have_attribute("data-status", "open")
    expect(mix_up).to_contain_text("the is operator compares the values")  # the learner's words

    # 3. back via the home page's Continue: the same question, its third try -> right
    page.goto(base + "/")
    home_step = page.get_by_test_id("next-step")
    expect(home_step).to_contain_text("Question 1 of 5 · third try, with a hint")
    home_step.get_by_role("button").click()
    expect(page).to_have_url(re.compile(re.escape(round_url)))
    expect(
        page.get_by_role("heading", name="Question 1 of 5 · third try", exact=True)
    ).to_be_visible()
    answer(page, reference)
    expect(page.get_by_test_id("next-step")).to_contain_text("Go on to question 2 of 5")

    # the misconception is cleared by the good answer; the evidence shows what moved mastery
    page.goto(base + "/progress")
    expect(mix_up).to_have_attribute("data-status", "cleared")
    expect(page.get_by_test_id("progress-graph").first).to_be_visible()
    page.get_by_text("What moved Objects, types and mutability").click()
    expect(page.get_by_test_id("evidence-python-data-model")).to_contain_text("mastery")
    # printed, it is a report: no navigation, every answer that moved mastery shown
    page.get_by_text("What moved Objects, types and mutability").click()  # closed again
    page.emulate_media(media="print")
    page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
    expect(page.get_by_role("navigation", name="Main")).to_be_hidden()
    expect(page.get_by_test_id("evidence-python-data-model").locator("li").first).to_be_visible()
    page.emulate_media(media="screen")

    page.set_viewport_size({"width": 390, "height": 800})
    for path in ("/progress", "/review", "/"):
        page.goto(base + path)
        assert page_overflow(page)["width"] <= 390, path


def test_another_explanation_on_a_phone_shows_the_tutor_pane(
    page: Page, seeded_server: LiveServer
) -> None:
    """The planner's tutor step (`?mode=…&focus=<concept>`) on a phone: the tutor pane comes to
    the front in that mode, and the tutor speaks first; nothing is sent in the learner's name."""
    register_and_log_in(page, seeded_server.url)
    page.set_viewport_size({"width": 390, "height": 800})
    page.goto(
        seeded_server.url
        + "/learn/python-engineering/python-data-model?mode=eli5&focus=python-data-model"
    )
    expect(page.get_by_role("radio", name="ELI5")).to_have_attribute("aria-checked", "true")
    log = page.get_by_role("log", name="Conversation")
    expect(log.get_by_test_id("user-message")).to_have_count(0)
    expect(page.get_by_role("tab", name="Tutor")).to_have_attribute("aria-selected", "true")
    expect(log.get_by_test_id("assistant-message").last).not_to_be_empty()
    expect(page.get_by_role("button", name="Send", exact=True)).to_be_enabled()
    expect(log.get_by_test_id("assistant-message")).to_have_count(1)
    expect(log.get_by_test_id("user-message")).to_have_count(0)
    # the request left the address: a reload opens the conversation, not a second one
    assert "focus=" not in page.url
    page.reload()
    expect(
        page.get_by_role("log", name="Conversation").get_by_test_id("user-message")
    ).to_have_count(0)
