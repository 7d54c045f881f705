"""A private course's content is reachable only by who may see it: its knowledge-base domain
follows the course's visibility everywhere it is read (practice, assessment, grading, the path
planner, the quiz-bank export, the instructor's dashboard), an unknown and a hidden domain are
the same 404 naming nothing else, and a learner's course made public is shown as theirs, after
the platform's own."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from httpx import Response
from sqlalchemy import select

from tests.api.owner_world import publish_notes, user_with_role
from tests.conftest import register_and_login
from tests.store.test_conformance import write_course
from tutorgraph import instructor
from tutorgraph.cli.seed import run_seed
from tutorgraph.instructor.scope import plain_words
from tutorgraph.knowledge import get_domain
from tutorgraph.knowledge.loader import forget_authored
from tutorgraph.settings import Settings
from tutorgraph.store.db import Database
from tutorgraph.store.models import LearningPath, Lesson, User

API = "/api/v1"
Headers = dict[str, str]


@pytest.fixture
def settings(any_settings: Settings) -> Settings:
    """On SQLite, and on PostgreSQL when its URL is set: the rule is a query."""
    return any_settings


class Ann:
    """Ann, her private course (published from her notes) and a topic of it with questions."""

    def __init__(self, client: TestClient) -> None:
        self.headers = register_and_login(client, "ann@example.org", name="Ann")
        _, self.slug = publish_notes(client, self.headers, "Ann's notes")
        kb = get_domain(self.slug)
        self.topic = next(t for t in kb.domain.topics if t.questions)
        self.question = self.topic.questions[0]
        self.questions = [q.text for t in kb.domain.topics for q in t.questions]


@pytest.fixture
def ann(client: TestClient) -> Iterator[Ann]:
    made = Ann(client)
    yield made
    forget_authored(made.slug)


def detail(response: Response) -> str:
    return str(response.json()["detail"])


def practise(client: TestClient, headers: Headers, domain: str, topic: str) -> Response:
    return client.post(
        f"{API}/practice/rounds", json={"domain": domain, "topic": topic}, headers=headers
    )


# ---- 1. practice on someone else's private course; the 404 of an unknown domain ------------


def test_a_private_courses_questions_are_not_practised_by_others(
    client: TestClient, ann: Ann
) -> None:
    bob = register_and_login(client, "bob@example.org")
    hidden = practise(client, bob, ann.slug, ann.topic.id)
    assert hidden.status_code == 404
    assert not any(text in hidden.text for text in ann.questions)
    unknown = practise(client, bob, "no-such-course", ann.topic.id)
    assert unknown.status_code == 404
    # the same answer for a domain that is hidden and one that does not exist; no list
    assert detail(hidden).replace(ann.slug, "?") == detail(unknown).replace("no-such-course", "?")
    for name in ("python", "machine-learning", ann.slug):
        assert name not in detail(unknown)
    mine = practise(client, ann.headers, ann.slug, ann.topic.id)
    assert mine.status_code == 201 and mine.json()["current"]["text"] in ann.questions


# ---- 2. every reader of a domain asks the same rule -----------------------------------------


def test_an_assessment_is_on_a_domain_you_may_see(client: TestClient, ann: Ann) -> None:
    bob = register_and_login(client, "bob@example.org")
    body = {"domain": ann.slug, "target_level": "junior"}
    hidden = client.post(f"{API}/assessments", json=body, headers=bob)
    unknown = client.post(f"{API}/assessments", json={**body, "domain": "nope"}, headers=bob)
    assert hidden.status_code == unknown.status_code == 404
    assert "python" not in detail(unknown) and ann.slug not in detail(unknown)
    own = client.post(f"{API}/assessments", json=body, headers=ann.headers)
    assert own.status_code == 201 and own.json()["interrupt"]["question"]["topic"].startswith(
        ann.slug
    )


def test_grading_by_question_id_reads_only_visible_domains(
    client: TestClient, settings: Settings, ann: Ann
) -> None:
    bob = register_and_login(client, "bob@example.org")
    answer = {"question_id": ann.question.id, "answer": "It hands a value back."}
    assert client.post(f"{API}/grade", json=answer, headers=bob).status_code == 404
    own = client.post(f"{API}/grade", json=answer, headers=ann.headers)
    assert own.status_code == 200 and own.json()["mastery"]["concept"] == ann.topic.id

    # an instructor naming a concept of a course they cannot see: not graded against its
    # misconceptions and key points, and no next step built from its topics
    user_with_role(settings, "bob@example.org", "instructor")
    brought = {
        "question": "What does a function give back?",
        "reference_answer": "Its return value.",
        "answer": "Nothing.",
        "concept": ann.topic.id,
    }
    refused = client.post(f"{API}/grade", json=brought, headers=bob)
    assert refused.status_code == 404 and ann.topic.title not in refused.text
    free = client.post(f"{API}/grade", json={**brought, "concept": "my-own-idea"}, headers=bob)
    assert free.status_code == 200


def test_rounds_go_with_the_access_they_came_from(client: TestClient, ann: Ann) -> None:
    token = client.post(f"{API}/courses/{ann.slug}/share", headers=ann.headers).json()[
        "share_token"
    ]
    cy = register_and_login(client, "cy@example.org")
    assert client.post(f"{API}/shares/{token}", headers=cy).status_code == 200
    started = practise(client, cy, ann.slug, ann.topic.id)
    assert started.status_code == 201
    round_id = started.json()["id"]
    cy_id = client.get(f"{API}/auth/me", headers=cy).json()["id"]

    removed = client.delete(f"{API}/courses/{ann.slug}/shares/{cy_id}", headers=ann.headers)
    assert removed.status_code == 204
    assert client.get(f"{API}/practice/rounds/{round_id}", headers=cy).status_code == 404
    assert client.get(f"{API}/practice/rounds", headers=cy).json() == []
    answer = client.post(
        f"{API}/practice/rounds/{round_id}/answers", json={"answer": "A value."}, headers=cy
    )
    assert answer.status_code == 404 and not any(t in answer.text for t in ann.questions)
    assert practise(client, cy, ann.slug, ann.topic.id).status_code == 404


def test_the_quiz_bank_export_and_dashboard_read_only_visible_domains(
    client: TestClient, settings: Settings, ann: Ann
) -> None:
    """A course whose lessons name another course's concepts (an operator's content can name
    anything): its instructor exports its bank, and sees its dashboard, without them."""
    write_course(settings.content_dir)
    run_seed(settings)
    bob = register_and_login(client, "bob@example.org")
    user_with_role(settings, "bob@example.org", "instructor")
    database = Database(settings)
    try:
        with database.session() as session:
            demo = session.scalar(select(LearningPath).where(LearningPath.slug == "demo"))
            bob_id = session.scalar(select(User.id).where(User.email == "bob@example.org"))
            assert demo is not None and bob_id is not None
            lesson = session.scalar(select(Lesson).where(Lesson.slug == "attn"))
            assert lesson is not None
            lesson.concepts = [ann.topic.id]
            instructor.enroll(session, course=demo, user_id=bob_id, role="instructor")
            session.commit()
    finally:
        database.dispose()

    qti = client.get(f"{API}/teach/courses/demo/quiz-bank.qti.zip", headers=bob)
    assert qti.status_code == 200
    package = zipfile.ZipFile(io.BytesIO(qti.content))
    items = [name for name in package.namelist() if name.startswith("items/")]
    assert items == []  # the demo course has no cards; Ann's questions are not its bank
    moodle = client.get(f"{API}/teach/courses/demo/quiz-bank.moodle.xml", headers=bob)
    assert moodle.status_code == 200
    assert not any(text in moodle.text for text in ann.questions)
    board = client.get(f"{API}/teach/courses/demo", headers=bob).json()
    # not Ann's title: the id, in plain words, is all Bob may know
    assert [(c["concept"], c["title"]) for c in board["concepts"]] == [
        (ann.topic.id, plain_words(ann.topic.id))
    ]
    assert board["concepts"][0]["title"] != ann.topic.title


# ---- 4. a learner's public course is theirs, after the platform's ----------------------------


def test_only_instructors_and_admins_make_a_course_public(
    client: TestClient, settings: Settings, ann: Ann
) -> None:
    public = {"visibility": "public"}
    refused = client.put(f"{API}/courses/{ann.slug}/visibility", json=public, headers=ann.headers)
    assert refused.status_code == 403 and "admin" in detail(refused)
    private = {"visibility": "private"}
    assert (
        client.put(f"{API}/courses/{ann.slug}/visibility", json=private, headers=ann.headers)
    ).status_code == 200

    admin = register_and_login(client, "root@example.org")
    user_with_role(settings, "root@example.org", "admin")
    published = client.put(f"{API}/courses/{ann.slug}/visibility", json=public, headers=admin)
    assert published.status_code == 200, published.text
    assert published.json()["section"] == "community" and published.json()["author"] == "Ann"

    user_with_role(settings, "ann@example.org", "instructor")
    client.put(f"{API}/courses/{ann.slug}/visibility", json=private, headers=ann.headers)
    own = client.put(f"{API}/courses/{ann.slug}/visibility", json=public, headers=ann.headers)
    assert own.status_code == 200 and own.json()["section"] == "my"


def test_a_learners_public_course_is_listed_as_theirs_after_the_platforms(
    client: TestClient, settings: Settings, ann: Ann
) -> None:
    write_course(settings.content_dir)  # the platform's own course, "demo"
    run_seed(settings)
    database = Database(settings)
    try:
        with database.session() as session:  # ahead of it in the order, if order were all
            course = session.scalar(select(LearningPath).where(LearningPath.slug == ann.slug))
            assert course is not None
            course.order_index = -1
            session.commit()
    finally:
        database.dispose()
    admin = register_and_login(client, "root@example.org")
    user_with_role(settings, "root@example.org", "admin")
    client.put(f"{API}/courses/{ann.slug}/visibility", json={"visibility": "public"}, headers=admin)

    bob = register_and_login(client, "bob@example.org")
    listed = [
        (c["slug"], c["section"], c["author"])
        for c in client.get(f"{API}/courses", headers=bob).json()
    ]
    assert listed == [("demo", "platform", None), (ann.slug, "community", "Ann")]

    client.cookies.set("tutorgraph_session", bob["Authorization"].split()[1])
    page = BeautifulSoup(client.get("/learn", headers={"accept": "text/html"}).text, "html.parser")
    sections = [s["data-section"] for s in page.select("section.course-section")]
    assert sections == ["platform", "community"]
    platform, community = page.select("section.course-section")
    assert [a["href"] for a in platform.select(".course-card h3 a")] == ["/learn/demo"]
    card = community.select_one(".course-card")
    assert card is not None and card.select_one("h3 a")["href"] == f"/learn/{ann.slug}"  # type: ignore[index]
    assert card.select_one("[data-testid=course-author]").get_text() == "by Ann"  # type: ignore[union-attr]
    course_page = BeautifulSoup(
        client.get(f"/learn/{ann.slug}", headers={"accept": "text/html"}).text, "html.parser"
    )
    author = course_page.select_one("[data-testid=course-author]")
    assert author is not None and "by Ann" in author.get_text()


def test_the_course_page_offers_make_public_only_to_who_may(
    client: TestClient, settings: Settings, ann: Ann
) -> None:
    html = {"accept": "text/html"}
    client.cookies.set("tutorgraph_session", ann.headers["Authorization"].split()[1])
    page = BeautifulSoup(client.get(f"/learn/{ann.slug}", headers=html).text, "html.parser")
    assert page.select_one("[data-testid=toggle-visibility]") is None
    assert "ask an admin" in page.select_one("[data-testid=visibility]").get_text()  # type: ignore[union-attr]
    token = page.select_one("meta[name=csrf-token]")["content"]  # type: ignore[index]
    refused = client.post(
        f"/learn/{ann.slug}/visibility", data={"visibility": "public", "csrf_token": token}
    )
    assert refused.status_code == 403

    user_with_role(settings, "ann@example.org", "instructor")
    page = BeautifulSoup(client.get(f"/learn/{ann.slug}", headers=html).text, "html.parser")
    button = page.select_one("[data-testid=toggle-visibility]")
    assert button is not None and button.get_text() == "Make public"
    made = client.post(
        f"/learn/{ann.slug}/visibility",
        data={"visibility": "public", "csrf_token": token},
        headers=html,
    )
    page = BeautifulSoup(made.text, "html.parser")
    assert made.status_code == 200
    assert "Community Courses" in page.select_one("[data-testid=share-note]").get_text()  # type: ignore[union-attr]
    assert page.select_one("[data-testid=toggle-visibility]").get_text() == "Make private"  # type: ignore[union-attr]
