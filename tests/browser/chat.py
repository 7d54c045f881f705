"""Talking to the tutor through the page, and measuring what the learner sees."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect

LESSON = "/learn/modern-machine-learning/self-attention"


def ask(page: Page, text: str) -> None:
    """Send a message and wait until the tutor's reply has finished streaming."""
    log = page.get_by_role("log", name="Conversation")
    before = log.get_by_test_id("user-message").count()
    page.get_by_label("Your message").fill(text)
    page.get_by_role("button", name="Send", exact=True).click()
    expect(log.get_by_test_id("user-message")).to_have_count(before + 1)
    expect(page.get_by_role("button", name="Stop", exact=True)).to_be_hidden()
    expect(page.get_by_role("button", name="Send", exact=True)).to_be_enabled()


def page_overflow(page: Page) -> dict[str, float]:
    """How far the document scrolls below the footer (0 when the page ends with its content)
    and how wide it is."""
    result: dict[str, float] = page.evaluate(
        """() => {
          const footer = document.querySelector('.site-footer').getBoundingClientRect();
          const doc = document.documentElement;
          return {below_footer: doc.scrollHeight - (footer.bottom + window.scrollY),
                  width: doc.scrollWidth};
        }"""
    )
    return result


def visible_in_log(page: Page, selector: str) -> dict[str, Any]:
    """The part of the last element matching `selector` that the chat log shows, in px."""
    result: dict[str, Any] = page.evaluate(
        """(selector) => {
          const log = document.querySelector('.chat-log').getBoundingClientRect();
          const all = document.querySelectorAll('.chat-log ' + selector);
          const box = all[all.length - 1].getBoundingClientRect();
          const shown = Math.max(0, Math.min(box.bottom, log.bottom) - Math.max(box.top, log.top));
          return {shown: shown, height: box.height, log: log.height,
                  top_inside: box.top >= log.top - 1 && box.top < log.bottom};
        }""",
        selector,
    )
    return result
