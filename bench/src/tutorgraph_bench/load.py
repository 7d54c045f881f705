"""`tutorgraph bench load`: many concurrent learners against real server processes.

Each simulated learner registers, logs in, grades an answer, practises (start a round, answer),
holds a two-turn tutor chat (SSE, the second turn continuing the first's session) and takes two
steps of an assessment. With several servers, consecutive requests of one learner alternate
between them, so sessions, chats and assessments must continue across processes. A prober hits
`/healthz` on every server throughout. Servers are `tutorgraph serve` subprocesses on loopback,
migrated and seeded first; nothing leaves the machine."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.cookiejar import CookieJar, DefaultCookiePolicy
from pathlib import Path
from typing import Any

import httpx
import yaml

from tutorgraph_bench.live_server import free_port, server_process
from tutorgraph_bench.metrics import percentile

OPERATIONS = (
    "register",
    "login",
    "grade",
    "practice start",
    "practice answer",
    "tutor chat stream",
    "tutor follow-up (other server)",
    "assessment start",
    "assessment answer",
)
GRADE_QUESTION = "python-data-model-understand-1"
PRACTICE_TOPIC = ("python", "python-data-model")
ANSWER = (
    "A Python variable is a name bound to an object; assignment binds the name, it does not "
    "copy the object, so two names can refer to the same list."
)
PASSWORD = "a long bench password 4 load"
# All simulated learners come from 127.0.0.1, so the per-IP limits are raised for the run.
BENCH_LIMITS = {
    "registrations_per_hour_per_ip": 1_000_000,
    "login_failures_per_ip": 1_000_000,
}


@dataclass
class Sample:
    operation: str
    seconds: float
    error: str | None = None


@dataclass
class LoadResult:
    backend: str
    servers: int
    clients: int
    wall_seconds: float
    samples: list[Sample] = field(default_factory=list)
    health: list[Sample] = field(default_factory=list)

    @property
    def requests(self) -> int:
        return len(self.samples)

    @property
    def errors(self) -> list[Sample]:
        return [s for s in self.samples if s.error is not None]

    @property
    def health_errors(self) -> list[Sample]:
        return [s for s in self.health if s.error is not None]


class LoadError(Exception):
    """One request of a simulated learner failed (status or body not as expected)."""


@contextmanager
def running_servers(
    *,
    count: int,
    database_url: str | None,
    workdir: Path,
    content_dir: Path,
    limits: dict[str, Any] | None = None,
    python: str | None = None,
    pids: list[int] | None = None,
) -> Iterator[list[str]]:
    """Migrate and seed one database, then serve it from `count` processes on loopback (with
    `limits` over the bench's, run by `python` if given; their pids appended to `pids`)."""
    settings_file = workdir / "settings.yaml"
    all_limits = BENCH_LIMITS | (limits or {})
    settings_file.write_text(yaml.safe_dump({"limits": all_limits}), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TUTORGRAPH_")}
    env |= {
        "TUTORGRAPH_SETTINGS_FILE": str(settings_file),
        "TUTORGRAPH_DATA_DIR": str(workdir / "data"),
        "TUTORGRAPH_CONTENT_DIR": str(content_dir.resolve()),
        "TUTORGRAPH_LOG_LEVEL": "WARNING",
    }
    if database_url:
        env["TUTORGRAPH_DATABASE_URL"] = database_url
    cli = [python or sys.executable, "-m", "tutorgraph"]
    for step in (["db", "upgrade"], ["seed"]):
        subprocess.run([*cli, *step], env=env, check=True, capture_output=True, cwd=workdir)
    with contextlib.ExitStack() as stack:
        urls = []
        for n in range(count):
            port = free_port()
            log = stack.enter_context(open(workdir / f"server-{n}.log", "wb"))
            url = f"http://127.0.0.1:{port}"
            serve = ["-m", "tutorgraph", "serve", "--port", str(port)]
            pid = stack.enter_context(
                server_process(serve, env, f"{url}/healthz", cwd=workdir, output=log, python=python)
            )
            urls.append(url)
            if pids is not None:
                pids.append(pid)
        yield urls


class Learner:
    """One simulated learner; request n goes to server n mod len(servers)."""

    def __init__(
        self, number: int, *, run_id: str, http: httpx.AsyncClient, urls: list[str], lesson: int
    ) -> None:
        self.email = f"load-{run_id}-{number}@example.org"
        self.http = http
        self.urls = urls
        self.lesson = lesson
        self.turn = number  # learners start on different servers
        self.headers: dict[str, str] = {}
        self.samples: list[Sample] = []

    def _url(self, path: str) -> str:
        url = self.urls[self.turn % len(self.urls)] + path
        self.turn += 1
        return url

    async def timed(self, operation: str, call: Callable[[], Awaitable[Any]]) -> Any:
        started = time.perf_counter()
        try:
            result = await call()
        except (LoadError, httpx.HTTPError, ValueError, KeyError) as exc:
            self.samples.append(Sample(operation, time.perf_counter() - started, _describe(exc)))
            raise
        self.samples.append(Sample(operation, time.perf_counter() - started))
        return result

    async def post(self, path: str, body: dict[str, Any], expect: int = 200) -> Any:
        response = await self.http.post(self._url(path), json=body, headers=self.headers)
        if response.status_code != expect:
            raise LoadError(f"{response.status_code} {response.text[:160]}")
        return response.json()

    async def chat(self, session_id: str | None) -> str:
        body: dict[str, Any] = {"lesson_id": self.lesson, "message": "Why scale by sqrt(d_k)?"}
        if session_id:
            body["session_id"] = session_id
        url = self._url("/api/v1/tutor/chat")
        async with self.http.stream("POST", url, json=body, headers=self.headers) as response:
            if response.status_code != 200:
                raise LoadError(f"{response.status_code} {(await response.aread())[:160]!r}")
            kinds = []
            async for line in response.aiter_lines():
                if line.startswith("data: "):
                    kinds.append(json.loads(line[6:])["type"])
            if not kinds or kinds[-1] != "done" or "error" in kinds:
                raise LoadError(f"stream ended with {kinds[-3:]}")
            return response.headers["x-session-id"]

    async def run(self) -> None:
        name = {"email": self.email, "password": PASSWORD, "name": "Load"}
        await self.timed("register", lambda: self.post("/api/v1/auth/register", name, 201))
        token = await self.timed(
            "login",
            lambda: self.post("/api/v1/auth/login", {k: name[k] for k in ("email", "password")}),
        )
        self.headers = {"Authorization": f"Bearer {token['access_token']}"}
        grade = {"question_id": GRADE_QUESTION, "answer": ANSWER}
        await self.timed("grade", lambda: self.post("/api/v1/grade", grade))
        domain, topic = PRACTICE_TOPIC
        start = {"domain": domain, "topic": topic}
        quiz = await self.timed(
            "practice start", lambda: self.post("/api/v1/practice/rounds", start, 201)
        )
        await self.timed(
            "practice answer",
            lambda: self.post(f"/api/v1/practice/rounds/{quiz['id']}/answers", {"answer": ANSWER}),
        )
        chat_id = await self.timed("tutor chat stream", lambda: self.chat(None))
        await self.timed("tutor follow-up (other server)", lambda: self.chat(chat_id))
        begin = {"domain": "python", "target_level": "junior"}
        assessment = await self.timed(
            "assessment start", lambda: self.post("/api/v1/assessments", begin, 201)
        )
        await self.timed(
            "assessment answer",
            lambda: self.post(
                f"/api/v1/assessments/{assessment['id']}/answers", {"answer": ANSWER}
            ),
        )


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:200]


def _probe_health(urls: list[str], stop: threading.Event, out: list[Sample]) -> None:
    """Hit every server's /healthz every 100 ms until `stop`. It runs on a thread of its own
    with a blocking client, so the learners' event loop in this process does not delay it."""
    with httpx.Client(timeout=30) as http:
        while not stop.is_set():
            for url in urls:
                started = time.perf_counter()
                try:
                    response = http.get(f"{url}/healthz")
                    error = None if response.status_code == 200 else str(response.status_code)
                except httpx.HTTPError as exc:
                    error = _describe(exc)
                out.append(Sample("healthz", time.perf_counter() - started, error))
            stop.wait(0.1)


async def drive(
    urls: list[str], *, clients: int, lesson: int, seed: int, timeout: float
) -> tuple[list[Sample], list[Sample], float]:
    """Run `clients` learners at once; return their samples, the health samples, wall time."""
    rng = random.Random(seed)
    run_id = f"{seed}-{int(time.time())}"
    # A connection per request: no request can race a server closing an idle keep-alive
    # connection (the client's busy loop can hold a request past the server's 5 s timer).
    limits = httpx.Limits(max_connections=clients * 2 + 10, max_keepalive_connections=0)
    health: list[Sample] = []
    stop = threading.Event()
    # Learners are API clients with bearer tokens: the shared client keeps no cookies, so one
    # learner's session cookie never rides along with another's requests.
    no_cookies = CookieJar(DefaultCookiePolicy(allowed_domains=[]))
    async with (
        httpx.AsyncClient(limits=limits, timeout=timeout, cookies=no_cookies) as http,
    ):
        learners = [
            Learner(n, run_id=run_id, http=http, urls=urls, lesson=lesson) for n in range(clients)
        ]

        async def one(learner: Learner) -> None:
            await asyncio.sleep(rng.random() * 0.5)  # arrivals spread over half a second
            # A failure is recorded as that request's sample; the learner stops there.
            with contextlib.suppress(LoadError, httpx.HTTPError, ValueError, KeyError):
                await learner.run()

        prober = threading.Thread(target=_probe_health, args=(urls, stop, health), daemon=True)
        prober.start()
        started = time.perf_counter()
        await asyncio.gather(*(one(learner) for learner in learners))
        wall = time.perf_counter() - started
        stop.set()
        prober.join(timeout=60)
    samples = [s for learner in learners for s in learner.samples]
    return samples, health, wall


def first_lesson(url: str) -> int:
    """A lesson of the seeded demo content (the tutor chats about it)."""
    with httpx.Client(base_url=url, timeout=30) as http:
        email = f"load-probe-{time.time_ns()}@example.org"
        http.post("/api/v1/auth/register", json={"email": email, "password": PASSWORD, "name": "P"})
        token = http.post("/api/v1/auth/login", json={"email": email, "password": PASSWORD})
        headers = {"Authorization": f"Bearer {token.json()['access_token']}"}
        course = http.get("/api/v1/courses", headers=headers).json()[0]
        detail = http.get(f"/api/v1/courses/{course['slug']}", headers=headers).json()
        lesson: int = detail["modules"][0]["lessons"][0]["id"]
        return lesson


def run_load_benchmark(
    *,
    clients: int,
    servers: int,
    database_url: str | None,
    content_dir: Path,
    seed: int = 1,
    timeout: float = 120.0,
    workdir: Path | None = None,
) -> LoadResult:
    """Serve a fresh data dir (kept in `workdir` when given: server logs, SQLite file)."""
    backend = "postgresql" if database_url else "sqlite"
    with contextlib.ExitStack() as stack:
        if workdir is None:
            workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="tg-load-")))
        workdir.mkdir(parents=True, exist_ok=True)
        urls = stack.enter_context(
            running_servers(
                count=servers, database_url=database_url, workdir=workdir, content_dir=content_dir
            )
        )
        lesson = first_lesson(urls[0])
        samples, health, wall = asyncio.run(
            drive(urls, clients=clients, lesson=lesson, seed=seed, timeout=timeout)
        )
    return LoadResult(backend, servers, clients, wall, samples, health)


