"""One user's world, built through the API for the authorization tests: Ann publishes a private
course from her notes (the constructor, end to end) and teaches it, practises it, chats with its
tutor, takes an assessment, uploads a resume and starts an interview. Every id she holds is kept,
so another user can be sent to each of them."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import select

from tests.conftest import register_and_login
from tests.constructor.sources import FUNCTIONS_MD
from tests.interview.resumes import RESUME
from tutorgraph.knowledge import get_domain
from tutorgraph.knowledge.loader import forget_authored
from tutorgraph.settings import Settings
from tutorgraph.store.db import Database
from tutorgraph.store.models import ConstructorImage, NextStep, User

Headers = dict[str, str]
API = "/api/v1"
SECRET = "zebracorn"  # in everything Ann writes: found in a reply to anyone else, it leaked
NOTES = FUNCTIONS_MD.replace("A function is", f"A {SECRET} function is")


@dataclass
class World:
    """Ann's resources, by the name a route gives their id."""

    ann: Headers
    ann_id: int
    slug: str
    title: str
    lesson_id: int
    lesson_slug: str
    topic: str  # a knowledge-base topic of her course's domain
    question_id: str  # a knowledge-base question of it
    questions: list[str]  # every question text of her course's domain
    round_id: str
    round_question_id: int
    assessment_id: str
    assessment_question_id: str
    resume_id: str
    interview_id: str
    tutor_session_id: str
    explore_session_id: str
    guided_session_id: str
    constructor_session_id: str
    upload_id: str
    image_id: str
    share_token: str
    member_id: int
    alert_id: int
    step_id: int
    ids: list[str] = field(default_factory=list)  # opaque ids that must not show up elsewhere

    def secrets(self) -> list[str]:
        """Strings that only Ann's data holds."""
        return [SECRET, self.title, *self.questions, *self.ids]


def _ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.text
    return response


def _idle(client: TestClient, sid: str, headers: Headers) -> dict[str, Any]:
    for _ in range(400):
        view: dict[str, Any] = client.get(
            f"{API}/constructor/session/status/{sid}", headers=headers
        ).json()
        if view["status"] != "running":
            return view
        time.sleep(0.05)
    raise AssertionError("the build did not finish")


def _turn(client: TestClient, sid: str, headers: Headers, **body: Any) -> dict[str, Any]:
    _ok(
        client.post(
            f"{API}/constructor/session/chat", json={"session_id": sid, **body}, headers=headers
        ),
        202,
    )
    return _idle(client, sid, headers)


def publish_notes(client: TestClient, headers: Headers, title: str) -> tuple[str, str]:
    """Build and publish a private course from Ann's notes; (constructor session, course slug)."""
    sid = _ok(
        client.post(f"{API}/constructor/session/start", json={"title": title}, headers=headers),
        201,
    ).json()["session_id"]
    _ok(
        client.post(
            f"{API}/constructor/session/upload",
            data={"session_id": sid},
            files={"file": ("functions.md", NOTES.encode())},
            headers=headers,
        ),
        201,
    )
    _turn(client, sid, headers, message="please read my files")
    _turn(client, sid, headers, message="yes")
    _turn(client, sid, headers, approve=True)
    _turn(client, sid, headers, action="generate_quiz")
    _turn(client, sid, headers, approve=True)
    view = _turn(client, sid, headers, message="publish it")
    assert view["phase"] == "published", view
    return sid, str(view["course_slug"])


