"""A mock interview in a browser: a learner starts one from a pasted resume, answers the
interviewer (asking for the technical part), runs code in the code editor, ends the interview and
reads the scorecard (the clock stops at its length); the pages fit a phone; deleting the resume
deletes its interview; questions with code keep their lines."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.accounts import register_and_log_in
from tests.fakes.live_server import LiveServer
from tutorgraph.interview.compose import say
from tutorgraph.interview.schemas import UtteranceRequest
from tutorgraph.knowledge import shipped_domains
from tutorgraph.sandbox import sandbox_available

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not sandbox_available(), reason="the code run needs bubblewrap"),
]
WAIT = 30_000

RESUME = """\
Maya Lindqvist
Data engineer · maya@example.org

Summary
Data engineer with four years of experience building batch pipelines and reports in Python.

Experience
Data Engineer, Northwind Analytics (2021-2024)
- Built a pandas ETL pipeline that loads two million orders a day into PostgreSQL
- Cut the nightly sales report from 40 to 6 minutes by rewriting its SQL queries
- Mentored two junior engineers through code review

Projects
- Flight delay predictor: a scikit-learn model over public flight data, served with FastAPI
- Budget tracker: a command-line Python app that sorts bank transactions into categories with SQL

Skills
Python, pandas, SQL

Education
BSc Computer Science, University of Gothenburg, 2020
"""
SCORE_LABELS = ["Overall", "Communication", "Technical", "Problem solving", "Code quality"]


def answer(page: Page, text: str, *, press_enter: bool = True) -> None:
    """Send an answer and wait until the interviewer's turn has finished."""
    transcript = page.get_by_test_id("transcript")
    mine = transcript.get_by_test_id("candidate-message")
    theirs = transcript.get_by_test_id("interviewer-message")
    before, asked = mine.count(), theirs.count()
    box = page.get_by_label("Your answer", exact=True)
    box.fill(text)
    if press_enter:
        box.press("Enter")
    else:
        page.get_by_role("button", name="Send", exact=True).click()
    expect(mine).to_have_count(before + 1)
    expect(mine.last).to_contain_text(text)
    expect(page.get_by_role("button", name="Send", exact=True)).to_be_enabled(timeout=WAIT)
    expect(page.get_by_test_id("status")).to_have_text("Your turn.")
    expect(box).to_have_value("")
    assert theirs.count() > asked, "the interviewer said nothing back"


def page_width(page: Page) -> int:
    width: int = page.evaluate("document.documentElement.scrollWidth")
    return width


