"""Every page of the app on a 390 px phone and a 1280 px desktop: nothing scrolls sideways, the
main navigation folds behind a menu button on the phone, and no page asks for something that is
not there (the favicon included).

The pages are found in the app itself: every GET route outside the JSON API is requested, and
those that answer with HTML are measured, their path parameters filled with real ids made here
(a course and its lessons, a practice round, an assessment in progress and one with its report,
an interview in progress and a finished one, a course build, a share link, an instructor's
course). A new page is measured without touching this file; a new kind of path parameter makes
the test fail until it is given an example below."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from fastapi.routing import APIRoute
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.fakes.live_server import LiveServer
from tests.interview.resumes import RESUME
from tutorgraph.instructor import assign_instructor
from tutorgraph.store import users
from tutorgraph.store.db import Database
from tutorgraph.store.models import LearningPath, Lesson, Module

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
PASSWORD = "plenty long enough"
SHARE_TOKEN = "phone-test-share-link"
NOT_A_PAGE = "no-such-page"  # the catch-all /{section}: its "not found" page is a page too
# Paths under these prefixes are not pages (JSON, static files, the LTI protocol's endpoints).
NOT_PAGES = ("/api/", "/static", "/lti/", "/healthz", "/readyz", "/metrics")
# Regions that scroll on their own: none of them may scroll sideways either.
REGIONS = "main, .lesson-pane, .chat-log, .iv-transcript"
# Boxes holding wide content (formulas, diagrams, code, tables); the graphs drawn on the server.
SCROLLERS = ".katex-display, div.math, pre, .table-scroll, .graph-scroll, .graph-frame"
GRAPHS = "svg.knowledge-graph, .graph-scroll > svg, .graph-frame > svg"

MEASURE = """([regions, scrollers, graphs]) => {
  const vw = window.innerWidth;
  const clips = (el) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      if (getComputedStyle(p).overflowX !== 'visible') return true;
    }
    return false;
  };
  const name = (el) => {
    let s = el.tagName.toLowerCase();
    if (el.id) s += '#' + el.id;
    const cls = [...el.classList].slice(0, 3).join('.');
    if (cls) s += '.' + cls;
    const tid = el.getAttribute('data-testid');
    if (tid) s += '[data-testid=' + tid + ']';
    return s;
  };
  const path = (el) => {
    const parts = [];
    for (let e = el; e && e !== document.body && parts.length < 4; e = e.parentElement) {
      parts.unshift(name(e));
    }
    return parts.join(' > ');
  };
  const wide = (el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.right > vw + 1;
  };
  const offenders = [];
  for (const el of document.body.querySelectorAll('*')) {
    if (!wide(el) || clips(el)) continue;
    const parent = el.parentElement;
    if (parent && parent !== document.body && wide(parent) && !clips(parent)) continue;
    let leaf = el;  // the deepest element still too wide: usually the cause
    for (;;) {
      const next = [...leaf.children].find((c) => wide(c));
      if (!next) break;
      leaf = next;
    }
    offenders.push(path(el) + ' (right edge ' + Math.round(el.getBoundingClientRect().right) +
                   ' px; innermost: ' + name(leaf) + ')');
  }
  const sideways = [];
  for (const el of document.querySelectorAll(regions)) {
    if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible') {
      sideways.push(name(el) + ' scrolls ' + (el.scrollWidth - el.clientWidth) + ' px sideways');
    }
  }
  // Wide content scrolls inside its own box: never cut off by a box that hides its overflow.
  for (const el of document.querySelectorAll(scrollers)) {
    const style = getComputedStyle(el).overflowX;
    if (el.scrollWidth > el.clientWidth + 1 && (style === 'hidden' || style === 'clip')) {
      sideways.push(name(el) + ' cuts off ' + (el.scrollWidth - el.clientWidth) + ' px');
    }
  }
  // Graphs fit the width they have (scaled down, not scrolled or cut).
  for (const svg of document.querySelectorAll(graphs)) {
    const box = svg.parentElement.getBoundingClientRect();
    const r = svg.getBoundingClientRect();
    if (r.right > box.right + 1) {
      sideways.push(name(svg) + ' overflows by ' + Math.round(r.right - box.right) + ' px');
    }
  }
  // The tutor's mode chips: one row (it scrolls when it must), never wrapped into the chat.
  for (const row of document.querySelectorAll('.mode-chips')) {
    const tops = new Set([...row.children].map((c) => Math.round(c.getBoundingClientRect().top)));
    if (tops.size > 1) sideways.push('the mode chips wrap onto ' + tops.size + ' rows');
  }
  return {scrollWidth: document.documentElement.scrollWidth, innerWidth: vw,
          offenders: offenders.slice(0, 6), sideways: sideways};
}"""
RENDERED = """() => [...document.querySelectorAll('pre.mermaid')].every((p) => p.dataset.processed)
  && !document.querySelector('textarea[data-code-editor]:not([data-code-editor-ready])')"""


@dataclass
class Site:
    """The ids the pages are shown with, and who may see each page."""

    base: str
    params: dict[str, str]
    extra: list[str]  # more examples of pages with parameters (every lesson, work in progress)
    owners: dict[str, str] = field(default_factory=dict)  # path prefix -> email


def api(client: httpx.Client, method: str, path: str, **kwargs: Any) -> Any:
    response = client.request(method, path, **kwargs)
    assert response.status_code < 300, f"{method} {path}: {response.status_code} {response.text}"
    return response.json() if response.content else None


@contextmanager
def account(base: str, email: str) -> Iterator[httpx.Client]:
    """An API client signed in as a new account (its password: PASSWORD)."""
    with httpx.Client(base_url=base, timeout=60) as client:
        name = email.split("@")[0].title()
        api(
            client,
            "POST",
            "/api/v1/auth/register",
            json={"email": email, "password": PASSWORD, "name": name},
        )
        login = {"email": email, "password": PASSWORD}
        token = api(client, "POST", "/api/v1/auth/login", json=login)["access_token"]
        client.cookies.clear()
        client.headers["Authorization"] = f"Bearer {token}"
        yield client


def log_in(page: Page, base: str, email: str) -> None:
    page.goto(base + "/login")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_test_id("current-user")).to_be_visible()


def build_site(server: LiveServer) -> Site:
    base = server.url
    with account(base, "lea@example.org") as learner, account(base, "abe@example.org") as author:
        assessment = api(
            learner, "POST", "/api/v1/assessments", json={"domain": "python", "target_level": "mid"}
        )
        for _ in range(3):
            assessment = api(
                learner,
                "POST",
                f"/api/v1/assessments/{assessment['id']}/answers",
                json={"answer": "I am not sure: maybe a list comprehension with a dict?"},
            )
        finished = api(learner, "POST", f"/api/v1/assessments/{assessment['id']}/finish", json={})
        running = api(
            learner,
            "POST",
            "/api/v1/assessments",
            json={"domain": "machine-learning", "target_level": "junior"},
        )
        quiz = api(
            learner,
            "POST",
            "/api/v1/practice/rounds",
            json={"domain": "python", "topic": "testing-pytest"},
        )
        api(
            learner, "POST", "/api/v1/courses/python-engineering/enroll"
        )  # the Teach page lists them
        api(
            learner,
            "POST",
            f"/api/v1/practice/rounds/{quiz['id']}/answers",
            json={"answer": "pytest finds test_ files and rewrites assert to show both values."},
        )
        resume = api(learner, "POST", "/api/v1/resumes", data={"text": RESUME})
        done = api(learner, "POST", "/api/v1/interviews", json={"resume_id": resume["id"]})
        api(learner, "POST", f"/api/v1/interviews/{done['id']}/answer", json={"text": GOOD_ANSWER})
        api(learner, "POST", f"/api/v1/interviews/{done['id']}/end")
        ongoing = api(learner, "POST", "/api/v1/interviews", json={"resume_id": resume["id"]})
        build = api(author, "POST", "/api/v1/constructor/session/start", json={"title": "Rust"})

    database = Database(server.app.state.settings)
    with database.session() as session:
        users.create_user(
            session=session,
            email="ivy@example.org",
            password=PASSWORD,
            name="Ivy",
            role="instructor",
        )
        course = session.query(LearningPath).filter_by(slug="python-engineering").one()
        assign_instructor(session, course=course, actor=None, email="ivy@example.org")
        course.share_token = SHARE_TOKEN  # a share link, as its owner would make
        lessons = [
            f"/learn/{slug}/{lesson}"
            for slug, lesson in session.query(LearningPath.slug, Lesson.slug)
            .join(Module, Module.learning_path_id == LearningPath.id)
            .join(Lesson, Lesson.module_id == Module.id)
            .order_by(LearningPath.slug, Module.order_index, Lesson.order_index)
        ]
    database.dispose()
    return Site(
        base=base,
        params={
            "slug": "python-engineering",
            "lesson_slug": "testing-with-pytest",
            "assessment_id": finished["id"],
            "round_id": quiz["id"],
            "interview_id": done["id"],
            "session_id": build["session_id"],
            "token": SHARE_TOKEN,
            "section": NOT_A_PAGE,
        },
        extra=[
            *lessons,
            "/learn/modern-machine-learning",
            f"/assess/{running['id']}",
            f"/interview/{ongoing['id']}",
        ],
        owners={"/teach": "ivy@example.org", "/create/": "abe@example.org"},
    )


GOOD_ANSWER = (
    "At my last job I built the order pipeline: it loads the files with pandas and writes them "
    "to PostgreSQL with COPY, which cut the nightly load from 40 to 6 minutes."
)


def page_paths(server: LiveServer, site: Site) -> list[str]:
    """Every GET route outside the JSON API, its parameters filled; the unknown ones fail."""
    paths: list[str] = []
    missing: list[str] = []
    for route in server.app.routes:
        if not isinstance(route, APIRoute) or "GET" not in route.methods:
            continue
        if route.path.startswith(NOT_PAGES) or route.path == "/favicon.ico":
            continue
        names = re.findall(r"{(\w+)(?::\w+)?}", route.path)
        unknown = [n for n in names if n not in site.params]
        if unknown:
            missing.append(f"{route.path} (no example for {', '.join(unknown)})")
            continue
        paths.append(re.sub(r"{(\w+)(?::\w+)?}", lambda m: site.params[m.group(1)], route.path))
    assert not missing, "pages this test cannot fill in yet: " + "; ".join(missing)
    return list(dict.fromkeys([*paths, *site.extra]))


def who_sees(site: Site, path: str) -> str:
    for prefix, email in site.owners.items():
        if path.startswith(prefix):
            return email
    return "lea@example.org"


@dataclass
class Visit:
    status: int
    html: bool
    measured: dict[str, Any]
    failed_requests: list[str]
    menu: str  # "" when the menu behaves, else what is wrong


def visit(page: Page, url: str, width: int) -> Visit:
    failed: list[str] = []

    def on_response(response: Any) -> None:
        if response.status >= 400 and response.url != url:
            failed.append(f"requested and failed: {response.status} {response.url}")

    def on_console(message: Any) -> None:
        if message.type == "error" and "status of 404" not in message.text:  # the page's own 404
            failed.append(f"console error: {message.text[:200]}")

    def on_error(error: Any) -> None:
        failed.append(f"script error: {str(error)[:200]}")

    page.on("response", on_response)
    page.on("console", on_console)
    page.on("pageerror", on_error)
    try:
        response = page.goto(url, wait_until="load")
        assert response is not None
        html = "text/html" in (response.headers.get("content-type") or "")
        if not html:
            return Visit(response.status, False, {}, [], "")
        page.wait_for_function(RENDERED)
        page.evaluate("document.fonts.ready.then(() => true)")
        measured: dict[str, Any] = page.evaluate(MEASURE, [REGIONS, SCROLLERS, GRAPHS])
        menu = menu_problem(page, width)
        return Visit(response.status, True, measured, failed, menu)
    finally:
        page.remove_listener("response", on_response)
        page.remove_listener("console", on_console)
        page.remove_listener("pageerror", on_error)


def menu_problem(page: Page, width: int) -> str:
    if not page.locator(".site-header").count():
        return ""  # not one of the site's pages (the API's /docs)
    button = page.locator(".site-header .menu-button")
    links = page.get_by_role("navigation", name="Main").get_by_role("link", name="Learn")
    if width <= PHONE["width"]:
        if not button.is_visible():
            return "no menu button on the phone"
        if links.is_visible():
            return "the navigation links show before the menu button is pressed"
    elif button.is_visible() or not links.is_visible():
        return "the desktop navigation is not the plain list of links"
    return ""


@pytest.fixture
def site(seeded_server: LiveServer) -> Site:
    return build_site(seeded_server)


@pytest.fixture
def contexts(browser: Browser, site: Site) -> Iterator[dict[str, BrowserContext]]:
    made: dict[str, BrowserContext] = {}
    for email in {"lea@example.org", *site.owners.values()}:
        context = browser.new_context()
        page = context.new_page()
        log_in(page, site.base, email)
        page.close()
        made[email] = context
    made[""] = browser.new_context()  # logged out
    yield made
    for context in made.values():
        context.close()


@pytest.mark.timeout(600)  # some 90 page views, each loaded and measured twice over
def test_every_page_fits_a_phone_and_a_desktop(
    seeded_server: LiveServer, site: Site, contexts: dict[str, BrowserContext]
) -> None:
    paths = page_paths(seeded_server, site)
    runs = [(path, who_sees(site, path)) for path in paths]
    runs += [(path, "") for path in ("/", "/login", "/register", "/learn")]  # logged out
    problems: list[str] = []
    measured = 0
    for path, email in runs:
        page = contexts[email].new_page()
        page.set_default_timeout(15_000)
        try:
            for size in (PHONE, DESKTOP):
                page.set_viewport_size(size)
                seen = visit(page, site.base + path, size["width"])
                if not seen.html:
                    break
                measured += 1
                where = f"{path} at {size['width']} px" + (" (logged out)" if not email else "")
                expected_status = 404 if path == f"/{NOT_A_PAGE}" else 200
                if seen.status != expected_status:
                    problems.append(f"{where}: HTTP {seen.status}")
                m = seen.measured
                if m["scrollWidth"] > m["innerWidth"]:
                    wide = "; ".join(m["offenders"])
                    problems.append(f"{where}: {m['scrollWidth']} px wide; too wide: {wide}")
                problems += [f"{where}: {s}" for s in m["sideways"]]
                problems += [f"{where}: {r}" for r in seen.failed_requests]
                if seen.menu:
                    problems.append(f"{where}: {seen.menu}")
        finally:
            page.close()
    assert measured >= 2 * 20, f"only {measured} page views measured: the route list is wrong"
    assert not problems, "\n".join(problems)


def test_the_menu_button_opens_and_closes_the_navigation_on_a_phone(
    page: Page, live_server: LiveServer
) -> None:
    page.set_viewport_size(PHONE)
    page.goto(live_server.url + "/login")
    nav = page.get_by_role("navigation", name="Main")
    menu = nav.get_by_role("button", name="Menu")
    links = nav.get_by_role("link")
    expect(menu).to_be_visible()
    expect(menu).to_have_attribute("aria-expanded", "false")
    expect(menu).to_have_attribute("aria-controls", "site-nav-links")
    expect(links.first).to_be_hidden()

    menu.click()  # a pointer
    expect(menu).to_have_attribute("aria-expanded", "true")
    expect(links).to_have_text(
        ["Learn", "Explore", "Assess", "Practice", "Review", "Progress", "Interview", "Create"]
    )
    for i in range(links.count()):
        expect(links.nth(i)).to_be_visible()
    box = links.first.bounding_box()
    assert box is not None and box["height"] >= 40, "a menu link is too small for a finger"
    page.keyboard.press("Escape")  # the keyboard: Escape closes and gives focus back
    expect(menu).to_have_attribute("aria-expanded", "false")
    expect(links.first).to_be_hidden()
    expect(menu).to_be_focused()
    page.keyboard.press("Enter")
    expect(menu).to_have_attribute("aria-expanded", "true")
    page.keyboard.press("Tab")
    expect(links.first).to_be_focused()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/learn$"))

    # Wide again: the links are a plain row and the button is gone.
    page.set_viewport_size(DESKTOP)
    expect(menu).to_be_hidden()
    expect(links.first).to_be_visible()


def test_without_scripts_the_navigation_stays_a_visible_list(
    browser: Browser, live_server: LiveServer
) -> None:
    context = browser.new_context(java_script_enabled=False, viewport=PHONE)
    try:
        page = context.new_page()
        page.goto(live_server.url + "/login")
        nav = page.get_by_role("navigation", name="Main")
        expect(nav.get_by_role("button", name="Menu")).to_be_hidden()
        expect(nav.get_by_role("link", name="Learn")).to_be_visible()
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"{width} px wide without scripts"
    finally:
        context.close()


def test_on_a_phone_the_tutor_modes_are_one_row_above_a_roomy_chat(
    page: Page, seeded_server: LiveServer
) -> None:
    with account(seeded_server.url, "lea@example.org"):
        pass
    log_in(page, seeded_server.url, "lea@example.org")
    page.set_viewport_size(PHONE)
    page.goto(seeded_server.url + "/learn/modern-machine-learning/self-attention")
    page.get_by_role("tab", name="Tutor").click()
    chips = page.get_by_role("radiogroup", name="Teaching mode").get_by_role("radio")
    expect(chips).to_have_count(5)
    tops = {round(box["y"]) for box in (chips.nth(i).bounding_box() or {} for i in range(5))}
    assert len(tops) == 1, f"the mode chips wrap onto {len(tops)} rows"
    row = page.locator(".mode-chips").bounding_box()
    log = page.get_by_role("log", name="Conversation").bounding_box()
    assert row is not None and log is not None
    assert row["x"] + row["width"] <= PHONE["width"], "the chips widen the page"
    # The conversation keeps most of the screen: the chips take one row, not the chat's room.
    assert log["height"] >= PHONE["height"] / 3, f"the chat log is {log['height']} px tall"
    chips.last.click()  # the last mode is reachable: the row scrolls
    expect(chips.last).to_have_attribute("aria-checked", "true")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"{width} px wide"
