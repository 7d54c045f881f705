"""The LLM tutor end to end: HTTP in, the fake OpenAI-compatible server streaming tool calls and
text, tools executed against the real content, SSE out, rows stored."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from tests.conftest import register_and_login
from tests.fakes.live_server import LiveServer
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.tutor.conftest import chat, lesson_id
from tests.tutor.test_web_search import FakeSearch
from tutorgraph.llm import ToolCall
from tutorgraph.server import create_app
from tutorgraph.settings import LLMSettings, SearchSettings, Settings
from tutorgraph.store import migrate

ANSWER = (
    "Dividing by the square root of d_k keeps the scores at unit variance. "
    "What happens to softmax otherwise?"
)


def llm_client(settings: Settings, fake: FakeOpenAIServer, **search: object) -> TestClient:
    configured = settings.model_copy(
        update={
            "llm": LLMSettings(
                engine="openai",
                base_url=fake.base_url,
                model="fake-model",
                backoff_seconds=0,
                timeout_seconds=5,
                fallback_to_offline=False,
            ),
            "search": SearchSettings.model_validate(search) if search else SearchSettings(),
        }
    )
    migrate.upgrade(configured)
    return TestClient(create_app(configured))


@pytest.fixture
def llm(settings: Settings, fake_openai: FakeOpenAIServer) -> Iterator[TestClient]:
    with llm_client(settings, fake_openai) as client:
        yield client


def test_llm_tutor_streams_a_tool_call_and_its_answer(
    llm: TestClient, settings: Settings, fake_openai: FakeOpenAIServer
) -> None:
    headers = register_and_login(llm)
    call = ToolCall(
        id="call_sqrt",
        name="search_course",
        arguments=json.dumps(
            {"query": "divide by square root of d_k", "lesson_slug": "self-attention"}
        ),
    )
    fake_openai.enqueue(Reply(content="Let me check the lesson. ", tool_calls=[call]), ANSWER)

    stream = chat(
        llm, headers, "Why divide by sqrt(d_k)?", lesson_id=lesson_id(settings), mode="deep_dive"
    )

    assert stream.types[-1] == "done"
    assert stream.types.index("tool_call") < stream.types.index("tool_result")
    assert stream.of("tool_call") == [
        {
            "type": "tool_call",
            "id": "call_sqrt",
            "name": "search_course",
            "arguments": {"query": "divide by square root of d_k", "lesson_slug": "self-attention"},
        }
    ]
    [result] = stream.of("tool_result")
    assert result["name"] == "search_course" and result["id"] == "call_sqrt"
    assert "square root" in " ".join(result["result"]["results"][0]["heading_path"]).lower()
    assert stream.text == "Let me check the lesson. " + ANSWER

    first, second = fake_openai.requests
    assert first["stream"] is True and first["model"] == "fake-model"
    tool_names = [tool["function"]["name"] for tool in first["tools"]]
    assert "search_course" in tool_names and "search_web" not in tool_names
    system = first["messages"][0]["content"]
    assert "Title: Self-attention" in system and "Teaching mode: deep_dive" in system
    assert first["messages"][-1] == {"role": "user", "content": "Why divide by sqrt(d_k)?"}
    assistant, tool = second["messages"][-2:]
    assert assistant["tool_calls"][0]["id"] == "call_sqrt"
    assert tool["role"] == "tool" and tool["tool_call_id"] == "call_sqrt"
    assert json.loads(tool["content"])["results"][0]["lesson"] == "self-attention"

    opened = llm.get(f"/api/v1/tutor/sessions/{stream.session_id}", headers=headers).json()
    assert opened["messages"][-1]["content"] == "Let me check the lesson. " + ANSWER


def test_llm_tutor_searches_the_web_when_search_is_configured(
    settings: Settings, fake_openai: FakeOpenAIServer
) -> None:
    fake_search = FakeSearch()
    with (
        LiveServer(fake_search.app) as searx,
        llm_client(settings, fake_openai, provider="searxng", base_url=searx.url) as client,
    ):
        headers = register_and_login(client)
        call = ToolCall(id="call_web", name="search_web", arguments='{"query": "attention paper"}')
        fake_openai.enqueue([call], "The original paper is Vaswani et al. (2017).")

        stream = chat(
            client, headers, "Which paper introduced this?", lesson_id=lesson_id(settings)
        )

    tool_names = [tool["function"]["name"] for tool in fake_openai.requests[0]["tools"]]
    assert "search_web" in tool_names
    [result] = stream.of("tool_result")
    urls = [r["url"] for r in result["result"]["results"]]
    assert len(urls) == 5 and urls[0] == "https://ar5iv.labs.arxiv.org/html/1706.03762"
    assert fake_search.queries == [{"q": "attention paper", "format": "json"}]
    assert stream.text == "The original paper is Vaswani et al. (2017)."


def test_a_failing_model_falls_back_to_the_offline_tutor(
    settings: Settings, fake_openai: FakeOpenAIServer
) -> None:
    configured = settings.model_copy(
        update={
            "llm": LLMSettings(
                engine="openai", base_url=fake_openai.base_url, max_attempts=1, backoff_seconds=0
            )
        }
    )
    with TestClient(create_app(configured)) as client:
        headers = register_and_login(client)
        # Nothing enqueued: the fake answers 400, and the offline tutor takes over.
        stream = chat(client, headers, "What does a causal mask do?", lesson_id=lesson_id(settings))

    assert stream.of("tool_call")[0]["name"] == "search_course"
    assert "_(Source: Self-attention" in stream.text
    assert stream.types[-1] == "done" and "error" not in stream.types
