"""The SSE chat endpoints and the sessions API, through the HTTP interface."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import select

from tests.conftest import register_and_login
from tests.tutor.conftest import chat, explore, lesson_id
from tutorgraph.errors import ProviderUnavailable
from tutorgraph.llm import ScriptedEngine
from tutorgraph.settings import Settings
from tutorgraph.store.db import Database
from tutorgraph.store.models import ChatMessage, LearningPath, TutorSession, User

SQRT = "Why do we divide by the square root of d_k?"


def scripted(client: TestClient) -> ScriptedEngine:
    engine = ScriptedEngine()
    client.app.state.model = engine  # type: ignore[attr-defined]
    return engine


def test_a_turn_streams_the_spec_events_and_is_stored(
    client: TestClient, settings: Settings
) -> None:
    headers = register_and_login(client)
    lesson = lesson_id(settings)

    stream = chat(client, headers, SQRT, lesson_id=lesson)

    assert stream.status == 200
    assert stream.headers["cache-control"] == "no-cache"
    types = stream.types
    # The search comes first, with no opener text before it (decision 0048).
    assert types[0] == "tool_call" and types[-1] == "done" and types.count("done") == 1
    first_call, first_result = types.index("tool_call"), types.index("tool_result")
    assert 0 == first_call < first_result < len(types) - 1
    assert "text" in types[first_result:]
    call = stream.of("tool_call")[0]
    assert call == {
        "type": "tool_call",
        "id": call["id"],
        "name": "search_course",
        "arguments": {"query": SQRT, "lesson_slug": "self-attention", "k": 8},
    }
    # each result names its call: a tool called twice in a round is not confused
    calls = [frame["id"] for frame in stream.of("tool_call")]
    assert [frame["id"] for frame in stream.of("tool_result")] == calls
    assert len(set(calls)) == len(calls) == 2
    assert stream.of("tool_result")[0]["result"]["results"][0]["lesson"] == "self-attention"
    assert stream.of("done") == [{"type": "done"}]

    opened = client.get(f"/api/v1/tutor/sessions/{stream.session_id}", headers=headers).json()
    assert opened["lesson_id"] == lesson and opened["lesson_title"] == "Self-attention"
    assert [(m["role"], m["content"]) for m in opened["messages"]] == [
        ("user", SQRT),
        ("assistant", stream.text),
    ]
    assert opened["title"] == SQRT and opened["message_count"] == 2


def test_continuing_a_session_keeps_its_history(client: TestClient, settings: Settings) -> None:
    headers = register_and_login(client)
    engine = scripted(client)
    engine.enqueue_chat("Good question: what do you think?", "Right, because of the variance.")
    lesson = lesson_id(settings)

    first = chat(client, headers, "Why scale?", lesson_id=lesson, mode="eli5")
    second = chat(
        client,
        headers,
        "Variance?",
        lesson_id=lesson,
        session_id=first.session_id,
        mode="deep_dive",
    )

    assert second.session_id == first.session_id
    assert second.text == "Right, because of the variance."
    request = engine.requests[1]
    assert request.agent == "tutor"
    assert [(m.role, m.content) for m in request.messages[1:]] == [
        ("user", "Why scale?"),
        ("assistant", "Good question: what do you think?"),
        ("user", "Variance?"),
    ]
    assert "Teaching mode: deep_dive" in (request.messages[0].content or "")
    assert [t.name for t in request.tools] == [t.name for t in engine.requests[0].tools]
    listing = client.get("/api/v1/tutor/sessions", headers=headers).json()
    assert [(s["id"], s["message_count"]) for s in listing] == [(first.session_id, 4)]
    assert (
        client.get(f"/api/v1/tutor/sessions?lesson_id={lesson + 1}", headers=headers).json() == []
    )


def test_a_model_failure_is_an_error_frame_and_the_question_is_kept(
    client: TestClient, settings: Settings
) -> None:
    headers = register_and_login(client)
    engine = scripted(client)
    engine.enqueue_chat(ProviderUnavailable("the model server is down"))

    stream = chat(client, headers, "Hello?", lesson_id=lesson_id(settings))

    assert stream.frames == [
        {"type": "error", "message": "the model server is down"},
        {"type": "done"},
    ]
    opened = client.get(f"/api/v1/tutor/sessions/{stream.session_id}", headers=headers).json()
    assert [(m["role"], m["content"], m["interrupted"]) for m in opened["messages"]] == [
        ("user", "Hello?", False),
        ("assistant", "", True),  # the turn stays a pair: the reply is marked cut short
    ]


def test_invalid_requests_are_refused_before_streaming(
    client: TestClient, settings: Settings
) -> None:
    headers = register_and_login(client)
    lesson = lesson_id(settings)
    other_lesson = lesson_id(settings, "transformer-architecture")
    too_long = "x" * (settings.limits.max_message_chars + 1)
    session_id = chat(client, headers, "hi", lesson_id=lesson).session_id

    cases: list[tuple[dict[str, object], int, str]] = [
        ({"lesson_id": 99999, "message": "hi"}, 404, "no lesson 99999"),
        ({"lesson_id": lesson, "message": too_long}, 422, "message: at most 8000 characters"),
        ({"lesson_id": lesson, "message": "   "}, 422, "message: must not be empty"),
        ({"lesson_id": lesson, "message": "hi", "mode": "pirate"}, 422, "mode"),
        ({"lesson_id": lesson, "message": "hi", "session_id": "nope"}, 404, "no conversation"),
        (
            {"lesson_id": other_lesson, "message": "hi", "session_id": session_id},
            422,
            "session_id: that conversation belongs to another lesson",
        ),
    ]
    for body, status, detail in cases:
        response = client.post("/api/v1/tutor/chat", json=body, headers=headers)
        assert response.status_code == status, (body, response.text)
        assert response.headers["content-type"] == "application/problem+json"
        assert detail in response.json()["detail"]
    anonymous = client.post("/api/v1/tutor/chat", json={"lesson_id": lesson, "message": "hi"})
    assert anonymous.status_code == 401
    assert client.post("/api/v1/explore/chat", json={"message": "hi"}).status_code == 401


def test_nobody_else_can_read_continue_or_delete_my_sessions(
    client: TestClient, settings: Settings
) -> None:
    ada = register_and_login(client)
    bob = register_and_login(client, email="bob@example.org")
    lesson = lesson_id(settings)
    mine = chat(client, ada, "hi", lesson_id=lesson).session_id
    my_exploration = explore(client, ada, "hello").session_id

    for path in (f"/api/v1/tutor/sessions/{mine}", f"/api/v1/explore/sessions/{my_exploration}"):
        assert client.get(path, headers=bob).status_code == 404
        assert client.delete(path, headers=bob).status_code == 404
    hijack = client.post(
        "/api/v1/tutor/chat",
        json={"lesson_id": lesson, "message": "mine now", "session_id": mine},
        headers=bob,
    )
    assert hijack.status_code == 404
    hijack = client.post(
        "/api/v1/explore/chat", json={"message": "x", "session_id": my_exploration}, headers=bob
    )
    assert hijack.status_code == 404
    assert client.get("/api/v1/tutor/sessions", headers=bob).json() == []
    assert client.get("/api/v1/explore/sessions", headers=bob).json() == []

    assert client.delete(f"/api/v1/tutor/sessions/{mine}", headers=ada).status_code == 204
    assert client.get(f"/api/v1/tutor/sessions/{mine}", headers=ada).status_code == 404
    database = Database(settings)
    with database.session() as session:
        assert (
            session.scalars(select(ChatMessage).where(ChatMessage.session_id == mine)).all() == []
        )
    database.dispose()


def test_a_private_lesson_is_not_found_for_others(client: TestClient, settings: Settings) -> None:
    ada = register_and_login(client)
    bob = register_and_login(client, email="bob@example.org")
    database = Database(settings)
    with database.session() as session:
        owner = session.scalar(select(User).where(User.email == "ada@example.org"))
        course = session.scalar(
            select(LearningPath).where(LearningPath.slug == "modern-machine-learning")
        )
        assert owner is not None and course is not None
        course.visibility, course.created_by = "private", owner.id
    lesson = lesson_id(settings)

    assert chat(client, ada, "hi", lesson_id=lesson).status == 200
    refused = client.post(
        "/api/v1/tutor/chat", json={"lesson_id": lesson, "message": "hi"}, headers=bob
    )
    assert refused.status_code == 404
    with database.session() as session:
        owners = {s.user_id for s in session.scalars(select(TutorSession))}
    database.dispose()
    assert len(owners) == 1


def test_explore_chat_streams_stores_and_lists(client: TestClient) -> None:
    headers = register_and_login(client)

    first = explore(client, headers, "How do Python generators work?")
    second = explore(client, headers, "And what about iterators?", session_id=first.session_id)

    assert first.types[0] == "tool_call" and first.types[-1] == "done"
    assert first.of("tool_call")[0]["arguments"] == {"query": "How do Python generators work?"}
    assert "Iterators and generators" in first.text
    assert second.session_id == first.session_id
    [listed] = client.get("/api/v1/explore/sessions", headers=headers).json()
    assert listed["id"] == first.session_id and listed["message_count"] == 4
    opened = client.get(f"/api/v1/explore/sessions/{first.session_id}", headers=headers).json()
    assert [m["role"] for m in opened["messages"]] == ["user", "assistant", "user", "assistant"]
    assert opened["messages"][1]["content"] == first.text
    deleted = client.delete(f"/api/v1/explore/sessions/{first.session_id}", headers=headers)
    assert deleted.status_code == 204
    assert client.get("/api/v1/explore/sessions", headers=headers).json() == []


def test_stream_type_is_documented_in_openapi(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    for path in ("/api/v1/tutor/chat", "/api/v1/explore/chat"):
        assert "text/event-stream" in spec["paths"][path]["post"]["responses"]["200"]["content"]


def test_the_tutor_opens_a_conversation_on_a_concept_without_a_learner_message(
    client: TestClient, settings: Settings
) -> None:
    """The learning path's "see it explained another way": the tutor speaks first, in the mode
    asked for, and the conversation holds no message the learner did not write."""
    headers = register_and_login(client)
    lesson = lesson_id(settings)

    stream = chat(client, headers, "", lesson_id=lesson, focus="self-attention", mode="analogy")

    assert stream.status == 200 and stream.of("done") == [{"type": "done"}]
    assert "attention" in stream.text.lower()
    opened = client.get(f"/api/v1/tutor/sessions/{stream.session_id}", headers=headers).json()
    assert [m["role"] for m in opened["messages"]] == ["assistant"]
    assert opened["messages"][0]["content"] == stream.text

    # the learner answers it: the conversation goes on from the tutor's opening
    again = chat(
        client, headers, "why divide by sqrt(d_k)?", lesson_id=lesson, session_id=stream.session_id
    )
    assert again.status == 200
    roles = client.get(f"/api/v1/tutor/sessions/{stream.session_id}", headers=headers).json()
    assert [m["role"] for m in roles["messages"]] == ["assistant", "user", "assistant"]


def test_an_opening_is_refused_with_a_message_a_session_or_another_lessons_concept(
    client: TestClient, settings: Settings
) -> None:
    headers = register_and_login(client)
    lesson = lesson_id(settings)
    with_message = chat(client, headers, "hello", lesson_id=lesson, focus="self-attention")
    assert with_message.status == 422
    elsewhere = chat(client, headers, "", lesson_id=lesson, focus="decorators")
    assert elsewhere.status == 422
    empty = chat(client, headers, "", lesson_id=lesson)
    assert empty.status == 422
