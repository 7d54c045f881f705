"""search_web against fake SearxNG and Perplexity-style servers on real sockets."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from tests.fakes.live_server import LiveServer
from tutorgraph.content.retrieval import SearchIndexes
from tutorgraph.errors import ProviderUnavailable
from tutorgraph.llm import ToolCall
from tutorgraph.settings import SearchSettings, Settings
from tutorgraph.store.db import Database
from tutorgraph.tutor.context import TutorContext
from tutorgraph.tutor.tool_handlers import ToolExecutor
from tutorgraph.tutor.tools import tools_for
from tutorgraph.tutor.web_search import ar5iv, search_web

SEARX_RESULTS = [
    {
        "url": "https://arxiv.org/abs/1706.03762",
        "title": "Attention Is All You Need",
        "content": "a",
    },
    {"url": "https://arxiv.org/pdf/1706.03762v7.pdf", "title": "Attention (PDF)", "content": "dup"},
    {
        "url": "https://jalammar.github.io/illustrated-transformer/",
        "title": "Illustrated",
        "content": "b",
    },
    {"url": "https://arxiv.org/abs/2106.09685v2", "title": "LoRA", "content": "c"},
    {"url": "https://d2l.ai/chapter_attention-mechanisms/", "title": "D2L", "content": "d"},
    {"url": "https://example.org/5", "title": "Five", "content": "e"},
    {"url": "https://example.org/6", "title": "Six", "content": "f"},
    {"url": "https://example.org/7", "title": "Seven", "content": "g"},
]


class FakeSearch:
    """A SearxNG JSON endpoint and a Perplexity-style chat endpoint that record what they got."""

    def __init__(self) -> None:
        self.queries: list[dict[str, Any]] = []
        self.status = 200
        self.app = FastAPI()

        @self.app.get("/search")
        async def searx(request: Request) -> JSONResponse:
            self.queries.append(dict(request.query_params))
            if self.status != 200:
                return JSONResponse({"error": "boom"}, status_code=self.status)
            return JSONResponse({"query": request.query_params["q"], "results": SEARX_RESULTS})

        @self.app.post("/chat/completions")
        async def online(request: Request) -> JSONResponse:
            body = await request.json()
            self.queries.append({"body": body, "auth": request.headers.get("authorization")})
            return JSONResponse(
                {
                    "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": "Answer [1]."}}
                    ],
                    "citations": [
                        "https://arxiv.org/abs/1706.03762",
                        "https://pytorch.org/docs/stable/nn.html",
                    ],
                }
            )


@pytest.fixture(scope="module")
def fake_search() -> Iterator[tuple[FakeSearch, str]]:
    fake = FakeSearch()
    with LiveServer(fake.app) as server:
        yield fake, server.url


def test_arxiv_links_point_at_ar5iv() -> None:
    assert (
        ar5iv("https://arxiv.org/abs/1706.03762") == "https://ar5iv.labs.arxiv.org/html/1706.03762"
    )
    assert (
        ar5iv("http://arxiv.org/pdf/2106.09685v2.pdf")
        == "https://ar5iv.labs.arxiv.org/html/2106.09685"
    )
    assert ar5iv("https://example.org/arxiv.org/abs/1") == "https://example.org/arxiv.org/abs/1"


async def test_searxng_results_are_capped_at_five_and_rewritten(
    fake_search: tuple[FakeSearch, str],
) -> None:
    fake, url = fake_search
    fake.queries.clear()
    settings = SearchSettings(provider="searxng", base_url=url)

    result = await search_web("attention is all you need", settings)

    assert fake.queries == [{"q": "attention is all you need", "format": "json"}]
    urls = [r["url"] for r in result["results"]]
    assert urls == [
        "https://ar5iv.labs.arxiv.org/html/1706.03762",  # the PDF duplicate is dropped
        "https://jalammar.github.io/illustrated-transformer/",
        "https://ar5iv.labs.arxiv.org/html/2106.09685",
        "https://d2l.ai/chapter_attention-mechanisms/",
        "https://example.org/5",
    ]
    assert result["results"][0] == {
        "title": "Attention Is All You Need",
        "url": "https://ar5iv.labs.arxiv.org/html/1706.03762",
        "snippet": "a",
    }


async def test_online_model_results_are_only_the_sources_it_returned(
    fake_search: tuple[FakeSearch, str],
) -> None:
    fake, url = fake_search
    fake.queries.clear()
    settings = SearchSettings(provider="openai", base_url=url, api_key="k-123", model="sonar")

    result = await search_web("what is LoRA", settings)

    [sent] = fake.queries
    assert sent["auth"] == "Bearer k-123" and sent["body"]["model"] == "sonar"
    assert sent["body"]["messages"][-1] == {"role": "user", "content": "what is LoRA"}
    assert result["answer"] == "Answer [1]."
    assert [r["url"] for r in result["results"]] == [
        "https://ar5iv.labs.arxiv.org/html/1706.03762",
        "https://pytorch.org/docs/stable/nn.html",
    ]


async def test_a_failing_search_is_an_error_result_never_made_up_results(
    fake_search: tuple[FakeSearch, str], settings: Settings
) -> None:
    fake, url = fake_search
    fake.status = 503
    search = SearchSettings(provider="searxng", base_url=url)
    try:
        with pytest.raises(ProviderUnavailable, match="answered 503"):
            await search_web("anything", search)
        database = Database(settings)
        executor = ToolExecutor(
            context=TutorContext(),
            database=database,
            indexes=SearchIndexes(settings.index_dir),
            search=search,
            allowed=[tool.name for tool in tools_for(search)],
        )
        result = await executor.execute(
            ToolCall(id="c", name="search_web", arguments='{"query": "anything"}')
        )
        database.dispose()
    finally:
        fake.status = 200

    assert result == {"error": "web search failed (the search server answered 503)"}
