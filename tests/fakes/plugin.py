"""Pytest plugin: the `fake_openai` fixture (one server per session, state reset for every test)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.openai_server import FakeOpenAIServer


@pytest.fixture(scope="session")
def _fake_openai_session() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def fake_openai(_fake_openai_session: FakeOpenAIServer) -> Iterator[FakeOpenAIServer]:
    """A fake OpenAI-compatible server on a real socket, with an empty queue and no requests."""
    _fake_openai_session.reset()
    yield _fake_openai_session
    _fake_openai_session.reset()
