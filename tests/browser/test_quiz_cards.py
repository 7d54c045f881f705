"""Quiz cards, citations and tool chips in the lesson chat, in a real browser."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.accounts import register_and_log_in
from tests.browser.chat import LESSON, ask
from tests.browser.conftest import REPO_CONTENT
from tests.conftest import make_settings
from tests.fakes.live_server import LiveServer
from tutorgraph.cli.seed import run_seed
from tutorgraph.content.manifest import load_course
from tutorgraph.llm import ScriptedEngine
from tutorgraph.server import create_app
from tutorgraph.store import migrate

pytestmark = pytest.mark.browser

EXPLANATION = "Each score sums d_k unit-variance products, so its variance is d_k."
CARD = {
    "id": "scaling",
    "question": "Why is $QK^\\top$ divided by $\\sqrt{d_k}$ in `softmax(QK.T / sqrt(d_k))`?",
    "options": [
        "To keep the variance of the scores near $1$",
        "To make `weights.sum()` equal one",
        "To shorten the sequence",
    ],
    "correct_index": 0,
    "explanation": EXPLANATION,
    "concept": "scaled-attention",
}
REPLY = f"Quick check, and tell me why:\n\n<quiz>{json.dumps(CARD)}</quiz>"


@pytest.fixture
def scripted_server(tmp_path: Path) -> Iterator[tuple[LiveServer, ScriptedEngine]]:
    """The demo courses, with the model a test scripts (as a model server would stream it)."""
    settings = make_settings(tmp_path, content_dir=REPO_CONTENT)
    migrate.upgrade(settings)
    run_seed(settings)
    app = create_app(settings)
    engine = ScriptedEngine()
    app.state.model = engine
    with LiveServer(app) as server:
        yield server, engine


def test_a_quiz_card_shows_maths_and_code_and_is_graded_by_the_server(
    page: Page, scripted_server: tuple[LiveServer, ScriptedEngine]
) -> None:
    server, engine = scripted_server
    engine.enqueue_chat([REPLY[i : i + 9] for i in range(0, len(REPLY), 9)])
    register_and_log_in(page, server.url)
    page.goto(server.url + LESSON)
    with page.expect_response(re.compile(r"/api/v1/tutor/chat$")) as streamed:
        ask(page, "Check me on the scaling")
    frames = [json.loads(line[6:]) for line in streamed.value.text().split("\n\n") if line]
    sent = "".join(frame.get("delta", "") for frame in frames)
    assert "<quiz>" in sent and "correct_index" not in sent and EXPLANATION not in sent
    assert "correct_index" not in page.content() and EXPLANATION not in page.content()

    card = page.get_by_test_id("quiz-card")
    expect(card.locator(".question .katex")).to_have_count(2)  # typeset like the replies
    expect(card.locator(".question code")).to_have_text("softmax(QK.T / sqrt(d_k))")
    options = card.locator(".options button")
    expect(options.nth(0).locator(".katex")).to_have_count(1)
    expect(options.nth(1).locator("code")).to_have_text("weights.sum()")

    why = card.get_by_label("Why? (optional, sent with your answer)")
    why.fill("the weights must add up")
    options.nth(1).click()
    verdict = card.get_by_role("status")
    expect(verdict).to_contain_text("Not quite")
    expect(verdict).to_contain_text("You said")
    expect(card.get_by_test_id("quiz-your-words")).to_have_text("the weights must add up")
    expect(verdict).not_to_contain_text(EXPLANATION)  # a wrong answer reveals nothing
    expect(options.nth(1)).to_be_disabled()
    expect(options.nth(0)).to_be_enabled()  # another try
    expect(card.get_by_test_id("quiz-mastery")).to_have_text("Mastery of scaled-attention: 0% → 0%")

    why.fill("scores grow with d_k")
    options.nth(0).click()
    expect(verdict).to_contain_text("Correct!")
    text = card.inner_text()
    assert text.count(EXPLANATION) == 1 and text.count("Correct!") == 1, text  # said once
    assert text.count("scores grow with d_k") == 1 and "weights must add up" not in text, text
    expect(card.get_by_test_id("quiz-mastery")).to_have_text(
        "Only your first answer to a card counts: mastery of scaled-attention stays at 0%"
    )
    expect(card.locator("button.correct")).to_have_count(1)
    for option in options.all():
        expect(option).to_be_disabled()

    page.reload()  # the conversation reopens with the card as it was left
    reopened = page.get_by_test_id("quiz-card")
    expect(reopened.get_by_role("status")).to_contain_text("You answered this earlier")
    expect(reopened.get_by_test_id("quiz-your-words")).to_have_text("scores grow with d_k")
    expect(reopened.locator("button.correct")).to_have_count(1)


def _lesson_card(quiz_id: str) -> dict[str, Any]:
    """A card of the seeded Self-attention lesson, as its course file has it."""
    course = load_course(REPO_CONTENT / "modern-machine-learning")
    cards = (item for lesson in course.lessons for item in lesson.manifest.quiz)
    return next(item.model_dump() for item in cards if item.id == quiz_id)


REASON = "more heads means more parameters <b>i think</b>"


@pytest.mark.parametrize("width", [1280, 390])
def test_a_wrong_pick_and_its_reason_are_answered_on_the_card(
    page: Page, scripted_server: tuple[LiveServer, ScriptedEngine], width: int
) -> None:
    """The issue's case, on the page: the lesson's own card, a wrong pick with a reason. The
    feedback says why that option is wrong and answers the reason in the learner's words,
    which stay plain text (no markup from what a learner typed)."""
    server, engine = scripted_server
    item = _lesson_card("self-attention-q3")
    shown = {k: item[k] for k in ("id", "question", "options", "correct_index", "explanation")}
    engine.enqueue_chat([f"A quick check:\n\n<quiz>{json.dumps(shown)}</quiz>"])
    page.set_viewport_size({"width": width, "height": 900})
    register_and_log_in(page, server.url)
    page.goto(server.url + LESSON)
    if width < 600:
        page.get_by_role("tab", name="Tutor").click()
    ask(page, "Check me on multi-head attention")

    card = page.get_by_test_id("quiz-card")
    card.get_by_label("Why? (optional, sent with your answer)").fill(REASON)
    wrong = next(i for i, note in enumerate(item["why_wrong"]) if "parameters" in note)
    card.locator(".options button").nth(wrong).click()
    verdict = card.get_by_role("status")
    expect(verdict).to_contain_text("Not quite")
    expect(verdict).to_contain_text("d_k = d_model / h")
    expect(verdict).not_to_contain_text("Have another look")
    expect(verdict).not_to_contain_text(item["options"][item["correct_index"]])
    expect(card.get_by_test_id("quiz-your-words")).to_have_text(REASON)  # as typed, as text
    expect(verdict.locator("b")).to_have_count(0)
    expect(card.get_by_test_id("quiz-mastery")).to_contain_text("Mastery of self-attention")
    overflow = card.evaluate("(node) => node.scrollWidth - node.clientWidth")
    assert overflow <= 1, overflow  # the feedback wraps inside the card


def test_citations_link_to_lesson_headings_and_each_tool_call_has_one_chip(
    page: Page, seeded_server: LiveServer
) -> None:
    register_and_log_in(page, seeded_server.url)
    page.goto(seeded_server.url + LESSON)
    ask(page, "Why do we divide by the square root of d_k?")
    reply = page.get_by_role("log", name="Conversation").get_by_test_id("assistant-message")
    chips = reply.get_by_test_id("tool-call")
    expect(chips).to_have_count(2)  # the lesson search and the course-wide search
    expect(chips).to_have_text([re.compile("search_course ✓")] * 2)  # each has its own result
    for chip in chips.all():
        chip.locator("summary").click()
    arguments = [chip.locator("pre").first.inner_text() for chip in chips.all()]
    assert sum('"lesson_slug"' in text for text in arguments) == 1, arguments

    citation = reply.get_by_role("link", name=re.compile(r"Source: Self-attention ›")).first
    expect(citation).to_have_attribute("href", re.compile("^#h-"))
    heading = page.get_by_role("heading", name="Why divide by the square root of d_k")
    expect(heading).not_to_be_in_viewport()
    citation.click()
    expect(heading).to_be_in_viewport()

    page.set_viewport_size({"width": 390, "height": 844})  # on a phone the link opens the lesson
    page.get_by_role("tab", name="Tutor").click()
    citation.click()
    expect(page.get_by_role("tab", name="Lesson")).to_have_attribute("aria-selected", "true")
    expect(heading).to_be_in_viewport()