def build_world(client: TestClient, settings: Settings) -> World:
    ann = register_and_login(client, "ann@example.org", name="Ann")
    title = f"Ann's {SECRET} notes"
    constructor_sid, slug = publish_notes(client, ann, title)
    upload_id = _ok(
        client.post(
            f"{API}/constructor/session/upload",
            data={"session_id": constructor_sid},
            files={"file": ("more.md", f"# More\n\nMore {SECRET} text.".encode())},
            headers=ann,
        ),
        201,
    ).json()["id"]
    user_with_role(settings, "ann@example.org", "instructor")  # she teaches it: Teach views
    _ok(
        client.post(
            f"{API}/courses/{slug}/instructors", json={"email": "ann@example.org"}, headers=ann
        )
    )
    course = _ok(client.get(f"{API}/courses/{slug}", headers=ann)).json()
    assert course["visibility"] == "private"
    kb = get_domain(slug)  # the domain the publish registered
    questions = [q for t in kb.domain.topics for q in t.questions]
    topic = next(t.id for t in kb.domain.topics if t.questions)
    lessons = [
        _ok(client.get(f"{API}/lessons/{ref['id']}", headers=ann)).json()
        for module in course["modules"]
        for ref in module["lessons"]
    ]
    lesson = next(x for x in lessons if topic in x["concepts"])

    started = _ok(
        client.post(f"{API}/practice/rounds", json={"domain": slug, "topic": topic}, headers=ann),
        201,
    ).json()
    answered = _ok(
        client.post(
            f"{API}/practice/rounds/{started['id']}/answers",
            json={"answer": "I have no idea."},
            headers=ann,
        )
    ).json()
    alert_id = answered["result"]["alert_id"]
    assert alert_id is not None, answered["result"]

    assessment = _ok(
        client.post(
            f"{API}/assessments", json={"domain": "python", "target_level": "junior"}, headers=ann
        ),
        201,
    ).json()
    resume = _ok(
        client.post(f"{API}/resumes", data={"text": f"{RESUME}\n{SECRET}\n"}, headers=ann), 201
    ).json()
    interview = _ok(
        client.post(
            f"{API}/interviews",
            json={"resume_id": resume["id"], "role": "Backend engineer", "level": "mid"},
            headers=ann,
        ),
        201,
    ).json()
    chat = _ok(
        client.post(
            f"{API}/tutor/chat",
            json={"lesson_id": lesson["id"], "message": f"What is a {SECRET}?"},
            headers=ann,
        )
    )
    explore = _ok(
        client.post(
            f"{API}/explore/chat", json={"message": f"Tell me about {SECRET}s"}, headers=ann
        )
    )
    guided = _ok(
        client.post(f"{API}/tutor/session/start", json={"lesson_id": lesson["id"]}, headers=ann),
        201,
    ).json()
    token = _ok(client.post(f"{API}/courses/{slug}/share", headers=ann)).json()["share_token"]
    cy = register_and_login(client, "cy@example.org")  # joins by the link: a member to remove
    _ok(client.post(f"{API}/shares/{token}", headers=cy))

    database = Database(settings)
    try:
        with database.session() as session:
            session.add(  # an image the build extracted (the markdown upload had none)
                ConstructorImage(
                    session_id=constructor_sid,
                    id="img-1",
                    name="diagram.png",
                    media_type="image/png",
                    data=b"\x89PNG\r\n\x1a\n",
                )
            )
            ann_id = session.scalar(select(User.id).where(User.email == "ann@example.org"))
            cy_id = session.scalar(select(User.id).where(User.email == "cy@example.org"))
            step_id = session.scalar(select(NextStep.id).where(NextStep.user_id == ann_id))
            session.commit()
    finally:
        database.dispose()
    assert ann_id is not None and cy_id is not None and step_id is not None
    ids = [
        started["id"],
        assessment["id"],
        resume["id"],
        interview["id"],
        chat.headers["X-Session-Id"],
        explore.headers["X-Session-Id"],
        guided["session_id"],
        constructor_sid,
        upload_id,
        token,
    ]
    return World(
        ann=ann,
        ann_id=ann_id,
        slug=slug,
        title=title,
        lesson_id=lesson["id"],
        lesson_slug=lesson["slug"],
        topic=topic,
        question_id=questions[0].id,
        questions=[q.text for q in questions],
        round_id=started["id"],
        round_question_id=answered["round"]["answered"][0]["id"],
        assessment_id=assessment["id"],
        assessment_question_id=assessment["interrupt"]["question"]["id"],
        resume_id=resume["id"],
        interview_id=interview["id"],
        tutor_session_id=chat.headers["X-Session-Id"],
        explore_session_id=explore.headers["X-Session-Id"],
        guided_session_id=guided["session_id"],
        constructor_session_id=constructor_sid,
        upload_id=upload_id,
        image_id="img-1",
        share_token=token,
        member_id=cy_id,
        alert_id=alert_id,
        step_id=step_id,
        ids=ids,
    )


def forget(world: World) -> None:
    """The process-wide registry of published domains forgets Ann's (tests stay hermetic)."""
    forget_authored(world.slug)


def user_with_role(settings: Settings, email: str, role: str) -> None:
    database = Database(settings)
    try:
        with database.session() as session:
            user = session.scalar(select(User).where(User.email == email))
            assert user is not None
            user.role = role
            session.commit()
    finally:
        database.dispose()
