"""`/readyz` says whether to send this process more traffic: 503 while requests queue for the
threads every request needs, 200 (with the figures) otherwise; `/healthz` stays the liveness
probe and answers either way."""

from __future__ import annotations

import threading
import time
from contextlib import ExitStack

import anyio.to_thread
from fastapi.testclient import TestClient

from tutorgraph import offload


def test_readiness_is_ok_and_reports_the_pools_and_slots(client: TestClient) -> None:
    ready = client.get("/readyz")
    assert ready.status_code == 200, ready.text
    body = ready.json()
    assert body["status"] == "ok" and body["saturated"] == []
    assert {"default", "sandbox", "extraction", "cpu"} <= set(body["pools"])
    assert body["pools"]["default"]["size"] == 40
    assert body["slots"]["sandbox"] == {
        "in_use": 0,
        "capacity": offload.CPU_THREADS,
        "refused": body["slots"]["sandbox"]["refused"],
    }


def test_full_code_runner_is_reported_but_the_process_stays_ready(client: TestClient) -> None:
    runner = offload.slots("sandbox")
    with ExitStack() as held:
        for owner in range(runner.capacity):
            held.enter_context(runner.claim(owner))
        ready = client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json()["full"] == ["sandbox"]
    assert ready.json()["slots"]["sandbox"]["in_use"] == runner.capacity


def test_a_saturated_thread_pool_makes_the_process_unready(client: TestClient) -> None:
    portal = client.portal  # the app's event loop
    assert portal is not None
    default = portal.call(anyio.to_thread.current_default_thread_limiter)
    tokens = default.total_tokens
    release = threading.Event()

    async def hold_a_thread() -> None:
        await anyio.to_thread.run_sync(release.wait)

    portal.call(setattr, default, "total_tokens", 2)
    try:
        blocked = [portal.start_task_soon(hold_a_thread) for _ in range(3)]
        deadline = time.monotonic() + 5
        while default.statistics().tasks_waiting < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        ready = client.get("/readyz")
        alive = client.get("/healthz")
    finally:
        release.set()
        portal.call(setattr, default, "total_tokens", tokens)
    for future in blocked:
        future.result(timeout=5)
    assert ready.status_code == 503, ready.text
    assert ready.json()["status"] == "saturated"
    assert ready.json()["saturated"] == ["default"]
    assert ready.json()["pools"]["default"] == {"busy": 2, "size": 2, "waiting": 1}
    assert alive.status_code == 200  # still alive: only not ready
    assert client.get("/readyz").status_code == 200  # ready again once the work is done