def test_a_mock_interview_from_resume_to_scorecard(
    page: Page, live_server: LiveServer, tmp_path: Path
) -> None:
    base = live_server.url
    register_and_log_in(page, base, name="Maya", email="maya@example.org")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Interview").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Mock interview")
    expect(page.get_by_test_id("no-interviews")).to_have_text("No interviews yet.")
    expect(page.get_by_label("Role")).to_have_value("Software engineer")
    expect(page.get_by_label("Level")).to_have_value("mid")
    start = page.get_by_role("button", name="Start interview")
    error = page.get_by_test_id("start-error")

    # Nothing to read: refused on the page, which stays put.
    start.click()
    expect(error).to_have_text("Choose a resume file or paste your resume first.")
    expect(page).to_have_url(base + "/interview")

    # A file that is not what it says: the server's problem is shown where the form is.
    fake = tmp_path / "resume.pdf"
    fake.write_bytes(b"\x00\x01\x02 not a pdf at all")
    page.get_by_label(re.compile("^Resume file")).set_input_files(str(fake))
    start.click()
    expect(error).to_contain_text("is not a supported file", timeout=WAIT)
    expect(start).to_be_enabled()
    page.get_by_label(re.compile("^Resume file")).set_input_files([])

    page.get_by_label("Or paste your resume").fill(RESUME)
    start.click()
    expect(page).to_have_url(re.compile(r"/interview/[^/?#]+$"), timeout=WAIT)

    # The session: who it is for, a running clock, the phase and how much of the resume is covered.
    expect(page.get_by_role("heading", level=1)).to_contain_text("Software engineer")
    expect(page.get_by_test_id("level")).to_have_text("mid")
    timer = page.get_by_test_id("timer")
    expect(timer).to_have_text(re.compile(r"^\d\d:\d\d$"))
    shown = timer.inner_text()
    expect(timer).not_to_have_text(shown, timeout=5_000)
    expect(page.get_by_test_id("coverage")).to_have_text(
        re.compile(r"^\d+ of [1-9]\d* resume topics? explored$")
    )
    expect(page.get_by_test_id("phase")).not_to_be_empty()
    transcript = page.get_by_test_id("transcript")
    greeting = transcript.get_by_test_id("interviewer-message")
    expect(greeting.first).to_contain_text(re.compile(r"\w{3,}"))
    expect(transcript.get_by_test_id("candidate-message")).to_have_count(0)

    answer(
        page,
        "At Northwind I built the pandas ETL pipeline: it cleans the order files with pandas "
        "and loads them into PostgreSQL with COPY, which made the nightly load much faster.",
    )
    answer(page, "Can we do a technical assessment?")
    expect(page.get_by_test_id("phase")).to_have_text("Technical questions")

    # Shift+Enter starts a new line instead of sending.
    box = page.get_by_label("Your answer", exact=True)
    box.fill("For the budget tracker I used SQLite")
    box.press("Shift+Enter")
    expect(box).to_have_value("For the budget tracker I used SQLite\n")
    expect(transcript.get_by_test_id("candidate-message")).to_have_count(2)
    answer(
        page, "For the budget tracker I used SQLite\nand wrote the rules in SQL.", press_enter=False
    )
    expect(transcript.get_by_test_id("candidate-message")).to_have_count(3)

    # The editor (CodeMirror, served by the app): it has the box's label, Tab indents, lines
    # are numbered and Python is highlighted; the textarea it replaces follows every edit.
    code = page.get_by_label("Code", exact=True)
    expect(code).to_have_attribute("contenteditable", "true")
    field = page.locator("textarea#code")
    code.click()
    code.press("Tab")
    expect(field).to_have_value("    ")
    code.fill("def total(n):\n    return sum(range(n))\n\nprint(total(10))")
    expect(field).to_have_value("def total(n):\n    return sum(range(n))\n\nprint(total(10))")
    editor = page.locator(".iv-editor .code-editor")
    expect(editor.locator(".cm-lineNumbers .cm-gutterElement", has_text="4")).to_be_visible()
    expect(editor.locator(".tok-keyword", has_text="def")).to_be_visible()
    expect(editor.locator(".tok-keyword", has_text="return")).to_be_visible()
    page.get_by_role("button", name="Run", exact=True).click()
    output = page.get_by_test_id("code-output")
    expect(output.get_by_test_id("code-stdout")).to_have_text(
        re.compile(r"^\s*45\s*$"), timeout=WAIT
    )
    expect(output).to_contain_text("Ran successfully")
    # Esc then Tab leaves the editor (Tab alone indented above).
    code.press("Escape")
    code.press("Tab")
    expect(code).not_to_be_focused()

    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="End interview").click()
    scorecard = page.get_by_test_id("scorecard")
    expect(scorecard).to_be_visible(timeout=WAIT)
    for label in SCORE_LABELS:
        expect(scorecard.get_by_role("heading", name=label, exact=True)).to_be_visible()
    expect(scorecard.get_by_test_id("score-overall")).to_contain_text(
        re.compile(r"\d+/100|not assessed")
    )
    expect(scorecard.get_by_role("heading", name="Strengths")).to_be_visible()
    expect(scorecard.get_by_role("heading", name="Recommendations")).to_be_visible()
    expect(scorecard.get_by_test_id("ended-because")).not_to_be_empty()
    expect(scorecard.get_by_role("button", name="Print scorecard")).to_be_visible()
    expect(page.get_by_label("Your answer", exact=True)).to_be_disabled()
    expect(page.get_by_role("button", name="Send", exact=True)).to_be_disabled()
    expect(page.get_by_role("button", name="End interview")).to_be_hidden()
    expect(page.get_by_test_id("status")).to_contain_text("complete")
    expect(code).to_have_attribute("contenteditable", "false")  # the editor is read-only now
    # The clock stopped at the interview's length, the one the scorecard states.
    length = timer.inner_text()
    expect(scorecard).to_contain_text(f"length {length}.")

    # On a 390 px phone the finished interview fits the screen's width.
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    expect(scorecard).to_be_visible()
    expect(transcript.get_by_test_id("candidate-message")).to_have_count(3)
    expect(timer).to_have_text(length)  # reopened later, the same length
    expect(scorecard).to_contain_text(f"length {length}.")
    assert page_width(page) <= 390, f"the interview is {page_width(page)} px wide on a phone"
    page.get_by_role("button", name="Menu").click()  # the navigation folds away on a phone
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Interview").click()
    expect(page.get_by_test_id("interviews")).to_contain_text("complete")
    assert page_width(page) <= 390, f"/interview is {page_width(page)} px wide on a phone"
    page.set_viewport_size({"width": 1280, "height": 800})

    # Deleting the resume (after a confirmation) deletes its interview too.
    resumes = page.get_by_test_id("resumes").get_by_role("listitem")
    expect(resumes).to_have_count(1)
    page.once("dialog", lambda dialog: dialog.accept())
    resumes.first.get_by_role("button", name=re.compile("^Delete")).click()
    expect(resumes).to_have_count(0, timeout=WAIT)
    expect(page.get_by_test_id("no-resumes")).to_have_text("No resumes stored.")
    expect(page.get_by_test_id("no-interviews")).to_have_text("No interviews yet.")


def test_questions_with_code_keep_their_lines(page: Page, live_server: LiveServer) -> None:
    """Every knowledge-base question with code, as the interviewer asks it, shows its code as a
    block with its lines (the pytest question's code once ran together on one line)."""
    asked = [
        say(
            UtteranceRequest(
                kind="technical",
                role="Dev",
                level="mid",
                kb_question=question.text,
                topic_title=topic.title,
            )
        )
        for kb in shipped_domains().values()
        for topic in kb.domain.topics
        for question in topic.questions
        if "\n    " in question.text or "```" in question.text
    ]
    assert len(asked) >= 10
    register_and_log_in(page, live_server.url, name="Maya", email="maya@example.org")
    page.goto(live_server.url + "/interview")
    page.get_by_label("Or paste your resume").fill(RESUME)
    page.get_by_role("button", name="Start interview").click()
    expect(page.get_by_test_id("interviewer-message").first).to_be_visible(timeout=WAIT)
    shown: list[list[str]] = page.evaluate(
        """(texts) => texts.map((text) => {
             const box = document.createElement('div');
             box.innerHTML = window.tutorgraphMarkdown.markdown(text);
             return [...box.querySelectorAll('pre code')].map((c) => c.textContent);
           })""",
        asked,
    )
    for text, blocks in zip(asked, shown, strict=True):
        code_lines = [
            line[4:] for line in text.splitlines() if line.startswith("    ") and line.strip()
        ]
        if not code_lines:
            continue  # fenced code: its lines are the fence's
        lines = "\n".join(blocks).splitlines()
        missing = [line for line in code_lines if line not in lines]
        assert not missing, f"lost or run together in {text[:60]!r}: {missing}"
