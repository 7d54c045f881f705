"""One next step: after a practice answer, the result's next step, the home card and the
Continue button lead to the same place under the same title, at desktop and phone widths; the
tutor is opened without a message in the learner's name."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import Page, expect

from tests.browser.accounts import register_and_log_in
from tests.browser.chat import page_overflow
from tests.fakes.live_server import LiveServer
from tutorgraph.knowledge import get_domain

pytestmark = pytest.mark.browser

TOPIC = get_domain("python").topic("python-data-model")
WIDTHS = (1280, 390)


def reference_for(page: Page) -> str:
    shown = " ".join(page.get_by_test_id("question-text").inner_text().replace("`", "").split())
    return next(
        q.reference_answer
        for q in TOPIC.questions
        if " ".join(q.text.replace("`", "").split())[:40] in shown
    )


def answer(page: Page, text: str) -> None:
    page.get_by_label("Your answer").fill(text)
    page.get_by_role("button", name="Submit answer").click()
    expect(page.get_by_test_id("last-result")).to_be_visible()


def shown_step(page: Page) -> tuple[str, str]:
    card = page.get_by_test_id("next-step")
    expect(card).to_be_visible()
    return card.get_by_test_id("next-title").inner_text(), str(card.get_attribute("data-target"))


def start_round(page: Page, base: str) -> None:
    page.goto(base + "/quiz")
    page.get_by_label("Topic").select_option("python/python-data-model")
    page.get_by_role("button", name="Start practising").click()


@pytest.mark.parametrize("width", WIDTHS)
def test_result_home_and_continue_show_one_step(
    page: Page, seeded_server: LiveServer, width: int
) -> None:
    base = seeded_server.url
    page.set_viewport_size({"width": width, "height": 900})
    register_and_log_in(page, base)
    expect(page).to_have_url(base + "/")
    expect(page.get_by_test_id("welcome")).to_have_text("Welcome, Lin")  # the first visit

    start_round(page, base)
    round_url = page.url.split("#")[0]
    answer(page, "no idea")
    title, target = shown_step(page)
    assert title == "Question 1 of 5 · second try, with a hint"
    assert target == urlparse(round_url).path + "#question"
    assert page_overflow(page)["width"] <= width

    page.goto(base + "/")
    expect(page.get_by_test_id("welcome")).to_have_text("Welcome back, Lin")
    assert shown_step(page) == (title, target)  # the home card: the same step
    assert page_overflow(page)["width"] <= width
    page.get_by_test_id("next-step").get_by_role("button").click()
    expect(page).to_have_url(re.compile(re.escape(round_url) + "#question$"))
    # Continue opened the question the step named, numbered as the same question
    expect(
        page.get_by_role("heading", name="Question 1 of 5 · second try", exact=True)
    ).to_be_visible()

    answer(page, reference_for(page))
    expect(page.get_by_test_id("decision")).to_contain_text("strong answer")
    title, target = shown_step(page)
    assert title == "Go on to question 2 of 5"
    reason = page.get_by_test_id("next-reason").inner_text()
    assert "did not hold together" not in reason and reason.startswith("A strong answer")
    page.goto(base + "/")
    assert shown_step(page) == (title, target)
    page.get_by_test_id("next-step").get_by_role("button", name="Continue").click()
    expect(page.get_by_role("heading", name="Question 2 of 5", exact=True)).to_be_visible()


def test_a_round_that_showed_a_gap_ends_with_the_tutor_who_speaks_first(
    page: Page, seeded_server: LiveServer
) -> None:
    base = seeded_server.url
    register_and_log_in(page, base)
    start_round(page, base)
    for attempt in ("second try", "third try"):
        answer(page, "no idea")
        expect(
            page.get_by_role("heading", name=f"Question 1 of 5 · {attempt}", exact=True)
        ).to_be_visible()
    answer(page, "no idea")  # no try left: the step stays in the round
    title, _ = shown_step(page)
    assert title == "Go on to question 2 of 5"
    expect(page.get_by_test_id("next-reason")).to_contain_text(
        "After the round: see Objects, types and mutability explained another way"
    )
    while page.get_by_label("Your answer").count():
        answer(page, reference_for(page))
        if page.get_by_label("Your answer").count():  # mid-round: never away from it
            expect(page.get_by_test_id("next-step")).to_have_attribute("data-kind", "practice")
    title, target = shown_step(page)
    assert title == "See Objects, types and mutability explained another way"
    page.goto(base + "/")
    assert shown_step(page) == (title, target)
    page.get_by_test_id("next-step").get_by_role("button", name="Continue").click()
    expect(page).to_have_url(re.compile(r"/learn/python-engineering/python-data-model"))
    query = parse_qs(urlparse(target).query)
    assert "ask" not in query and query["focus"] == ["python-data-model"]
    # nothing was said in the learner's name
    log = page.get_by_role("log", name="Conversation")
    expect(log.get_by_test_id("user-message")).to_have_count(0)
