"""A course's author in a browser: a learner by role who owns a course reaches its learners'
progress and alerts from the course page, on a desktop and on a phone, and never another
author's course."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect
from sqlalchemy import select

from tests.browser.accounts import register_and_log_in
from tests.browser.chat import page_overflow
from tests.fakes.live_server import LiveServer
from tutorgraph.store import users
from tutorgraph.store.db import Database
from tutorgraph.store.models import LearningPath

pytestmark = pytest.mark.browser
PHONE, DESKTOP = 390, 1280


def author_of(server: LiveServer, email: str, slug: str) -> None:
    """A learner-role account that owns the course, as publishing it from Create makes them."""
    database = Database(server.app.state.settings)
    with database.session() as session:
        author = users.create_user(
            session=session,
            email=email,
            password="plenty long enough",
            name=email.split("@")[0].title(),
            role="learner",
        )
        course = session.scalar(select(LearningPath).where(LearningPath.slug == slug))
        assert course is not None
        course.created_by = author.id
    database.dispose()


def log_in(page: Page, base: str, email: str) -> None:
    page.goto(base + "/login")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill("plenty long enough")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_test_id("current-user")).to_be_visible()


def test_an_author_sees_who_studies_their_course_and_no_other(
    page: Page, browser: Browser, seeded_server: LiveServer
) -> None:
    base = seeded_server.url
    author_of(seeded_server, "ann@example.org", "python-engineering")
    author_of(seeded_server, "mel@example.org", "modern-machine-learning")

    register_and_log_in(page, base, name="Lin")
    page.goto(base + "/learn/python-engineering/python-data-model")  # joins the cohort
    page.goto(base + "/quiz")
    page.get_by_label("Topic").select_option("python/python-data-model")
    page.get_by_role("button", name="Start practising").click()
    page.get_by_label("Your answer").fill("is and == are the same")
    page.get_by_role("button", name="Submit answer").click()
    expect(page.get_by_test_id("last-result")).to_be_visible()

    for width in (DESKTOP, PHONE):
        context = browser.new_context(viewport={"width": width, "height": 844})
        ann = context.new_page()
        try:
            log_in(ann, base, "ann@example.org")
            ann.goto(base + "/learn/python-engineering")
            ann.get_by_test_id("course-learners").click()
            expect(ann.get_by_test_id("cohort-size")).to_contain_text("1 learner in")
            alert = ann.get_by_test_id("alerts").get_by_role("listitem").first
            expect(alert).to_contain_text("Lin")
            expect(alert).to_contain_text("is and == are the same")
            row = ann.get_by_test_id("mastery-distribution").locator(
                "[data-concept='python-data-model']"
            )
            expect(row.locator("td[data-label='Learners']")).to_have_text("1")
            expect(ann.get_by_test_id("mastery-explained")).to_contain_text("Mastery is")
            assert page_overflow(ann)["width"] <= width, width  # no sideways scrolling

            ann.goto(base + "/teach")
            expect(ann.get_by_test_id("taught-courses").get_by_role("link")).to_have_text(
                ["Python Engineering Essentials"]
            )
            expect(ann.get_by_role("button", name="Refit mastery now")).to_have_count(0)
            expect(ann.get_by_test_id("mastery-model")).to_contain_text("lucky guesses and slips")
            other = ann.goto(base + "/teach/modern-machine-learning")
            assert other is not None and other.status == 404
        finally:
            context.close()

    context = browser.new_context()
    lin = context.new_page()
    try:
        log_in(lin, base, "lin@example.org")
        lin.goto(base + "/teach")
        expect(lin.get_by_test_id("no-courses")).to_contain_text("You have not published")
        response = lin.goto(base + "/teach/python-engineering")
        assert response is not None and response.status == 404  # a learner sees no cohort
    finally:
        context.close()
