"""The course builder in a browser: an author uploads a Markdown file, a PDF and a DOCX, edits
the proposed structure, generates and reviews the quiz bank, reads the readiness report,
publishes, studies a lesson with the tutor, and shares the course with a second learner."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.accounts import register_and_log_in
from tests.browser.chat import ask
from tests.constructor.sources import write_sources
from tests.fakes.live_server import LiveServer

pytestmark = pytest.mark.browser
WAIT = 30_000


def wait_ready(page: Page, phase: str) -> None:
    expect(page.get_by_test_id("status")).to_have_text(f"Ready ({phase}).", timeout=WAIT)


def test_an_author_builds_publishes_and_shares_a_course(
    page: Page, browser: Browser, live_server: LiveServer, tmp_path: Path
) -> None:
    base = live_server.url
    files = write_sources(tmp_path / "sources")
    bad = tmp_path / "scan.pdf"
    bad.write_bytes(b"\x00\x01\x02 not a pdf at all")
    register_and_log_in(page, base, name="Ann", email="ann@example.org")

    page.goto(base + "/create")
    page.get_by_label("Course title").fill("Python basics")
    page.get_by_role("button", name="Start a new course").click()
    expect(page.get_by_test_id("messages")).to_contain_text("Upload your files")

    page.get_by_role("button", name="Upload").click()  # nothing chosen yet
    expect(page.get_by_test_id("upload-errors")).to_have_text("Choose one or more files first.")
    page.get_by_label(re.compile("^Files")).set_input_files([str(f) for f in files] + [str(bad)])
    page.get_by_role("button", name="Upload").click()
    expect(page.get_by_test_id("uploads").locator("li")).to_have_count(3, timeout=WAIT)
    expect(page.get_by_test_id("upload-errors")).to_contain_text(
        "scan.pdf: is not a supported file"
    )

    page.get_by_role("button", name="Read my files").click()
    wait_ready(page, "ingested")
    expect(page.get_by_test_id("messages")).to_contain_text("I read 3 file(s)")

    page.get_by_role("button", name="Propose a structure").click()
    approve = page.get_by_test_id("approve-structure")
    expect(approve).to_be_visible(timeout=WAIT)
    structure = page.get_by_test_id("structure")
    expect(structure).to_contain_text("For loops")  # a PDF heading
    expect(structure).to_contain_text("Handling exceptions")  # a DOCX heading
    page.get_by_label("Title of Defining functions").fill("Writing functions")
    page.get_by_label("Select Return values").check()
    page.get_by_label("Select Parameters and arguments").check()
    page.get_by_test_id("apply-structure").click()
    expect(page.get_by_test_id("review-note")).to_have_text("2 edit(s) applied.", timeout=WAIT)
    expect(page.get_by_label("Title of Writing functions")).to_be_visible()
    expect(page.get_by_label("Title of Parameters and arguments")).to_have_count(0)  # merged
    page.get_by_role("button", name="Drop Reading tracebacks").click()
    expect(page.get_by_label("Title of Reading tracebacks")).to_have_count(0, timeout=WAIT)
    page.get_by_test_id("approve-structure").click()
    wait_ready(page, "structure approved")

    page.get_by_role("button", name="Write the quiz bank").click()
    expect(page.get_by_test_id("approve-quiz")).to_be_visible(timeout=WAIT)
    summary = page.get_by_test_id("quiz-summary").inner_text()
    kept = int(summary.split()[0])
    assert kept >= 3, summary
    page.locator("[data-drop-item]").first.check()
    page.get_by_test_id("approve-quiz").click()
    wait_ready(page, "validated")
    expect(page.get_by_test_id("quiz-summary")).to_contain_text(f"{kept - 1} question(s) kept")
    expect(page.get_by_test_id("readiness")).to_contain_text(re.compile(r"Readiness \d+/100"))
    expect(page.get_by_test_id("report")).to_contain_text("answerability")

    page.locator("[data-action=publish]").click()
    link = page.get_by_test_id("course-link")
    expect(link).to_be_visible(timeout=WAIT)
    link.click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Python basics")
    expect(page.get_by_test_id("share-panel")).to_contain_text("private")

    page.get_by_role("link", name="Writing functions").click()
    expect(page.get_by_role("button", name="Send", exact=True)).to_be_enabled()
    ask(page, "What does a return value do?")
    reply = page.get_by_role("log", name="Conversation").get_by_test_id("assistant-message").last
    expect(reply).to_contain_text("return", ignore_case=True)

    page.go_back()
    page.get_by_test_id("make-share-link").click()
    share_url = page.get_by_test_id("share-url").input_value()
    assert "/join/" in share_url

    other = browser.new_context()
    friend = other.new_page()
    try:
        friend.goto(base + "/learn/python-basics")
        expect(friend.get_by_role("heading", level=1)).not_to_have_text("Python basics")
        register_and_log_in(friend, base, name="Bo", email="bo@example.org")
        friend.goto(base + "/learn")
        expect(friend.locator("[data-section=shared]")).to_have_count(0)
        friend.goto(share_url)
        friend.get_by_test_id("join-course").click()
        expect(friend.get_by_role("heading", level=1)).to_have_text("Python basics")
        friend.goto(base + "/learn")
        expect(friend.locator("[data-section=shared]")).to_contain_text("Python basics")
    finally:
        other.close()
