"""The tutor chat in a real browser, against the seeded demo courses and the offline tutor."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.accounts import register_and_log_in
from tests.browser.chat import ask
from tests.fakes.live_server import LiveServer

pytestmark = pytest.mark.browser

LESSON = "/learn/modern-machine-learning/self-attention"


def test_lesson_chat_streams_quizzes_and_remembers(page: Page, seeded_server: LiveServer) -> None:
    register_and_log_in(page, seeded_server.url)
    page.goto(seeded_server.url + LESSON)
    expect(page.get_by_role("heading", name="Tutor")).to_be_visible()
    expect(page.get_by_role("separator", name="Resize lesson and chat")).to_be_visible()
    chat = page.get_by_role("log", name="Conversation")

    page.get_by_role("radio", name="ELI5").click()
    expect(page.get_by_role("radio", name="ELI5")).to_have_attribute("aria-checked", "true")
    page.get_by_label("Your message").fill("Why do we divide by the square root of d_k?")
    page.get_by_role("button", name="Send").click()
    expect(chat.get_by_test_id("user-message")).to_have_count(1)
    reply = chat.get_by_test_id("assistant-message").last
    expect(reply.get_by_test_id("tool-call").first).to_be_visible()
    expect(page.get_by_role("button", name="Send")).to_be_enabled()
    expect(page.get_by_role("button", name="Stop")).to_be_hidden()  # only while a reply streams
    expect(reply.locator(".bubble")).not_to_be_empty()
    assert len(reply.locator(".bubble").inner_text()) > 40

    page.get_by_label("Your message").fill("quiz me")
    page.get_by_role("button", name="Send").click()
    expect(chat.get_by_test_id("assistant-message")).to_have_count(2)
    expect(page.get_by_role("button", name="Send")).to_be_enabled()
    card = chat.get_by_test_id("assistant-message").last.get_by_test_id("quiz-card")
    expect(card).to_be_visible()
    card.get_by_role("button").first.click()
    expect(card.get_by_role("status")).to_contain_text(re.compile("Correct!|Not quite"))
    expect(card.get_by_test_id("quiz-mastery")).to_contain_text("Mastery of")
    expect(card.locator("button.correct")).to_have_count(1)

    page.reload()
    expect(chat.get_by_test_id("user-message")).to_have_count(2)  # the last chat reopens
    page.get_by_text("History").click()
    page.get_by_role("button", name="New conversation").click()
    expect(chat.get_by_test_id("user-message")).to_have_count(0)
    conversation = page.get_by_role("list", name="Past conversations").get_by_role("button").first
    expect(conversation).to_contain_text("square root")
    conversation.click()
    expect(chat.get_by_test_id("user-message")).to_have_count(2)
    expect(chat.get_by_test_id("user-message").first).to_contain_text("square root of d_k")
    reopened = chat.get_by_test_id("assistant-message").last.get_by_test_id("quiz-card")
    expect(reopened.get_by_role("status")).to_contain_text("You answered this earlier")
    expect(reopened.locator("button.correct")).to_have_count(1)
    for option in reopened.get_by_role("button").all():
        expect(option).to_be_disabled()  # the first answer counted; no second try at mastery


def test_explore_empty_state_and_suggestion(page: Page, seeded_server: LiveServer) -> None:
    register_and_log_in(page, seeded_server.url)
    page.goto(seeded_server.url + "/explore")
    expect(page.get_by_test_id("chat-empty")).to_be_visible()
    page.get_by_role("group", name="Suggested prompts").get_by_role("button").first.click()
    expect(page.get_by_test_id("chat-empty")).to_have_count(0)
    log = page.get_by_role("log", name="Conversation")
    expect(log.get_by_test_id("user-message")).to_have_count(1)
    expect(page.get_by_role("button", name="Send")).to_be_enabled()
    assert log.get_by_test_id("assistant-message").inner_text().strip()


def test_explore_catalogue_draws_the_course_map(page: Page, seeded_server: LiveServer) -> None:
    register_and_log_in(page, seeded_server.url)
    page.goto(seeded_server.url + "/explore")
    ask(page, "What courses can I take?")
    reply = page.get_by_role("log", name="Conversation").get_by_test_id("assistant-message").last
    expect(reply).to_contain_text("Python Engineering Essentials")
    diagram = reply.locator("pre.mermaid svg")
    expect(diagram).to_be_visible()  # rendered, not a syntax-error box or raw source
    expect(diagram).to_contain_text("Supervised learning and evaluation")


def test_a_table_in_a_reply_renders_as_a_table_that_fits_a_phone(
    page: Page, seeded_server: LiveServer
) -> None:
    # "Choosing a built-in container" is a table: the answer quotes its rows that fit the question
    register_and_log_in(page, seeded_server.url)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(seeded_server.url + "/learn/python-engineering/python-data-model")
    page.get_by_role("tab", name="Tutor").click()
    ask(page, "deque vs list for a queue, is list.pop(0) really that slow?")
    reply = page.get_by_role("log", name="Conversation").get_by_test_id("assistant-message").last
    table = reply.locator(".table-scroll table")
    expect(table).to_be_visible()
    expect(table.locator("th").first).to_have_text("You need")
    expect(table.locator("td", has_text="collections.deque")).to_be_visible()
    assert "|---" not in reply.inner_text()
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390  # a wide table scrolls inside its own box, not the page

    page.set_viewport_size({"width": 1280, "height": 900})
    ask(page, "x" * 300)  # one unbroken word wraps inside its bubble
    overflow = page.evaluate(
        """() => {
          const bubbles = document.querySelectorAll('.msg.user .bubble');
          const last = bubbles[bubbles.length - 1];
          return last.scrollWidth - last.clientWidth;
        }"""
    )
    assert overflow <= 0
