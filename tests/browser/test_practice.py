from __future__ import annotations

import re

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
    runs_code = {_opening(q.text) for q in topic.questions if q.checks and q.checks.cases}
    assert runs_code, "the topic has a question whose answer is run"
    edited = 0

    # A blank answer is refused with the reason; the question is still there.
    page.get_by_label("Your answer").fill("  ?  ")
    page.get_by_role("button", name="Submit answer").click()
    expect(page.get_by_test_id("answer-error")).to_contain_text("write an answer first")
    expect(page.get_by_test_id("round-progress")).to_have_text("0 of 5 answered")
    expect(page.get_by_role("heading", name="Question 1 of 5", exact=True)).to_be_visible()
    # the Bloom level is explained where it is shown
    expect(page.get_by_test_id("question-level")).to_contain_text("where you")

    explained = False
    answered = 0
    while page.get_by_label("Your answer").count():
        text = _opening(page.get_by_test_id("question-text").inner_text())
        heading = page.get_by_role("heading", name=re.compile("^Question")).inner_text()
        weak = answered in (1, 4) and "try" not in heading
        # a question whose answer is run gets a code editor (line numbers, highlighting); the
        # answer box is still the form's field, filled through the editor
        editor = page.locator("#question .cm-editor")
        expect(editor).to_have_count(1 if text in runs_code else 0)
        if text in runs_code:
            expect(editor.locator(".cm-lineNumbers")).to_be_visible()
            edited += 1
        page.get_by_label("Your answer").fill("no idea" if weak else answers[text])
        page.get_by_role("button", name="Submit answer").click()
        answered += 1
        result = page.get_by_test_id("last-result")
        expect(result.get_by_test_id("your-answer")).to_have_text(
            "no idea" if weak else answers[text]
        )
        # a model answer, but not while the same question waits to be tried again
        expect(
            result.get_by_test_id("model-answer-later" if weak else "model-answer")
        ).to_be_visible()
        expect(page.get_by_test_id("mastery")).to_contain_text(
            "Mastery of Iterators, generators and itertools"
        )
        # one next action on a result: the next step's button, and no other form
        expect(result.locator("form")).to_have_count(0)
        expect(page.get_by_test_id("next-step").get_by_role("button")).to_have_count(1)
        if weak:
            number = heading.split(" of ")[0]  # "Question 2"
            expect(page.get_by_test_id("decision")).to_contain_text("missed the main idea")
            expect(page.get_by_test_id("feedback")).not_to_contain_text("RETRY")
            # the path planner asks it again, next, with a hint: the same question, its 2nd try
            step = page.get_by_test_id("next-step")
            expect(step).to_have_attribute("data-kind", "retry")
            expect(step.get_by_role("button")).to_have_text("Try this question again")
            expect(
                page.get_by_role("heading", name=f"{number} of 5 · second try", exact=True)
            ).to_be_visible()
            expect(page.get_by_test_id("hint")).not_to_be_empty()
            expect(page.get_by_test_id("hint")).not_to_have_text(re.compile(r"about \w+, \w+,"))
        else:
            expect(page.get_by_test_id("decision")).to_contain_text("strong answer")
            expect(page.get_by_test_id("next-step").get_by_role("button")).not_to_have_text(
                "Try this question again"
            )
        if weak and not explained:
            page.get_by_role("link", name="Explain what I missed another way").click()
            explanation = page.get_by_test_id("explanation")
            expect(explanation).to_contain_text("Another way to see it")
            # it explains what this answer missed, in the knowledge base's words
            missed = page.get_by_test_id("fix").first
            expect(missed).to_contain_text("A full answer says:")
            explained = True
    # seven answers (two retries), five questions
    expect(page.get_by_test_id("round-progress")).to_have_text("5 of 5 answered")
    assert answered == 7
    assert edited >= 1, "no question of the round offered the code editor"
    expect(page.get_by_role("status")).to_contain_text("Round complete")
    page.reload()
    tries = page.get_by_test_id("answered-item").filter(has_text="second try")
    expect(tries).to_have_count(2)


def test_a_double_clicked_submit_answers_the_question_once(
    page: Page, live_server: LiveServer
) -> None:
    register_and_log_in(page, live_server.url)
    page.goto(f"{live_server.url}/quiz")
    page.get_by_label("Topic").select_option("python/iterators-generators")
    page.get_by_role("button", name="Start practising").click()
    first = page.get_by_test_id("question-text").inner_text()
    page.get_by_label("Your answer").fill("A generator yields values lazily, one at a time.")
    # what a double click sends: the form posted twice at once, before either answer returns
    statuses = page.evaluate(
        """async () => {
            const form = document.querySelector("form[action$='/answer']");
            const send = () => fetch(form.action, {method: "POST", body: new FormData(form)});
            const replies = await Promise.all([send(), send()]);
            return replies.map((reply) => reply.status);
        }"""
    )
    assert statuses == [200, 200]  # both land on the round page, neither on an error
    page.reload()
    # one answer recorded: the next question waits, the same answer did not answer it too
    expect(page.get_by_test_id("round-progress")).to_have_text("1 of 5 answered")
    expect(page.get_by_test_id("question-text")).not_to_have_text(first)
