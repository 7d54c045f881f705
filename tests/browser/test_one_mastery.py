"""One mastery number per concept everywhere (issue 35): after practice answers and an
assessment, every page that shows a concept's mastery shows the number the API gives
(`/api/v1/me/progress`, the stored one), formatted the same way.

Pages are checked at the same moment (no answer in between). To add a page, read its number for
each concept and compare it with `expected` below."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.browser.accounts import register_and_log_in
from tests.fakes.live_server import LiveServer
from tutorgraph.knowledge import get_domain
from tutorgraph.wording import percent

pytestmark = pytest.mark.browser

PASSWORD = "plenty long enough"


def reference_for(page: Page, domain: str, topic_id: str) -> str:
    """The reference answer of the question on screen (looked up by its text)."""
    shown = " ".join(page.get_by_test_id("question-text").inner_text().split())
    topic = get_domain(domain).topic(topic_id)
    return next(
        q.reference_answer for q in topic.questions if " ".join(q.text.split())[:40] in shown
    )


def practise(page: Page, base: str, topic_id: str, answers: list[str | None]) -> str:
    """Start a practice round on a python topic and give `answers` in turn (None: the reference
    answer of the question shown). Returns the last result's mastery line."""
    page.goto(base + "/quiz")
    page.get_by_label("Topic").select_option(f"python/{topic_id}")
    page.get_by_role("button", name="Start practising").click()
    for answer in answers:
        text = reference_for(page, "python", topic_id) if answer is None else answer
        page.get_by_label("Your answer").fill(text)
        page.get_by_role("button", name="Submit answer").click()
        expect(page.get_by_test_id("last-result")).to_be_visible()
    return page.get_by_test_id("last-result").get_by_test_id("mastery").inner_text()


def api_mastery(page: Page, base: str) -> dict[str, dict[str, Any]]:
    """The learner's concepts as `/api/v1/me/progress` gives them (the session cookie)."""
    reply = page.request.get(base + "/api/v1/me/progress")
    assert reply.ok, reply.text()
    return {c["concept"]: c for c in reply.json()["concepts"]}


def progress_mastery(page: Page, base: str) -> dict[str, str]:
    page.goto(base + "/progress")
    rows = page.get_by_test_id("concept-table").locator("tbody tr")
    return {
        str(row.get_attribute("data-concept")): row.get_by_test_id("mastery").inner_text()
        for row in rows.all()
    }


def assess(base: str, email: str, answers: list[str]) -> dict[str, Any]:
    """An assessment through the API, as a client with a bearer token: the given answers, then
    "finish now"."""
    with httpx.Client(base_url=base, timeout=120) as client:
        login = client.post("/api/v1/auth/login", json={"email": email, "password": PASSWORD})
        assert login.status_code == 200, login.text
        client.headers["Authorization"] = f"Bearer {login.json()['access_token']}"
        view = client.post(
            "/api/v1/assessments", json={"domain": "python", "target_level": "junior"}
        )
        assert view.status_code == 201, view.text
        current = view.json()
        for answer in answers:
            if current.get("report"):
                break
            reply = client.post(
                f"/api/v1/assessments/{current['id']}/answers", json={"answer": answer}
            )
            assert reply.status_code == 200, reply.text
            current = reply.json()
        if not current.get("report"):
            current = client.post(f"/api/v1/assessments/{current['id']}/finish").json()
    assert current.get("report"), current
    return dict(current)


def test_progress_shows_the_same_mastery_as_the_api_after_practice_and_an_assessment(
    page: Page, seeded_server: LiveServer
) -> None:
    base = seeded_server.url
    email = "one@example.org"
    register_and_log_in(page, base, email=email)

    # practice: a miss, then the reference answer; the result shows the move
    line = practise(page, base, "python-data-model", ["no idea", None])
    after = re.findall(r"→ (\d+%)", line)[0]  # the result's "before → after"
    assert api_mastery(page, base)["python-data-model"]["mastery"] > 0
    assert progress_mastery(page, base)["python-data-model"] == after  # the result's number

    # an assessment with answers that miss: it moves the concepts it asked about
    assessment = assess(base, email, ["no idea", "I am not sure", "no idea"])
    expected = {c: percent(v["mastery"]) for c, v in api_mastery(page, base).items()}
    assert len(expected) >= 2  # practice's concept and at least one the assessment asked
    assert progress_mastery(page, base) == expected
    # the graph on Progress captions the same numbers
    for concept, shown in expected.items():
        node = page.get_by_test_id("progress-graph").locator(f"[data-topic='{concept}']").first
        expect(node).to_contain_text(f"mastery {shown}")
    # the assessment report's gaps table, for the topics it lists with a mastery
    page.goto(base + f"/assess/{assessment['id']}/report")
    cells = page.get_by_test_id("gap-mastery")
    expect(cells.first).to_be_visible()
    shown = 0
    for row in page.locator("tr[data-topic]").all():
        topic = str(row.get_attribute("data-topic"))
        if topic in expected:
            expect(row.get_by_test_id("gap-mastery")).to_have_text(expected[topic])
            shown += 1
    assert shown >= 1  # the report lists at least one topic the assessment moved
    # and the Review page, where a concept has a card
    page.goto(base + "/review")
    for row in page.locator("[data-concept]").all():
        concept = str(row.get_attribute("data-concept"))
        if concept in expected:
            expect(row).to_contain_text(expected[concept])
