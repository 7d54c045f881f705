"""Many requests at once against a real server socket: none fails, and health keeps answering.

Before one session per request with no connection held across hashing or grading, 50
concurrent registrations or grades exhausted the connection pool: most failed with 500 after a
30 s pool timeout and /healthz stalled with them. Latency targets live in `tutorgraph bench
load`; this test asserts only outcomes."""

from __future__ import annotations

import asyncio
from http.cookiejar import CookieJar, DefaultCookiePolicy
from pathlib import Path

import httpx

from tests.conftest import make_settings
from tutorgraph.server import create_app
from tutorgraph.store import migrate
from tutorgraph_bench.live_server import LiveServer

CONCURRENT = 50
PASSWORD = "a long concurrency password"


async def _learner(http: httpx.AsyncClient, n: int) -> list[int]:
    email = f"learner{n}@example.org"
    account = {"email": email, "password": PASSWORD, "name": f"L{n}"}
    registered = await http.post("/api/v1/auth/register", json=account)
    login = await http.post("/api/v1/auth/login", json={"email": email, "password": PASSWORD})
    if login.status_code != 200:
        return [registered.status_code, login.status_code, login.text]  # type: ignore[list-item]
    headers = {"Authorization": f"Bearer {login.json()['access_token']}"}
    answer = {"question_id": "self-attention-understand-1", "answer": "Scaled dot products."}
    graded = await http.post("/api/v1/grade", json=answer, headers=headers)
    mastery = await http.get("/api/v1/mastery", headers=headers)
    assert graded.status_code != 200 or mastery.json()[0]["attempts"] == 1
    return [registered.status_code, login.status_code, graded.status_code, mastery.status_code]


async def _run(url: str) -> tuple[list[list[int]], list[int]]:
    health: list[int] = []
    done = asyncio.Event()
    limits = httpx.Limits(max_connections=CONCURRENT * 2 + 5, max_keepalive_connections=0)
    # API clients with bearer tokens: keep no cookie, or one learner's would ride on the next's.
    no_cookies = CookieJar(DefaultCookiePolicy(allowed_domains=[]))
    async with httpx.AsyncClient(
        base_url=url, timeout=120, limits=limits, cookies=no_cookies
    ) as http:

        async def probe() -> None:
            while not done.is_set():
                health.append((await http.get("/healthz")).status_code)
                await asyncio.sleep(0.05)

        prober = asyncio.create_task(probe())
        try:
            statuses = await asyncio.gather(*(_learner(http, n) for n in range(CONCURRENT)))
        finally:
            done.set()
            await prober
    return statuses, health


def test_fifty_learners_at_once_all_succeed(tmp_path: Path, backend: str) -> None:
    # Every learner here is 127.0.0.1; the per-IP registration limit is not under test.
    settings = make_settings(tmp_path, backend, limits={"registrations_per_hour_per_ip": 1000})
    migrate.upgrade(settings)
    with LiveServer(create_app(settings), name="tutorgraph") as server:
        statuses, health = asyncio.run(_run(server.url))
    assert statuses == [[201, 200, 200, 200]] * CONCURRENT
    assert health and set(health) == {200}
