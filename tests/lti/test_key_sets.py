"""Launches check the platform's key set without stalling the server: fetched off the event
loop, shared by concurrent launches, cached as the platform's Cache-Control says, fetched
again for an unknown key id, given up after a short timeout. `/lti/login` is rate-limited."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import make_settings
from tests.fakes.live_server import LiveServer
from tests.fakes.lti_platform import Platform
from tests.lti.test_lti_flow import COURSE, REPO_CONTENT
from tutorgraph.cli.seed import run_seed
from tutorgraph.lti.keys import KeySetCache, KeySetUnavailable
from tutorgraph.server import create_app
from tutorgraph.settings import Settings
from tutorgraph.store import migrate


def serve(tmp_path: Path, platform: Platform, **limits: int) -> tuple[LiveServer, Settings]:
    settings = make_settings(
        tmp_path,
        content_dir=REPO_CONTENT,
        lti={"platforms": [platform.registration(COURSE)]},
        limits=limits,
    )
    migrate.upgrade(settings)
    run_seed(settings)
    return LiveServer(create_app(settings)), settings


def test_launches_waiting_on_a_slow_key_set_hold_up_no_other_request(
    tmp_path: Path, platform: Platform
) -> None:
    platform.jwks_delay = 2.0
    server, _ = serve(tmp_path, platform)
    with server, httpx.Client(timeout=30) as browser:
        login = browser.get(platform.login_url(server.url, "student-9"))
        auth = httpx.URL(login.headers["location"])
        nonce, state = auth.params["nonce"], auth.params["state"]
        forger = Platform()
        forger.base = platform.base  # claims to be the platform, signs with its own key
        forged = forger.id_token(nonce=nonce, user="student-9", redirect_uri="x")

        def forged_launch() -> tuple[int, float]:
            response = httpx.post(
                f"{server.url}/lti/launch",
                data={"id_token": forged, "state": state},
                cookies=browser.cookies,
                timeout=30,
            )
            return response.status_code, time.monotonic()

        with ThreadPoolExecutor(max_workers=4) as pool:
            launches = [pool.submit(forged_launch) for _ in range(4)]
            time.sleep(0.5)  # all four wait on the key set now
            health = httpx.get(f"{server.url}/healthz", timeout=30)
            answered = time.monotonic()
            results = [launch.result() for launch in launches]
    assert health.status_code == 200
    assert answered < min(at for _, at in results)  # served while the launches waited
    assert [status for status, _ in results] == [401] * 4  # forged: refused
    assert platform.jwks_fetches == 1  # one fetch, shared


def test_logins_per_client_are_limited(tmp_path: Path, platform: Platform) -> None:
    server, _ = serve(tmp_path, platform, lti_logins_per_minute_per_ip=3)
    with server, httpx.Client(timeout=30) as browser:
        statuses = [
            browser.get(platform.login_url(server.url, f"student-{n}")).status_code
            for n in range(4)
        ]
        refused = browser.get(platform.login_url(server.url, "student-5"))
    assert statuses == [302, 302, 302, 429]
    assert "too many LTI logins" in refused.json()["detail"]


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def key_server(
    sets: list[dict[str, Any]], *, cache_control: str = "", delay: float = 0.0
) -> tuple[httpx.MockTransport, list[int]]:
    """A key-set URL answering `sets` in turn (the last one from then on)."""
    fetches: list[int] = []

    async def answer(request: httpx.Request) -> httpx.Response:
        fetches.append(1)
        await asyncio.sleep(delay)
        keys = sets[min(len(fetches), len(sets)) - 1]
        headers = {"Cache-Control": cache_control} if cache_control else {}
        return httpx.Response(200, json=keys, headers=headers)

    return httpx.MockTransport(answer), fetches


OLD = {"keys": [{"kid": "old", "kty": "RSA"}]}
NEW = {"keys": [{"kid": "new", "kty": "RSA"}]}
URL = "https://lms.example/jwks"


async def test_the_key_set_is_cached_as_long_as_cache_control_says() -> None:
    clock = Clock()
    transport, fetches = key_server([OLD], cache_control="public, max-age=600")
    cache = KeySetCache(clock=clock, transport=transport)
    assert await cache.key_set(URL, "old") == OLD
    clock.now += 599
    assert await cache.key_set(URL, "old") == OLD
    assert len(fetches) == 1
    clock.now += 2  # expired
    await cache.key_set(URL, "old")
    assert len(fetches) == 2


async def test_no_store_is_fetched_for_each_launch_and_shared_by_concurrent_ones() -> None:
    transport, fetches = key_server([OLD], cache_control="no-store", delay=0.1)
    cache = KeySetCache(transport=transport)
    await asyncio.gather(*(cache.key_set(URL, "old") for _ in range(4)))
    assert len(fetches) == 1
    await cache.key_set(URL, "old")
    assert len(fetches) == 2


async def test_an_unknown_key_id_fetches_the_rotated_set() -> None:
    clock = Clock()
    transport, fetches = key_server([OLD, NEW], cache_control="max-age=3600")
    cache = KeySetCache(clock=clock, transport=transport, refetch_seconds=30)
    assert await cache.key_set(URL, "old") == OLD
    assert await cache.key_set(URL, "new") == OLD  # just fetched: not again at once
    clock.now += 31
    assert await cache.key_set(URL, "new") == NEW  # the platform rotated its key
    assert await cache.key_set(URL, "made-up") == NEW  # a forged kid: no fetch within 30 s
    assert len(fetches) == 2


async def test_a_key_set_that_does_not_answer_is_given_up_quickly() -> None:
    transport, fetches = key_server([OLD], delay=10)
    cache = KeySetCache(transport=transport, timeout=0.2)
    started = time.monotonic()
    with pytest.raises(KeySetUnavailable, match="Timeout"):
        await cache.key_set(URL, "old")
    with pytest.raises(KeySetUnavailable):  # not asked again at once
        await cache.key_set(URL, "old")
    assert time.monotonic() - started < 2
    assert len(fetches) == 1
