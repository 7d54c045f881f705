"""`tutorgraph bench load --tabs N`: one learner, many tabs.

One learner sends N requests at once, spread over every server process: grades on one concept
(two tabs, a double-clicked Submit), answers in one practice round, and the same next step taken
from every tab. Afterwards the learner's own records are counted against what the server
answered: every grade that returned 200 must be one mastery attempt and one review of the card,
every practice answer that returned 200 one stored answer, and the step one round. A shortfall
is a lost update; a 5xx or a refused connection is an error. A 409 (the question was answered
by the tab before) is the right answer to a duplicate and counts as neither."""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from http.cookiejar import CookieJar, DefaultCookiePolicy
from pathlib import Path
from typing import Any

import httpx

from tutorgraph_bench.load import PASSWORD, running_servers
from tutorgraph_bench.metrics import percentile

GRADE_QUESTION = "self-attention-understand-1"
CONCEPT = "self-attention"
PRACTICE = {"domain": "python", "topic": "decorators-closures"}
ANSWERS = (
    "no idea",
    "It divides the dot products by the square root of the key dimension so the softmax does "
    "not saturate.",
    "Scaling keeps the scores small.",
)
PRACTICE_ANSWER = "A closure keeps the variables of the enclosing scope alive after it returns."


@dataclass
class TabsResult:
    backend: str
    servers: int
    tabs: int
    wall_seconds: float
    statuses: Counter[str] = field(default_factory=Counter)  # "grade 200", "take 200"...
    seconds: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    lost: dict[str, int] = field(default_factory=dict)  # what -> updates missing


def run_tabs_benchmark(
    *,
    tabs: int,
    servers: int,
    database_url: str | None,
    content_dir: Path,
    workdir: Path | None = None,
) -> TabsResult:
    """Serve a fresh data dir (kept in `workdir` when given: server logs, SQLite file) and send
    one learner's `tabs` requests at once."""
    with contextlib.ExitStack() as stack:
        if workdir is None:
            workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="tg-tabs-")))
        workdir.mkdir(parents=True, exist_ok=True)
        urls = stack.enter_context(
            running_servers(
                count=servers, database_url=database_url, workdir=workdir, content_dir=content_dir
            )
        )
        started = time.perf_counter()
        result = asyncio.run(_drive(urls, tabs))
        result.wall_seconds = time.perf_counter() - started
    result.backend = "postgresql" if database_url else "sqlite"
    return result


async def _drive(urls: list[str], tabs: int) -> TabsResult:
    result = TabsResult(backend="", servers=len(urls), tabs=tabs, wall_seconds=0.0)
    limits = httpx.Limits(max_connections=tabs * 3 + 10, max_keepalive_connections=0)
    no_cookies = CookieJar(DefaultCookiePolicy(allowed_domains=[]))
    async with httpx.AsyncClient(timeout=300, limits=limits, cookies=no_cookies) as http:
        headers = await _learner(http, urls[0])
        started = await _json(http, "POST", f"{urls[0]}/api/v1/practice/rounds", headers, PRACTICE)
        round_id = started["id"]
        # a step to take: a weak graded answer plans one that starts a practice round
        await _json(
            http,
            "POST",
            f"{urls[0]}/api/v1/grade",
            headers,
            {"question_id": GRADE_QUESTION, "answer": "no idea"},
        )
        step = await _json(http, "GET", f"{urls[0]}/api/v1/me/next", headers)
        rounds_before = len(await _json(http, "GET", f"{urls[0]}/api/v1/practice/rounds", headers))
        calls = []
        for n in range(tabs):
            url = urls[n % len(urls)]
            kind = ("grade", "grade", "practice", "take")[n % 4]
            if kind == "grade":
                body = {"question_id": GRADE_QUESTION, "answer": ANSWERS[n % len(ANSWERS)]}
                calls.append((kind, "POST", f"{url}/api/v1/grade", body))
            elif kind == "practice":
                path = f"{url}/api/v1/practice/rounds/{round_id}/answers"
                calls.append((kind, "POST", path, {"answer": PRACTICE_ANSWER}))
            else:
                body = {"step_id": step.get("step_id")}
                calls.append((kind, "POST", f"{url}/api/v1/me/next/take", body))
        outcomes = await asyncio.gather(
            *(_timed(http, kind, method, path, headers, body) for kind, method, path, body in calls)
        )
        for kind, status, seconds, error in outcomes:
            result.statuses[f"{kind} {status}"] += 1
            result.seconds.append(seconds)
            if error:
                result.errors.append(f"{kind}: {error}")
        await _count_lost(http, urls[-1], headers, round_id, rounds_before, result)
    return result


