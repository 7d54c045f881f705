"""`search_web`: a SearxNG JSON API or an OpenAI-compatible online model (Perplexity-style, whose
replies carry `search_results` / `citations`). Results are capped at 5, arXiv links point at
ar5iv, and only what the provider returned is passed on: nothing is ever made up."""

from __future__ import annotations

import logging
import re
from typing import Any
from urllib.parse import urlsplit

import httpx
from pydantic import BaseModel

from tutorgraph.errors import ConfigurationError, ProviderUnavailable
from tutorgraph.settings import SearchSettings
from tutorgraph.tutor.prompts import search_messages

log = logging.getLogger(__name__)

MAX_RESULTS = 5
TIMEOUT_SECONDS = 20.0
_ARXIV = re.compile(
    r"^https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf|html)/(?P<id>[^?#\s]+?)(?:\.pdf)?/?(?:[?#].*)?$",
    re.IGNORECASE,
)


class WebResult(BaseModel):
    title: str
    url: str
    snippet: str = ""


def ar5iv(url: str) -> str:
    """arXiv abstract / PDF links rewritten to the readable ar5iv HTML rendering."""
    match = _ARXIV.match(url.strip())
    if match is None:
        return url
    paper = re.sub(r"v\d+$", "", match.group("id"))
    return f"https://ar5iv.labs.arxiv.org/html/{paper}"


async def search_web(
    query: str, settings: SearchSettings, *, client: httpx.AsyncClient | None = None
) -> dict[str, Any]:
    """`{"query", "results": [{title, url, snippet}], "answer"?}` from the configured provider."""
    if not settings.enabled or settings.base_url is None:
        raise ConfigurationError("search.provider: web search is not configured")
    owned = client is None
    http = client or httpx.AsyncClient(timeout=TIMEOUT_SECONDS)
    try:
        if settings.provider == "searxng":
            results, answer = await _searxng(http, settings, query)
        else:
            results, answer = await _online_model(http, settings, query)
    except (httpx.HTTPError, ValueError, KeyError, TypeError) as exc:
        log.warning("web search via %s failed: %s", settings.provider, type(exc).__name__)
        raise ProviderUnavailable(f"web search failed ({_describe(exc)})") from exc
    finally:
        if owned:
            await http.aclose()
    limit = min(settings.max_results, MAX_RESULTS)
    payload: dict[str, Any] = {
        "query": query,
        "results": [r.model_dump() for r in _clean(results)[:limit]],
    }
    if answer:
        payload["answer"] = answer
    return payload


def _headers(settings: SearchSettings) -> dict[str, str]:
    if settings.api_key is None:
        return {}
    return {"Authorization": f"Bearer {settings.api_key.get_secret_value()}"}


async def _searxng(
    http: httpx.AsyncClient, settings: SearchSettings, query: str
) -> tuple[list[WebResult], str]:
    base = (settings.base_url or "").rstrip("/")
    response = await http.get(
        f"{base}/search", params={"q": query, "format": "json"}, headers=_headers(settings)
    )
    response.raise_for_status()
    data = response.json()
    results = [
        WebResult(
            title=str(item.get("title") or ""),
            url=str(item["url"]),
            snippet=str(item.get("content") or ""),
        )
        for item in data.get("results", [])
        if isinstance(item, dict) and item.get("url")
    ]
    return results, ""


async def _online_model(
    http: httpx.AsyncClient, settings: SearchSettings, query: str
) -> tuple[list[WebResult], str]:
    base = (settings.base_url or "").rstrip("/")
    response = await http.post(
        f"{base}/chat/completions",
        json={"model": settings.model, "messages": search_messages(query)},
        headers=_headers(settings),
    )
    response.raise_for_status()
    data = response.json()
    choices = data.get("choices") or []
    answer = str((choices[0].get("message") or {}).get("content") or "") if choices else ""
    results = [
        WebResult(
            title=str(item.get("title") or _host(str(item["url"]))),
            url=str(item["url"]),
            snippet=str(item.get("snippet") or item.get("date") or ""),
        )
        for item in data.get("search_results") or []
        if isinstance(item, dict) and item.get("url")
    ]
    if not results:
        results = [
            WebResult(title=_host(url), url=url)
            for url in data.get("citations") or []
            if isinstance(url, str) and url.startswith("http")
        ]
    return results, answer


def _clean(results: list[WebResult]) -> list[WebResult]:
    seen: set[str] = set()
    cleaned = []
    for result in results:
        url = ar5iv(result.url)
        if not url.startswith(("http://", "https://")) or url in seen:
            continue
        seen.add(url)
        cleaned.append(result.model_copy(update={"url": url, "snippet": result.snippet[:500]}))
    return cleaned


def _host(url: str) -> str:
    return urlsplit(url).hostname or url


def _describe(exc: Exception) -> str:
    if isinstance(exc, httpx.HTTPStatusError):
        return f"the search server answered {exc.response.status_code}"
    if isinstance(exc, httpx.TimeoutException):
        return "the search server timed out"
    if isinstance(exc, httpx.HTTPError):
        return "the search server could not be reached"
    return "the search server's reply was not understood"
