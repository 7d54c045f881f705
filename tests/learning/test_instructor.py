"""The instructor's cohort dashboard: one course's learners, seen by that course's instructors
only, on that course's concepts only."""

from __future__ import annotations

import csv
import io
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlalchemy import select

from tests.conftest import seeded_copy
from tutorgraph.knowledge import get_domain
from tutorgraph.server import create_app
from tutorgraph.settings import Settings
from tutorgraph.store import users
from tutorgraph.store.db import Database
from tutorgraph.store.models import LearningPath, Lesson

PYTHON, ML = "python-engineering", "modern-machine-learning"


@pytest.fixture
def seeded(tmp_path: Path, seeded_data: Path) -> Settings:
    return seeded_copy(tmp_path, seeded_data)


@pytest.fixture
def client(seeded: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(seeded)) as test_client:
        yield test_client


def account(client: TestClient, settings: Settings, email: str, role: str) -> dict[str, str]:
    """An account with a role (created as an operator would), logged in."""
    database = Database(settings)
    with database.session() as session:
        users.create_user(
            session=session,
            email=email,
            password="plenty long enough",
            name=email.split("@")[0],
            role=role,
        )
    database.dispose()
    response = client.post(
        "/api/v1/auth/login", json={"email": email, "password": "plenty long enough"}
    )
    assert response.status_code == 200, response.text
    client.cookies.clear()
    return {"Authorization": f"Bearer {response.json()['access_token']}"}


def lesson(settings: Settings, slug: str) -> int:
    database = Database(settings)
    with database.session() as session:
        found = session.scalar(select(Lesson.id).where(Lesson.slug == slug))
    database.dispose()
    assert found is not None
    return found


def fail_a_question(client: TestClient, headers: dict[str, str], domain: str, topic: str) -> None:
    round_ = client.post(
        "/api/v1/practice/rounds", json={"domain": domain, "topic": topic}, headers=headers
    ).json()
    answered = client.post(
        f"/api/v1/practice/rounds/{round_['id']}/answers",
        json={"answer": "the is operator compares the values, so is and == are the same"},
        headers=headers,
    ).json()
    assert answered["result"]["alert_id"] is not None


def test_a_course_alert_reaches_that_course_instructor_only(
    client: TestClient, seeded: Settings
) -> None:
    admin = account(client, seeded, "root@example.org", "admin")
    py_teacher = account(client, seeded, "pat@example.org", "instructor")
    ml_teacher = account(client, seeded, "mel@example.org", "instructor")
    for slug, email in ((PYTHON, "pat@example.org"), (ML, "mel@example.org")):
        assigned = client.post(
            f"/api/v1/courses/{slug}/instructors", json={"email": email}, headers=admin
        )
        assert assigned.status_code == 200, assigned.text
    # an instructor cannot assign themselves to a course they do not own
    refused = client.post(
        f"/api/v1/courses/{ML}/instructors", json={"email": "pat@example.org"}, headers=py_teacher
    )
    assert refused.status_code == 403

    ada = account(client, seeded, "ada@example.org", "learner")  # studies python
    bo = account(client, seeded, "bo@example.org", "learner")  # studies machine learning
    client.get(f"/api/v1/lessons/{lesson(seeded, 'python-data-model')}", headers=ada)
    client.get(f"/api/v1/lessons/{lesson(seeded, 'self-attention')}", headers=bo)
    fail_a_question(client, ada, "python", "python-data-model")
    fail_a_question(client, bo, "machine-learning", "self-attention")
    # Ada also fails a machine-learning question, but she is not in that course's cohort
    fail_a_question(client, ada, "machine-learning", "transformers")

    py_alerts = client.get("/api/v1/alerts?unread=true", headers=py_teacher).json()
    ml_alerts = client.get("/api/v1/alerts?unread=true", headers=ml_teacher).json()
    assert [(a["learner"], a["concept"]) for a in py_alerts] == [("ada", "python-data-model")]
    assert [(a["learner"], a["concept"]) for a in ml_alerts] == [("bo", "self-attention")]
    assert py_alerts[0]["answer"].startswith("the is operator")
    assert len(client.get("/api/v1/alerts?unread=true", headers=admin).json()) == 2

    # the other course's instructor can neither see nor handle it
    ada_alert = py_alerts[0]["id"]
    assert client.post(f"/api/v1/alerts/{ada_alert}/read", headers=ml_teacher).status_code == 404
    assert client.get(f"/api/v1/teach/courses/{PYTHON}", headers=ml_teacher).status_code == 404
    # a learner who owns no course teaches none: an empty list, and no course's board
    assert client.get("/api/v1/teach/courses", headers=ada).json() == []
    assert client.get(f"/api/v1/teach/courses/{PYTHON}", headers=ada).status_code == 404

    board = client.get(f"/api/v1/teach/courses/{PYTHON}", headers=py_teacher).json()
    assert board["learners"] == 1 and [a["learner"] for a in board["alerts"]] == ["ada"]
    concepts = {c["concept"]: c for c in board["concepts"]}
    assert set(concepts) == {
        "python-data-model",
        "builtin-data-structures",
        "functions-and-scope",
        "decorators-closures",
        "iterators-generators",
        "control-flow-comprehensions",
        "exceptions-context-managers",
        "testing-pytest",
        "type-hints",
        "concurrency-asyncio",
        "performance-profiling",
    }
    assert concepts["python-data-model"]["learners"] == 1
    assert concepts["python-data-model"]["buckets"][0] == 1
    [mix_up] = board["misconceptions"]
    assert mix_up["id"] == "is-equals-equality" and mix_up["examples"][0]["learner"] == "ada"

    exported = client.get(f"/api/v1/teach/courses/{PYTHON}/export.csv", headers=py_teacher)
    assert exported.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(exported.text)))
    assert [(r["learner"], r["concept"], r["open_alerts"]) for r in rows] == [
        ("ada", "python-data-model", "1")
    ]  # not her machine-learning mastery: that course is not Pat's

    handled = client.post(f"/api/v1/alerts/{ada_alert}/read", headers=py_teacher)
    assert handled.status_code == 200 and handled.json()["handled_at"] is not None
    assert client.get("/api/v1/alerts?unread=true", headers=py_teacher).json() == []


