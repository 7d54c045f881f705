"""LTI 1.3 against a local test platform (tests/fakes/lti_platform.py), over real sockets: the
OIDC login, a signed launch into a course, and grades going back through AGS."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import httpx
import jwt
import pytest
from sqlalchemy import select

from tests.conftest import make_settings
from tests.fakes.live_server import LiveServer
from tests.fakes.lti_platform import Platform
from tutorgraph.cli.seed import run_seed
from tutorgraph.knowledge import get_domain
from tutorgraph.lti import service
from tutorgraph.server import create_app
from tutorgraph.settings import Settings
from tutorgraph.store import migrate
from tutorgraph.store.db import Database
from tutorgraph.store.models import CourseEnrollment, LtiScore, User, utcnow

REPO_CONTENT = Path(__file__).resolve().parents[2] / "content"
COURSE = "python-engineering"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"


@pytest.fixture
def tool(tmp_path: Path, platform: Platform) -> Iterator[tuple[LiveServer, Settings]]:
    settings = make_settings(
        tmp_path, content_dir=REPO_CONTENT, lti={"platforms": [platform.registration(COURSE)]}
    )
    migrate.upgrade(settings)
    run_seed(settings)
    with LiveServer(create_app(settings)) as server:
        platform.tool_jwks_url = f"{server.url}/lti/jwks"
        yield server, settings


def launch(browser: httpx.Client, platform: Platform, tool: str, user: str) -> httpx.Response:
    """What the learner's browser does: the LMS link, the platform's auth, its form post."""
    login = browser.get(platform.login_url(tool, user))
    assert login.status_code == 302, login.text
    form = browser.get(login.headers["location"])
    assert form.status_code == 200, form.text
    action = re.search(r'action="([^"]+)"', form.text)
    token = re.search(r'name="id_token" value="([^"]+)"', form.text)
    state = re.search(r'name="state" value="([^"]+)"', form.text)
    assert action and token and state
    return browser.post(action.group(1), data={"id_token": token.group(1), "state": state.group(1)})


def csrf(browser: httpx.Client, url: str) -> str:
    page = browser.get(url).text
    found = re.search(r'name="csrf-token" content="([^"]+)"', page)
    assert found, page[:500]
    return found.group(1)


def answer_a_question(browser: httpx.Client, tool: str, *, right: bool) -> None:
    token = csrf(browser, f"{tool}/")
    headers = {"X-CSRF-Token": token}
    round_ = browser.post(
        f"{tool}/api/v1/practice/rounds",
        json={"domain": "python", "topic": "python-data-model"},
        headers=headers,
    ).json()
    topic = get_domain("python").topic("python-data-model")
    reference = next(q for q in topic.questions if q.text == round_["current"]["text"])
    answered = browser.post(
        f"{tool}/api/v1/practice/rounds/{round_['id']}/answers",
        json={"answer": reference.reference_answer if right else "no idea"},
        headers=headers,
    )
    assert answered.status_code == 200, answered.text


def test_a_launch_signs_the_learner_in_and_their_grade_goes_back(
    platform: Platform, tool: tuple[LiveServer, Settings]
) -> None:
    server, settings = tool
    with httpx.Client(timeout=30) as browser:
        launched = launch(browser, platform, server.url, "student-1")
        assert launched.status_code == 303, launched.text
        assert launched.headers["location"] == f"/learn/{COURSE}"
        course = browser.get(f"{server.url}/learn/{COURSE}")
        assert "Learner student-1" in course.text  # signed in, by the platform's word

        answer_a_question(browser, server.url, right=True)
    database = Database(settings)
    with database.session() as session:
        user = session.scalars(select(User).where(User.name == "Learner student-1")).one()
        assert user.role == "learner" and user.email.endswith("@lti.invalid")
        enrolled = session.scalars(select(CourseEnrollment)).one()
        assert (enrolled.user_id, enrolled.role) == (user.id, "learner")
        pending = session.scalars(select(LtiScore)).one()
        assert 0 < pending.score <= 100 and pending.sent_at is None

    report = service.send_grades(settings, database)
    assert (report.sent, report.failed) == (1, 0)
    [score] = platform.scores
    assert score["userId"] == "student-1" and score["scoreMaximum"] == 100
    assert score["scoreGiven"] == pending.score
    assert score["gradingProgress"] == "FullyGraded"

    # the LMS is down: the grade waits, then goes once it is back
    platform.fail_scores = 1
    with httpx.Client(timeout=30, cookies=browser.cookies) as again:
        answer_a_question(again, server.url, right=False)
    failed = service.send_grades(settings, database)
    assert (failed.sent, failed.failed) == (0, 1) and "503" in failed.error
    later = service.send_grades(settings, database, now=utcnow() + timedelta(minutes=3))
    assert later.sent == 1 and len(platform.scores) == 2
    database.dispose()


def test_an_lms_instructor_becomes_the_course_instructor(
    platform: Platform, tool: tuple[LiveServer, Settings]
) -> None:
    server, _ = tool
    platform.roles["teacher-1"] = [INSTRUCTOR]
    with httpx.Client(timeout=30) as browser:
        assert launch(browser, platform, server.url, "teacher-1").status_code == 303
        board = browser.get(f"{server.url}/teach/{COURSE}")
        assert board.status_code == 200 and "cohort" in board.text


def test_forged_replayed_and_unknown_launches_are_refused(
    platform: Platform, tool: tuple[LiveServer, Settings]
) -> None:
    server, _ = tool
    with httpx.Client(timeout=30) as browser:
        # an issuer the tool does not know
        unknown = browser.get(platform.login_url(server.url, "x", issuer="https://evil.example"))
        assert unknown.status_code == 401
        # a token signed by someone else's key
        login = browser.get(platform.login_url(server.url, "student-2"))
        auth = httpx.URL(login.headers["location"])
        nonce, state = auth.params["nonce"], auth.params["state"]
        forger = Platform()
        forger.base = platform.base  # claims to be the platform
        forged = forger.id_token(nonce=nonce, user="student-2", redirect_uri="x")
        refused = browser.post(
            f"{server.url}/lti/launch", data={"id_token": forged, "state": state}
        )
        assert refused.status_code == 401
        # the genuine token works once; posted again (a replay), it is refused
        genuine = platform.id_token(nonce=nonce, user="student-2", redirect_uri="x")
        first = browser.post(f"{server.url}/lti/launch", data={"id_token": genuine, "state": state})
        assert first.status_code == 303
        replay = httpx.post(
            f"{server.url}/lti/launch",
            data={"id_token": genuine, "state": state},
            cookies=browser.cookies,
        )
        assert replay.status_code == 401
        # a launch for another client id is refused
        other = platform.id_token(nonce=nonce, user="student-2", redirect_uri="x", aud="other")
        assert (
            browser.post(
                f"{server.url}/lti/launch", data={"id_token": other, "state": state}
            ).status_code
            == 401
        )
    decoded = jwt.decode(genuine, options={"verify_signature": False})
    assert decoded["sub"] == "student-2"


def test_lti_is_off_until_a_platform_is_registered(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    migrate.upgrade(settings)
    with LiveServer(create_app(settings)) as server:
        for path in ("/lti/jwks", "/lti/login"):
            assert httpx.get(f"{server.url}{path}").status_code == 404
