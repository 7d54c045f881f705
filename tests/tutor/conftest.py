"""Tutor tests run against the shipped demo courses, seeded once per session and copied into each
test's own data directory."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from httpx import Response
from sqlalchemy import select

from tests.conftest import seeded_copy
from tutorgraph.settings import Settings
from tutorgraph.store.db import Database
from tutorgraph.store.models import Lesson

EVENT_TYPES = {"text", "tool_call", "tool_result", "error", "done"}


@pytest.fixture
def settings(tmp_path: Path, seeded_data: Path) -> Settings:
    """Settings whose database and search indexes already hold the demo courses."""
    return seeded_copy(tmp_path, seeded_data)


@pytest.fixture
def seeded_database(settings: Settings) -> Iterator[Database]:
    db = Database(settings)
    yield db
    db.dispose()


def lesson_id(settings: Settings, slug: str = "self-attention") -> int:
    db = Database(settings)
    try:
        with db.session() as session:
            found = session.scalar(select(Lesson.id).where(Lesson.slug == slug))
    finally:
        db.dispose()
    assert found is not None
    return found


@dataclass
class Stream:
    """A parsed SSE response."""

    status: int
    headers: dict[str, str]
    frames: list[dict[str, Any]] = field(default_factory=list)

    @property
    def types(self) -> list[str]:
        return [frame["type"] for frame in self.frames]

    @property
    def text(self) -> str:
        return "".join(f["delta"] for f in self.frames if f["type"] == "text")

    @property
    def session_id(self) -> str:
        return self.headers["x-session-id"]

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [frame for frame in self.frames if frame["type"] == kind]


def parse_sse(body: str) -> list[dict[str, Any]]:
    """Every frame must be exactly `data: {json}` followed by a blank line."""
    assert body.endswith("\n\n"), body[-200:]
    frames = []
    for chunk in body.split("\n\n")[:-1]:
        assert chunk.startswith("data: "), chunk
        frame = json.loads(chunk.removeprefix("data: "))
        assert frame["type"] in EVENT_TYPES, frame
        frames.append(frame)
    return frames


def as_stream(response: Response) -> Stream:
    stream = Stream(response.status_code, dict(response.headers))
    if response.status_code == 200:
        assert response.headers["content-type"].startswith("text/event-stream")
        stream.frames = parse_sse(response.text)
    return stream


def chat(client: TestClient, headers: dict[str, str], message: str, **body: object) -> Stream:
    body.setdefault("lesson_id", None)
    if body["lesson_id"] is None:
        raise ValueError("pass lesson_id")
    return as_stream(
        client.post("/api/v1/tutor/chat", json={"message": message, **body}, headers=headers)
    )


def explore(client: TestClient, headers: dict[str, str], message: str, **body: object) -> Stream:
    return as_stream(
        client.post("/api/v1/explore/chat", json={"message": message, **body}, headers=headers)
    )


def public_cards(text: str) -> list[dict[str, Any]]:
    """The quiz cards of a reply as the browser gets them: nothing that gives the answer away."""
    cards = [json.loads(body) for body in re.findall(r"<quiz>(.*?)</quiz>", text, re.DOTALL)]
    for card in cards:
        assert set(card) == {"id", "question", "options"}, card
    return cards