def test_an_instructor_refits_mastery_on_demand(client: TestClient, seeded: Settings) -> None:
    teacher = account(client, seeded, "pat@example.org", "instructor")
    learner = account(client, seeded, "ada@example.org", "learner")
    assert client.post("/api/v1/teach/refit", headers=learner).status_code == 403
    fail_a_question(client, learner, "python", "python-data-model")
    report = client.post("/api/v1/teach/refit", headers=teacher).json()
    assert report["fitted"] == {} and report["skipped"] == {"python-data-model": 1}


def test_the_quiz_bank_exports_to_its_instructors_as_qti_and_moodle_xml(
    client: TestClient, seeded: Settings
) -> None:
    admin = account(client, seeded, "root@example.org", "admin")
    teacher = account(client, seeded, "pat@example.org", "instructor")
    other = account(client, seeded, "mel@example.org", "instructor")
    learner = account(client, seeded, "ada@example.org", "learner")
    client.post(
        f"/api/v1/courses/{PYTHON}/instructors", json={"email": "pat@example.org"}, headers=admin
    )
    base = f"/api/v1/teach/courses/{PYTHON}/quiz-bank"
    # answers inside: a learner who neither teaches nor owns the course finds no such bank
    assert client.get(f"{base}.qti.zip", headers=learner).status_code == 404
    assert client.get(f"{base}.moodle.xml", headers=other).status_code == 404

    package = client.get(f"{base}.qti.zip", headers=teacher)
    assert package.status_code == 200 and package.headers["content-type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(package.content))
    manifest = ET.fromstring(archive.read("imsmanifest.xml"))
    cp = "{http://www.imsglobal.org/xsd/qti/qtiv3p0/imscp_v1p1}"
    resources = manifest.findall(f"{cp}resources/{cp}resource")
    hrefs = {r.get("href") for r in resources}
    assert hrefs == {n for n in archive.namelist() if n.startswith("items/")}
    assert {r.get("type") for r in resources} == {"imsqti_item_xmlv3p0"}
    qti = "{http://www.imsglobal.org/xsd/imsqtiasi_v3p0}"
    kinds = {"choice": 0, "extended": 0}
    for href in hrefs:
        item = ET.fromstring(archive.read(str(href)))
        assert item.tag == f"{qti}qti-assessment-item"
        assert re.fullmatch(r"[A-Za-z_][\w.-]*", item.get("identifier", ""))
        choice = item.find(f"{qti}qti-item-body/{qti}qti-choice-interaction")
        if choice is not None:
            kinds["choice"] += 1
            correct = item.findtext(
                f"{qti}qti-response-declaration/{qti}qti-correct-response/{qti}qti-value"
            )
            options = [c.get("identifier") for c in choice.findall(f"{qti}qti-simple-choice")]
            assert correct in options
            assert (
                item.find(f"{qti}qti-response-processing")
                .get("template", "")
                .endswith("match_correct.xml")
            )  # type: ignore[union-attr]
        else:
            kinds["extended"] += 1
            assert item.find(f"{qti}qti-item-body/{qti}qti-extended-text-interaction") is not None
            rubric = item.find(f"{qti}qti-item-body/{qti}qti-rubric-block")
            assert rubric is not None and rubric.get("view") == "scorer"
    python = get_domain("python")
    taught = {"python-data-model", "builtin-data-structures", "functions-and-scope",
              "decorators-closures", "iterators-generators", "control-flow-comprehensions",
              "exceptions-context-managers", "testing-pytest", "type-hints",
              "concurrency-asyncio", "performance-profiling"}  # fmt: skip
    assert kinds["extended"] == sum(len(python.topic(t).questions) for t in taught)
    assert kinds["choice"] > 0

    moodle = client.get(f"{base}.moodle.xml", headers=teacher)
    quiz = ET.fromstring(moodle.content)
    questions = quiz.findall("question")
    multichoice = [q for q in questions if q.get("type") == "multichoice"]
    essays = [q for q in questions if q.get("type") == "essay"]
    assert (len(multichoice), len(essays)) == (kinds["choice"], kinds["extended"])
    for question in multichoice:
        fractions = [a.get("fraction") for a in question.findall("answer")]
        assert fractions.count("100") == 1 and len(fractions) >= 2
    reference = python.topic("python-data-model").questions[0]
    essay = next(q for q in essays if q.findtext("idnumber") == reference.id)
    assert reference.reference_answer in (essay.findtext("graderinfo/text") or "")
    assert all(q.findtext("questiontext/text") for q in questions if q.get("type") != "category")


def owns(settings: Settings, email: str, slug: str) -> None:
    """The user becomes the course's owner, as publishing it from the course builder does."""
    database = Database(settings)
    with database.session() as session:
        owner = users.get_user_by_email(session=session, email=email)
        course = session.scalar(select(LearningPath).where(LearningPath.slug == slug))
        assert owner is not None and course is not None
        course.created_by = owner.id
    database.dispose()


def page(client: TestClient, path: str, headers: dict[str, str]) -> BeautifulSoup:
    response = client.get(path, headers={**headers, "accept": "text/html"})
    assert response.status_code == 200, response.text
    return BeautifulSoup(response.text, "html.parser")


def test_a_course_owner_sees_its_learners_and_no_other_course(
    client: TestClient, seeded: Settings
) -> None:
    """An author with the learner role sees, for the course they own, its cohort's progress and
    alerts as its instructor would, and handles an alert; another author's course, and a
    course nobody gave them, stay unseen."""
    ann = account(client, seeded, "ann@example.org", "learner")  # owns the Python course
    mel = account(client, seeded, "mel@example.org", "learner")  # owns the ML course
    owns(seeded, "ann@example.org", PYTHON)
    owns(seeded, "mel@example.org", ML)
    ada = account(client, seeded, "ada@example.org", "learner")
    bo = account(client, seeded, "bo@example.org", "learner")
    client.get(f"/api/v1/lessons/{lesson(seeded, 'python-data-model')}", headers=ada)
    client.get(f"/api/v1/lessons/{lesson(seeded, 'self-attention')}", headers=bo)
    fail_a_question(client, ada, "python", "python-data-model")
    fail_a_question(client, bo, "machine-learning", "self-attention")

    # the menu leads an owner to Teach, as it leads an instructor; a learner who owns no
    # course has no such link
    nav = [a["href"] for a in page(client, "/", ann).select("nav[aria-label=Main] a")]
    assert "/teach" in nav
    assert "/teach" not in [
        a["href"] for a in page(client, "/", ada).select("nav[aria-label=Main] a")
    ]

    home = page(client, "/teach", ann)
    taught = home.select("[data-testid=taught-courses] a")
    assert [a["href"] for a in taught] == [f"/teach/{PYTHON}"]  # hers alone
    assert home.find("form", action="/teach/refit") is None  # refitting is an instructor's
    board = page(client, f"/teach/{PYTHON}", ann)
    assert (
        board.select_one("[data-testid=cohort-size]")
        .get_text(" ", strip=True)
        .startswith("1 learner in")
    )
    [alert] = board.select("[data-testid=alerts] [data-alert]")
    assert "ada" in alert.get_text() and "the is operator" in alert.get_text()
    row = board.select_one("[data-testid=mastery-distribution] [data-concept=python-data-model]")
    assert (
        row.select("td")[0].get_text() == "Objects, types and mutability"
        and row.select("td")[1].get_text() == "1"
    )
    assert all(td.get("data-label") for td in board.select("table.stack-on-phone td"))

    for other in (ML, "no-such-course"):
        refused = client.get(f"/teach/{other}", headers={**ann, "accept": "text/html"})
        assert refused.status_code == 404, other
    handled = client.post(
        f"/teach/{ML}/alerts/{alert['data-alert']}",
        headers=ann,
        follow_redirects=False,
    )
    assert handled.status_code == 404  # not through another course's address either
    mel_board = page(client, f"/teach/{ML}", mel)
    [bo_alert] = mel_board.select("[data-testid=alerts] [data-alert]")
    assert bo_alert.h3 is not None and bo_alert.h3.get_text().startswith(
        "bo · Attention and self-attention"
    )
    assert not re.search(r"\bada\b", mel_board.get_text())  # Ada's Python answer is Ann's course's

    learner_home = page(client, "/teach", ada)  # a learner who wrote nothing
    assert learner_home.select("[data-testid=taught-courses]") == []
    assert "Create" in learner_home.select_one("[data-testid=no-courses]").get_text()
    assert client.get(f"/teach/{PYTHON}", headers={**ada, "accept": "text/html"}).status_code == 404