async def _count_lost(
    http: httpx.AsyncClient,
    url: str,
    headers: dict[str, str],
    round_id: str,
    rounds_before: int,
    result: TabsResult,
) -> None:
    grades = result.statuses["grade 200"] + 1  # and the weak answer that planned the step
    mastery = await _json(http, "GET", f"{url}/api/v1/mastery", headers)
    attempts = next((row["attempts"] for row in mastery if row["concept"] == CONCEPT), 0)
    reviews = await _json(http, "GET", f"{url}/api/v1/me/reviews", headers)
    reviewed = next((card["reviews"] for card in reviews if card["concept"] == CONCEPT), 0)
    round_ = await _json(http, "GET", f"{url}/api/v1/practice/rounds/{round_id}", headers)
    rounds = await _json(http, "GET", f"{url}/api/v1/practice/rounds", headers)
    takes = result.statuses["take 200"]
    result.lost = {
        "mastery attempts": grades - attempts,
        "review card reviews": grades - reviewed,
        "practice answers": result.statuses["practice 200"] - len(round_["answered"]),
        # every take of one step lands in the same round: one new round, not one per tab
        "step rounds (extra)": (len(rounds) - rounds_before) - (1 if takes else 0),
    }


async def _learner(http: httpx.AsyncClient, url: str) -> dict[str, str]:
    email = f"tabs-{time.time_ns()}@example.org"
    account = {"email": email, "password": PASSWORD, "name": "Many Tabs"}
    await _json(http, "POST", f"{url}/api/v1/auth/register", {}, account, expect=201)
    login = await _json(
        http, "POST", f"{url}/api/v1/auth/login", {}, {"email": email, "password": PASSWORD}
    )
    return {"Authorization": f"Bearer {login['access_token']}"}


async def _json(
    http: httpx.AsyncClient,
    method: str,
    url: str,
    headers: dict[str, str],
    body: dict[str, Any] | None = None,
    *,
    expect: int | None = None,
) -> Any:
    response = await http.request(method, url, json=body, headers=headers)
    if (expect is not None and response.status_code != expect) or response.status_code >= 400:
        raise RuntimeError(f"{method} {url}: {response.status_code} {response.text[:200]}")
    return response.json()


async def _timed(
    http: httpx.AsyncClient,
    kind: str,
    method: str,
    url: str,
    headers: dict[str, str],
    body: dict[str, Any],
) -> tuple[str, str, float, str | None]:
    started = time.perf_counter()
    try:
        response = await http.request(method, url, json=body, headers=headers)
    except httpx.HTTPError as exc:
        return kind, "no response", time.perf_counter() - started, type(exc).__name__
    seconds = time.perf_counter() - started
    status = response.status_code
    # 409: the question was answered by another tab a moment before, the right answer
    error = None if status in (200, 201, 409) else f"{status} {response.text[:200]}"
    return kind, str(status), seconds, error


def markdown(results: list[TabsResult], command: str) -> str:
    lines = [
        "## Load: one learner, many tabs",
        "",
        "One learner sends every request at once, spread over the server processes: grades on "
        "one concept, answers in one practice round, one next step taken from every tab. A lost "
        "update is a 200 the learner's records do not show; a 409 (already answered by "
        "another tab) is the right answer to a duplicate.",
        "",
        f"Command: `{command}`",
        "",
        "| backend | servers | tabs | errors | lost updates | responses | p50 | p99 | wall |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        seconds = sorted(r.seconds)
        lost = sum(max(0, value) for value in r.lost.values())
        detail = ", ".join(f"{k} {v}" for k, v in sorted(r.statuses.items()))
        lines.append(
            f"| {r.backend} | {r.servers} | {r.tabs} | {len(r.errors)} | {lost} | {detail} | "
            f"{percentile(seconds, 0.5) * 1000:.0f} ms | {percentile(seconds, 0.99) * 1000:.0f} ms "
            f"| {r.wall_seconds:.1f} s |"
        )
    return "\n".join(lines) + "\n"
