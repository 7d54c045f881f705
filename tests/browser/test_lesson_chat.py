"""The lesson page around the chat: its height, where the log scrolls, progress, restoring the
last conversation, and the phone layout."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.accounts import register_and_log_in
from tests.browser.chat import LESSON, ask, page_overflow, visible_in_log
from tests.fakes.live_server import LiveServer

pytestmark = pytest.mark.browser

QUESTIONS = (
    "Why do we divide by the square root of d_k?",
    "How is multi-head attention computed?",
    "What does the causal mask do to the scores?",
)


def test_formulas_do_not_grow_the_page_and_the_log_follows_each_question(
    page: Page, seeded_server: LiveServer
) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    register_and_log_in(page, seeded_server.url)
    page.goto(seeded_server.url + LESSON)
    log = page.get_by_role("log", name="Conversation")
    for question in QUESTIONS:
        ask(page, question)
        expect(log.locator(".katex").first).to_be_visible()  # the reply's maths is typeset
        # KaTeX's hidden MathML must stay inside the chat: the page ends at its footer.
        assert page_overflow(page)["below_footer"] <= 1, page_overflow(page)
        asked = visible_in_log(page, "[data-testid=user-message]")
        assert asked["top_inside"] and asked["shown"] >= asked["height"] - 1, asked
        reply = visible_in_log(page, "[data-testid=assistant-message]")
        assert reply["shown"] >= min(reply["height"], reply["log"] / 2), reply

    page.reload()
    page.get_by_text("History").click()  # a conversation with formulas loads at once
    page.get_by_role("list", name="Past conversations").get_by_role("button").first.click()
    expect(log.get_by_test_id("user-message")).to_have_count(len(QUESTIONS))
    page.wait_for_function("document.querySelectorAll('.chat-log .katex').length > 3")
    assert page_overflow(page)["below_footer"] <= 1, page_overflow(page)
    latest = visible_in_log(page, "[data-testid=user-message]")
    assert latest["top_inside"], latest  # reopened at the latest exchange, not at the top


def _lesson_sessions(page: Page, base: str) -> list[dict[str, object]]:
    lesson_id = (
        page.get_by_role("region", name="Lesson content")
        .locator("article")
        .get_attribute("data-lesson-id")
    )
    response = page.request.get(f"{base}/api/v1/tutor/sessions?lesson_id={lesson_id}")
    assert response.ok, response.text()
    rows: list[dict[str, object]] = response.json()
    return rows


def test_marking_complete_keeps_the_chat_and_the_lesson_reopens_its_last_chat(
    page: Page, seeded_server: LiveServer
) -> None:
    register_and_log_in(page, seeded_server.url)
    page.goto(seeded_server.url + LESSON)
    log = page.get_by_role("log", name="Conversation")
    ask(page, QUESTIONS[0])
    reply = log.get_by_test_id("assistant-message").last.inner_text()
    page.evaluate("window.sameDocument = true")

    page.get_by_role("button", name="Mark complete").click()
    expect(page.get_by_test_id("lesson-status")).to_have_text("✓ Completed")
    assert page.evaluate("window.sameDocument === true")  # no reload
    expect(log.get_by_test_id("user-message").locator(".bubble")).to_have_text([QUESTIONS[0]])
    assert log.get_by_test_id("assistant-message").last.inner_text() == reply
    page.get_by_role("button", name="Mark as not complete").click()
    expect(page.get_by_role("button", name="Mark complete")).to_be_visible()
    page.get_by_role("button", name="Mark complete").click()
    expect(page.get_by_test_id("lesson-status")).to_have_text("✓ Completed")

    page.goto(seeded_server.url + "/learn/modern-machine-learning")
    page.get_by_role("link", name="Self-attention").first.click()
    expect(page.get_by_test_id("lesson-status")).to_have_text("✓ Completed")  # it was saved
    expect(log.get_by_test_id("user-message").locator(".bubble")).to_have_text(
        [QUESTIONS[0]]
    )  # restored
    expect(log.get_by_test_id("assistant-message")).to_have_count(1)
    ask(page, QUESTIONS[1])  # ...and continued, not a new conversation
    sessions = _lesson_sessions(page, seeded_server.url)
    assert len(sessions) == 1 and sessions[0]["message_count"] == 4, sessions


def test_on_a_phone_tabs_bring_the_chat_into_view_without_sideways_scrolling(
    page: Page, seeded_server: LiveServer
) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    register_and_log_in(page, seeded_server.url)
    page.goto(seeded_server.url + LESSON)
    tabs = page.get_by_role("tablist", name="Lesson or tutor")
    expect(tabs.get_by_role("tab", name="Lesson")).to_have_attribute("aria-selected", "true")
    expect(page.get_by_role("heading", name="Self-attention", level=1)).to_be_visible()
    assert page_overflow(page)["width"] <= 390, page_overflow(page)

    tabs.get_by_role("tab", name="Tutor").click()
    expect(tabs.get_by_role("tab", name="Tutor")).to_have_attribute("aria-selected", "true")
    message = page.get_by_label("Your message")
    expect(message).to_be_in_viewport()  # right there, not 10,000 px below the lesson
    expect(page.get_by_role("heading", name="Self-attention", level=1)).to_be_hidden()
    ask(page, QUESTIONS[0])
    reply = page.get_by_role("log", name="Conversation").get_by_test_id("assistant-message")
    expect(reply.locator(".katex").first).to_be_visible()
    expect(page.get_by_role("button", name="Send")).to_be_in_viewport()
    assert page_overflow(page)["width"] <= 390, page_overflow(page)
    page.get_by_text("History").click()
    expect(page.get_by_role("list", name="Past conversations")).to_be_visible()
    assert page_overflow(page)["width"] <= 390, page_overflow(page)
    page.get_by_text("History").click()

    tabs.get_by_role("tab", name="Lesson").click()  # back where the learner was reading
    expect(page.get_by_role("heading", name="Self-attention", level=1)).to_be_visible()

    page.set_viewport_size({"width": 1280, "height": 800})  # wide: both side by side, no tabs
    expect(tabs).to_be_hidden()
    expect(page.get_by_label("Your message")).to_be_visible()
    expect(page.get_by_role("heading", name="Self-attention", level=1)).to_be_visible()