def _ms(values: list[float], q: float) -> str:
    return f"{percentile(values, q / 100) * 1000:.0f}" if values else "-"


def markdown(results: list[LoadResult], command: str) -> str:
    lines = [
        "## Load: concurrent learners against real server processes",
        "",
        f"`{command}`",
        "",
        "Each simulated learner registers, logs in, grades an answer, starts and answers a "
        "practice round, holds a two-turn tutor chat (SSE; the follow-up continues the session) "
        "and takes two assessment steps, all at once with the others (arrivals spread over "
        "0.5 s). With two servers a learner's consecutive requests alternate between them. "
        "Offline engine; per-IP rate limits raised for the run (every learner is 127.0.0.1). "
        "The load generator, the server processes and PostgreSQL share the machine's cores, so "
        "request latencies are mostly queueing behind CPU-bound work (password hashing, "
        "grading, composing replies); `/healthz` is probed from a thread of its own. "
        "Latencies in ms.",
        "",
    ]
    for result in results:
        ok = [s for s in result.samples if s.error is None]
        health = [s.seconds for s in result.health]
        lines += [
            f"### {result.backend}, {result.servers} server process(es), "
            f"{result.clients} concurrent learners",
            "",
            f"- requests {result.requests}, errors **{len(result.errors)}**, "
            f"wall {result.wall_seconds:.1f} s, throughput "
            f"{len(ok) / result.wall_seconds:.1f} requests/s",
            f"- `/healthz` during the run: {len(health)} probes, "
            f"{len(result.health_errors)} failed, p50 {_ms(health, 50)} / "
            f"p95 {_ms(health, 95)} / p99 **{_ms(health, 99)}** / max "
            f"{max(health) * 1000 if health else 0:.0f}",
            "",
            "| operation | requests | errors | p50 | p95 | p99 |",
            "|---|---|---|---|---|---|",
        ]
        for operation in OPERATIONS:
            rows = [s for s in result.samples if s.operation == operation]
            times = [s.seconds for s in rows]
            errors = sum(s.error is not None for s in rows)
            lines.append(
                f"| {operation} | {len(rows)} | {errors} | {_ms(times, 50)} | "
                f"{_ms(times, 95)} | {_ms(times, 99)} |"
            )
        if result.errors:
            kinds: dict[str, int] = {}
            for sample in result.errors:
                key = f"{sample.operation}: {sample.error}"[:160]
                kinds[key] = kinds.get(key, 0) + 1
            lines += ["", "Errors:", ""]
            lines += [f"- {count} x {key}" for key, count in sorted(kinds.items())]
        lines.append("")
    return "\n".join(lines)
