from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.accounts import register_and_log_in
from tests.fakes.live_server import LiveServer

pytestmark = pytest.mark.browser

# The issue measured a 12,000 px report on a phone; collapsed answers keep a short assessment's
# report within a few screens (844 px each).
REPORT_HEIGHT_LIMIT = 8_000


def test_a_short_assessment_from_start_to_report(page: Page, live_server: LiveServer) -> None:
    register_and_log_in(page, live_server.url, name="Alan Turing", email="alan@example.org")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Assess").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Assess your skills")
    page.get_by_label("Domain").select_option("machine-learning")
    page.get_by_label("Target level").select_option("junior")
    page.get_by_role("button", name="Start assessment").click()

    expected_topics = [
        "Supervised learning fundamentals",
        "Linear and logistic regression",
        "Model evaluation and validation",
        "Overfitting, bias-variance and regularization",
        "Decision trees and ensembles",
    ]
    # A blank answer is refused on the page itself; nothing is counted.
    page.get_by_label("Your answer").fill("   ")
    page.get_by_role("button", name="Submit answer").click()
    expect(page.get_by_test_id("answer-error")).to_contain_text("write an answer first")
    expect(page.get_by_test_id("question-number")).to_have_text("1")
    for number, topic in enumerate(expected_topics, start=1):
        expect(page.get_by_role("heading", level=2)).to_have_text(topic)
        expect(page.get_by_test_id("question-number")).to_have_text(str(number))
        expect(page.get_by_test_id("topic-number")).to_have_text(str(number))
        expect(page.get_by_test_id("assess-progress")).not_to_contain_text("at most 20")
        expect(page.get_by_test_id("questions-left")).to_contain_text(
            "more question" if number < 5 else "last question"
        )
        expect(page.get_by_test_id("question-text")).not_to_be_empty()
        page.get_by_label("Your answer").fill("I don't know.")
        page.get_by_role("button", name="Submit answer").click()

    expect(page.get_by_role("heading", level=1)).to_contain_text("report")
    readiness = int(page.get_by_test_id("readiness").inner_text())
    assert 0 <= readiness < 20
    graph = page.get_by_role("img", name="Knowledge graph: 5 topics, 5 prerequisite edges")
    expect(graph).to_be_visible()
    expect(graph.locator("g.kg-node")).to_have_count(5)
    box = graph.bounding_box()
    assert box is not None and box["width"] > 300 and box["height"] > 60
    gaps = page.get_by_test_id("gaps")
    expect(gaps.locator("tbody tr")).to_have_count(5)
    expect(gaps).to_contain_text("critical")
    phases = page.get_by_test_id("plan").locator("> li")
    expect(phases).to_have_count(3)
    expect(phases.first).to_contain_text("h")
    expect(page.get_by_test_id("ended-because")).to_contain_text("every topic")
    review = page.get_by_test_id("review").locator("> li")
    expect(review).to_have_count(5)
    expect(review.first.locator("blockquote")).to_be_hidden()  # collapsed until opened
    review.first.locator("summary").click()
    expect(review.first).to_contain_text("I don't know.")
    practise = page.get_by_role("button", name="practise Supervised learning fundamentals")
    expect(practise).to_be_visible()

    # On a 390 px phone the report fits the screen's width: nothing scrolls sideways.
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the report is {width} px wide on a 390 px screen"
    expect(gaps.locator("tbody tr").first).to_be_visible()
    page.set_viewport_size({"width": 1280, "height": 800})

    page.get_by_role("link", name="Back to Assess").click()
    expect(page.get_by_test_id("my-assessments")).to_contain_text("complete")


def test_finish_now_after_two_answers_at_desktop_and_phone_width(
    page: Page, live_server: LiveServer
) -> None:
    register_and_log_in(page, live_server.url, name="Grace Hopper", email="grace@example.org")
    page.goto(f"{live_server.url}/assess")
    expect(page.get_by_test_id("how-graded")).to_contain_text("key points")
    expect(page.locator("main")).not_to_contain_text("matches words, not meaning")
    page.get_by_label("Domain").select_option("python")
    page.get_by_label("Target level").select_option("mid")
    page.get_by_role("button", name="Start assessment").click()
    expect(page.get_by_role("button", name="Finish now")).to_have_count(0)  # nothing answered
    page.get_by_label("Your answer").fill("I don't know.")
    page.get_by_role("button", name="Submit answer").click()
    expect(page.get_by_test_id("question-number")).to_have_text("2")
    # The answer in the box is graded, then the assessment ends.
    page.get_by_label("Your answer").fill("Not sure about this one either.")
    page.get_by_role("button", name="Finish now").click()

    expect(page.get_by_role("heading", level=1)).to_contain_text("report")
    expect(page.get_by_test_id("ended-because")).to_contain_text("You finished it after 2 answers")
    not_assessed = page.get_by_test_id("not-assessed")
    expect(not_assessed).to_contain_text("Functions, arguments and scope")
    expect(page.get_by_test_id("gaps").locator("tbody tr")).to_have_count(2)
    answers = page.get_by_test_id("answer-feedback")
    expect(answers).to_have_count(2)
    expect(answers.nth(1).locator("blockquote")).to_be_hidden()
    answers.nth(1).locator("summary").click()
    expect(answers.nth(1).locator("blockquote")).to_have_text("Not sure about this one either.")

    # A phone: nothing scrolls sideways; the collapsed report stays short.
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the report is {width} px wide on a 390 px screen"
    graph = page.get_by_test_id("knowledge-graph").bounding_box()
    assert graph is not None and graph["width"] <= 390
    height = page.evaluate("document.documentElement.scrollHeight")
    assert height < REPORT_HEIGHT_LIMIT, f"the report is {height} px tall on a phone"
    # Finishing again (another tab) shows the same report.
    page.goto(page.url.removesuffix("/report"))
    expect(page.get_by_test_id("answer-feedback")).to_have_count(2)
