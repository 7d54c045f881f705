"""The instructor's dashboard in a browser: one course's alert, to its instructor only."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.accounts import register_and_log_in
from tests.browser.chat import page_overflow
from tests.fakes.live_server import LiveServer
from tutorgraph.instructor import assign_instructor
from tutorgraph.store import users
from tutorgraph.store.db import Database
from tutorgraph.store.models import LearningPath

pytestmark = pytest.mark.browser


def instructor_of(server: LiveServer, email: str, course_slug: str) -> None:
    database = Database(server.app.state.settings)
    with database.session() as session:
        users.create_user(
            session=session,
            email=email,
            password="plenty long enough",
            name=email.split("@")[0].title(),
            role="instructor",
        )
        course = session.query(LearningPath).filter_by(slug=course_slug).one()
        assign_instructor(session, course=course, actor=None, email=email)
    database.dispose()


def log_in(page: Page, base: str, email: str) -> None:
    page.goto(base + "/login")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill("plenty long enough")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_test_id("current-user")).to_be_visible()


def test_an_instructor_sees_and_handles_their_course_alert(
    page: Page, browser: Browser, seeded_server: LiveServer
) -> None:
    base = seeded_server.url
    instructor_of(seeded_server, "pat@example.org", "python-engineering")
    instructor_of(seeded_server, "mel@example.org", "modern-machine-learning")

    register_and_log_in(page, base, name="Lin")
    expect(page.get_by_role("link", name="Teach")).to_have_count(0)  # learners do not teach
    page.goto(base + "/learn/python-engineering/python-data-model")  # joins the cohort
    page.goto(base + "/quiz")
    page.get_by_label("Topic").select_option("python/python-data-model")
    page.get_by_role("button", name="Start practising").click()
    page.get_by_label("Your answer").fill("is and == are the same")
    page.get_by_role("button", name="Submit answer").click()
    expect(page.get_by_test_id("last-result")).to_be_visible()

    for email, sees in (("mel@example.org", False), ("pat@example.org", True)):
        context = browser.new_context()
        teacher = context.new_page()
        log_in(teacher, base, email)
        teacher.get_by_role("navigation", name="Main").get_by_role("link", name="Teach").click()
        teacher.get_by_test_id("taught-courses").get_by_role("link").click()
        if not sees:
            expect(teacher.get_by_test_id("no-alerts")).to_be_visible()
            expect(teacher.get_by_test_id("cohort-size")).to_contain_text("0 learners")
            context.close()
            continue
        expect(teacher.get_by_test_id("cohort-size")).to_contain_text("1 learner")
        alert = teacher.get_by_test_id("alerts").get_by_role("listitem").first
        expect(alert).to_contain_text("Lin")
        expect(alert).to_contain_text("is and == are the same")
        row = teacher.get_by_test_id("mastery-distribution").locator(
            "[data-concept='python-data-model']"
        )
        expect(row.locator("td").nth(1)).to_have_text("1")
        expect(teacher.get_by_test_id("cohort-misconceptions")).to_contain_text("Lin")
        alert.get_by_role("button", name="Mark handled").click()
        expect(teacher.get_by_test_id("no-alerts")).to_be_visible()
        teacher.set_viewport_size({"width": 390, "height": 800})
        assert page_overflow(teacher)["width"] <= 390
        context.close()
