"""The course builder in a browser: an author uploads a Markdown file, a PDF and a DOCX, edits
the proposed structure, generates and reviews the quiz bank (each question once, in labelled
fields; a question of their own added), reads the readiness report, publishes, studies a lesson
with the tutor, shares the course with a second learner and sees them among its learners. The
build's progress reads as plain steps, never node names or log lines."""

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
    build = page.locator("#build")
    expect(build).to_have_attribute("data-phase", phase, timeout=WAIT)
    expect(build).to_have_attribute("data-state", "idle", timeout=WAIT)


def shown_words(page: Page) -> str:
    """What the builder says about its progress: the status line, the steps and the details."""
    return " ".join(
        page.get_by_test_id(name).inner_text() for name in ("status", "build-steps", "messages")
    ) + " " + page.get_by_test_id("progress-log").text_content()  # fmt: skip


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
    expect(page.get_by_test_id("messages")).to_contain_text("I read 3 files")
    expect(page.get_by_test_id("status")).to_have_text(
        "Your files are read. Next: propose a structure."
    )
    steps = page.get_by_test_id("build-steps")
    expect(steps).to_be_visible()
    expect(steps.locator("li")).to_have_text(
        ["Reading your files", "Building the lessons", "Writing quiz questions",
         "Checking the questions", "Ready to review"]
    )  # fmt: skip
    expect(page.get_by_test_id("progress-details")).not_to_have_attribute("open", "")

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
    note = page.get_by_test_id("review-note")
    expect(note).to_contain_text("is now “Writing functions”", timeout=WAIT)
    expect(note).to_contain_text("Merged “Parameters and arguments”")
    expect(page.get_by_label("Title of Writing functions")).to_be_visible()
    expect(page.get_by_label("Title of Parameters and arguments")).to_have_count(0)  # merged
    page.get_by_role("button", name="Drop Reading tracebacks").click()
    expect(page.get_by_label("Title of Reading tracebacks")).to_have_count(0, timeout=WAIT)
    page.get_by_test_id("approve-structure").click()
    wait_ready(page, "structure_approved")

    page.get_by_role("button", name="Write the quiz bank").click()
    expect(page.get_by_test_id("approve-quiz")).to_be_visible(timeout=WAIT)
    expect(page.get_by_test_id("status")).to_have_text(
        "Ready to review: check the questions below, then approve them."
    )
    words = shown_words(page)
    for internal in ("starting:", "build_structure", "generate_quiz", "(s)", "Ready ("):
        assert internal not in words, (internal, words)
    summary = page.get_by_test_id("quiz-summary").inner_text()
    kept = int(summary.split()[0])
    assert kept >= 3, summary
    review_each_question_once(page, kept)
    kept = add_a_question(page, kept)
    page.locator("[data-drop-item]").first.check()
    page.get_by_test_id("approve-quiz").click()
    wait_ready(page, "validated")
    expect(page.get_by_test_id("quiz-summary")).to_contain_text(f"{kept - 1} questions kept")
    expect(page.get_by_test_id("readiness")).to_contain_text(
        re.compile(r"Readiness \d+ out of 100")
    )
    expect(page.get_by_test_id("report")).to_contain_text("Answers found in your material")

    page.locator("[data-action=publish]").click()
    anyway, link = page.get_by_test_id("publish-anyway"), page.get_by_test_id("course-link")
    expect(anyway.or_(link).first).to_be_visible(timeout=WAIT)
    if anyway.is_visible():  # below the readiness bar, publishing asks to confirm
        anyway.click()
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

    # The author, a learner by role, sees who studies the course they published.
    page.goto(base + "/create")
    expect(page.get_by_test_id("builds")).to_contain_text("Published")
    page.get_by_test_id("course-learners").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Python basics")
    expect(page.get_by_test_id("cohort-size")).to_have_text(
        re.compile(r"^1 learner in this course's cohort")
    )


def review_each_question_once(page: Page, kept: int) -> None:
    """Each kept question appears once, in a field with a visible label; every field of the
    review has one."""
    items = page.locator("#quiz-body li[data-item]")
    expect(items).to_have_count(kept)
    first = items.first
    question = first.get_by_label("Question", exact=True).input_value()
    assert question and first.inner_text().count(question.splitlines()[0]) == 0  # not as text
    shown = [i.get_by_label("Question", exact=True).input_value() for i in items.all()]
    assert len(shown) == len(set(shown)) == kept, shown
    fields = page.locator("#quiz-body textarea, #quiz-body input, #quiz-body select")
    for field in fields.all():
        field_id = field.get_attribute("id")
        assert field_id, field.evaluate("e => e.outerHTML")
        label = page.locator(f"label[for='{field_id}']")
        expect(label).to_be_visible()
        assert label.inner_text().strip()
    expect(first).to_contain_text(re.compile(r"level: \w+ \(.+\)"))  # a level says what it means
    expect(page.get_by_test_id("bloom-explained")).to_contain_text("Levels of understanding")


def add_a_question(page: Page, kept: int) -> int:
    """The author adds a question: a too-short one is refused on the page, a repeat of a kept
    one is refused with the reason, a new one joins the bank. Returns the new count."""
    form = page.get_by_test_id("add-question")
    form.get_by_label("Lesson").select_option(label="Writing functions")
    form.get_by_label("Question", exact=True).fill("Why?")
    form.get_by_role("button", name="Add the question").click()
    expect(page.get_by_test_id("add-errors")).to_have_text(
        "Write the question (at least 5 characters). Write its model answer (at least 3 "
        "characters)."
    )
    first = page.locator("#quiz-body li[data-item]").first
    repeat, answer = (
        first.get_by_label("Question", exact=True).input_value(),
        first.get_by_label("Model answer").input_value(),
    )
    lesson = first.locator("p.muted").first.inner_text().split(" · ")[0]
    form.get_by_label("Lesson").select_option(label=lesson)
    form.get_by_label("Question", exact=True).fill(repeat)
    form.get_by_label("Model answer").fill(answer)
    form.get_by_role("button", name="Add the question").click()
    expect(page.get_by_test_id("quiz-note")).to_contain_text(
        "That edit did not apply", timeout=WAIT
    )
    expect(page.get_by_test_id("quiz-note")).to_contain_text("already has this question")
    form = page.get_by_test_id("add-question")
    form.get_by_label("Lesson").select_option(label="Writing functions")
    mine = "When would you write a function instead of repeating the same lines?"
    form.get_by_label("Question", exact=True).fill(mine)
    form.get_by_label("Model answer").fill("When the same steps are needed in several places.")
    form.get_by_label("Level of understanding").select_option("apply")
    form.get_by_role("button", name="Add the question").click()
    expect(page.get_by_test_id("quiz-note")).to_have_text("1 edit applied.", timeout=WAIT)
    expect(page.locator("#quiz-body li[data-item]")).to_have_count(kept + 1)
    added = page.locator("#quiz-body li[data-item]").last
    expect(added.get_by_label("Question", exact=True)).to_have_value(mine)
    expect(added).to_contain_text("Writing functions · level: apply")
    return kept + 1
