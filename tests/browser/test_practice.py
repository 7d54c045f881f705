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

    # A blank answer is refused with the reason; the question is still there.
    page.get_by_label("Your answer").fill("  ?  ")
    page.get_by_role("button", name="Submit answer").click()
    expect(page.get_by_test_id("answer-error")).to_contain_text("write an answer first")
    expect(page.get_by_test_id("round-progress")).to_have_text("0 of 5 answered")

    explained = False
    answered = 0
    while page.get_by_label("Your answer").count():
        text = _opening(page.get_by_test_id("question-text").inner_text())
        heading = page.get_by_role("heading", name=re.compile("^Question")).inner_text()
        weak = answered in (1, 4) and "attempt" not in heading
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
        if weak:
            expect(page.get_by_test_id("decision")).to_have_text("Try it again")
            expect(page.get_by_test_id("feedback")).not_to_contain_text("RETRY")
            # the path planner asks it again, next, with a hint
            expect(page.get_by_test_id("next-step")).to_have_attribute("data-kind", "retry")
            expect(page.get_by_role("heading", name=re.compile("attempt 2"))).to_be_visible()
            expect(page.get_by_test_id("hint")).not_to_be_empty()
        else:
            expect(page.get_by_test_id("decision")).to_have_text(re.compile("Mastered|Good"))
        if weak and not explained:
            page.get_by_role("link", name="Explain it another way").click()
            expect(page.get_by_test_id("explanation")).to_contain_text("Another way to see it")
            explained = True
    expect(page.get_by_test_id("round-progress")).to_have_text(f"{answered} of 7 answered")
    expect(page.get_by_role("status")).to_contain_text("Round complete")
    page.reload()
    expect(page.get_by_role("listitem").filter(has_text="(Try it again)")).to_have_count(2)


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
