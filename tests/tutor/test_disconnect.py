"""A lost client does not lose the turn: on a real socket the client hangs up after the first
words, and the whole reply is still stored; at shutdown a running turn stores what it has."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

import httpx
from sqlalchemy import select

from tests.fakes.live_server import LiveServer
from tests.fakes.openai_server import FakeOpenAIServer
from tests.tutor.conftest import lesson_id
from tutorgraph.content.retrieval import SearchIndexes
from tutorgraph.llm import Finish, Message, ScriptedEngine, StreamEvent, TextDelta, ToolSpec
from tutorgraph.server import create_app
from tutorgraph.settings import LLMSettings, Settings
from tutorgraph.store import users
from tutorgraph.store.db import Database
from tutorgraph.store.models import ChatMessage, TutorSession
from tutorgraph.tutor.service import TurnRequest, TutorRuntime

REPLY = " ".join(f"word{n}" for n in range(40)) + "."


def stored(settings: Settings, session_id: str, *, wait: float = 10.0) -> list[tuple[str, str]]:
    """The session's messages once the assistant's reply is complete (or after `wait` seconds)."""
    database = Database(settings)
    deadline = time.monotonic() + wait
    try:
        while True:
            with database.session() as session:
                rows = session.scalars(
                    select(ChatMessage)
                    .where(ChatMessage.session_id == session_id)
                    .order_by(ChatMessage.id)
                ).all()
                messages = [(row.role, row.content) for row in rows]
                complete = any(row.role == "assistant" and not row.interrupted for row in rows)
            if complete or time.monotonic() > deadline:
                return messages
            time.sleep(0.05)
    finally:
        database.dispose()


def test_the_reply_is_stored_when_the_client_hangs_up_mid_stream(
    settings: Settings, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.configure(token_interval=0.05)  # 41 tokens: about two seconds of streaming
    fake_openai.enqueue(REPLY)
    configured = settings.model_copy(
        update={
            "llm": LLMSettings(engine="openai", base_url=fake_openai.base_url, backoff_seconds=0)
        }
    )
    with LiveServer(create_app(configured)) as server, httpx.Client(base_url=server.url) as http:
        http.post(
            "/api/v1/auth/register",
            json={"email": "a@b.co", "password": "correct horse", "name": "A"},
        )
        token = http.post(
            "/api/v1/auth/login", json={"email": "a@b.co", "password": "correct horse"}
        ).json()
        headers = {"Authorization": f"Bearer {token['access_token']}"}
        body = {"lesson_id": lesson_id(settings), "message": "Tell me everything."}
        started = time.monotonic()
        with http.stream("POST", "/api/v1/tutor/chat", json=body, headers=headers) as response:
            session_id = response.headers["x-session-id"]
            for line in response.iter_lines():
                if line.startswith("data: ") and json.loads(line[6:])["type"] == "text":
                    break  # hang up after the first words
        hung_up_after = time.monotonic() - started

        messages = stored(configured, session_id)

    assert hung_up_after < 1.0  # the client really left before the reply was complete
    assert messages == [("user", "Tell me everything."), ("assistant", REPLY)]


class SlowModel:
    """Says a few words, then keeps the turn open until it is cancelled."""

    name = "slow"
    supports_tools = True
    can_stream = True

    def __init__(self) -> None:
        self.started = asyncio.Event()

    async def structured(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    async def stream_chat(
        self,
        messages: Sequence[Message],
        *,
        agent: str,
        tools: Sequence[ToolSpec] = (),
        inputs: Any = None,
    ) -> AsyncIterator[StreamEvent]:
        yield TextDelta(delta="The first half")
        self.started.set()
        await asyncio.sleep(3600)
        yield Finish(reason="stop")


async def test_shutdown_stores_what_a_running_turn_produced(settings: Settings) -> None:
    database = Database(settings)
    with database.session() as session:
        user = users.create_user(
            session=session, email="a@b.co", password="plenty long enough", name="A"
        )
        user_id = user.id
    runtime = TutorRuntime(
        database=database, indexes=SearchIndexes(settings.index_dir), settings=settings
    )
    model = SlowModel()
    request = TurnRequest(
        kind="tutor", user_id=user_id, message="Go.", lesson_id=lesson_id(settings)
    )

    session_id, events = await runtime.start(request, model=model)
    await asyncio.wait_for(model.started.wait(), timeout=5)
    await runtime.aclose(timeout=0.1)
    received = [event async for event in events]

    assert received == [TextDelta(delta="The first half")]
    assert runtime.running == 0
    with database.session() as session:
        chat = session.get(TutorSession, session_id)
        rows = session.scalars(
            select(ChatMessage).where(ChatMessage.session_id == session_id)
        ).all()
        assert chat is not None and chat.updated_at >= chat.created_at
        assert [(r.role, r.content) for r in rows] == [
            ("user", "Go."),
            ("assistant", "The first half"),
        ]
    database.dispose()


class Crash(BaseException):
    """What a dying process looks like to the turn: not an Exception the loop can report."""


def _rows(database: Database, session_id: str) -> list[tuple[str, str, bool]]:
    with database.session() as session:
        rows = session.scalars(
            select(ChatMessage).where(ChatMessage.session_id == session_id).order_by(ChatMessage.id)
        ).all()
        return [(r.role, r.content, r.interrupted) for r in rows]


async def test_a_reply_cut_off_by_a_crash_keeps_what_was_streamed(settings: Settings) -> None:
    database = Database(settings)
    with database.session() as session:
        user_id = users.create_user(
            session=session, email="a@b.co", password="plenty long enough", name="A"
        ).id
    runtime = TutorRuntime(
        database=database, indexes=SearchIndexes(settings.index_dir), settings=settings
    )
    model = ScriptedEngine()
    model.enqueue_chat(["The first ", "half", Crash()], "Picking up where we stopped.")
    lesson = lesson_id(settings)

    session_id, events = await runtime.start(
        TurnRequest(kind="tutor", user_id=user_id, message="Go.", lesson_id=lesson), model=model
    )
    received = [event async for event in events]
    while runtime.running:
        await asyncio.sleep(0.01)

    assert received == [TextDelta(delta="The first "), TextDelta(delta="half")]
    assert _rows(database, session_id) == [
        ("user", "Go.", False),
        ("assistant", "The first half", True),
    ]
    _, events = await runtime.start(
        TurnRequest(
            kind="tutor", user_id=user_id, message="And?", lesson_id=lesson, session_id=session_id
        ),
        model=model,
    )
    _ = [event async for event in events]
    sent = [(m.role, m.content) for m in model.requests[-1].messages[1:]]
    assert sent == [("user", "Go."), ("assistant", "The first half"), ("user", "And?")]
    assert [role for role, _, _ in _rows(database, session_id)] == [
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    await runtime.aclose()
    database.dispose()


async def test_a_streaming_reply_is_stored_while_it_streams(settings: Settings) -> None:
    """If the process dies outright, what has streamed is already in the database."""
    database = Database(settings)
    with database.session() as session:
        user_id = users.create_user(
            session=session, email="a@b.co", password="plenty long enough", name="A"
        ).id
    runtime = TutorRuntime(
        database=database, indexes=SearchIndexes(settings.index_dir), settings=settings
    )
    model = SlowModel()
    session_id, events = await runtime.start(
        TurnRequest(kind="tutor", user_id=user_id, message="Go.", lesson_id=lesson_id(settings)),
        model=model,
    )
    await asyncio.wait_for(model.started.wait(), timeout=5)
    deadline = time.monotonic() + 5
    while (rows := _rows(database, session_id))[-1][1] == "" and time.monotonic() < deadline:
        await asyncio.sleep(0.05)

    assert rows == [("user", "Go.", False), ("assistant", "The first half", True)]
    assert runtime.running == 1  # still streaming
    await runtime.aclose(timeout=0.1)
    _ = [event async for event in events]
    database.dispose()
