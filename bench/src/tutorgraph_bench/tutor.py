"""Tutor streaming latency: the fake OpenAI-compatible server streams at a fixed token rate after a
fixed first-token delay, each in its own process beside one tutorgraph server process (uvicorn on
loopback). Measured: time to the first SSE text event against the model server's own first-token
time, and many concurrent chat streams (errors, median and p95 time to first token)."""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import httpx
from sqlalchemy import select

from tutorgraph.content.seeding import seed_database
from tutorgraph.security import create_access_token
from tutorgraph.settings import Settings
from tutorgraph.store import migrate, users
from tutorgraph.store.db import Database
from tutorgraph.store.models import Lesson
from tutorgraph_bench.live_server import free_port, server_process

BENCH_SECRET = "tutorgraph-benchmark-secret-not-for-production"
QUESTION = "Why do we divide by the square root of d_k?"


@dataclass(frozen=True)
class TutorBenchConfig:
    first_token_delay: float = 0.5
    token_interval: float = 0.02
    reply_tokens: int = 40
    sequential: int = 20
    concurrency: int = 200
    content_dir: Path = Path("content")


@dataclass(frozen=True)
class Sample:
    first_text: float | None
    total: float
    error: str | None


@dataclass(frozen=True)
class TutorBenchResult:
    config: TutorBenchConfig
    direct_ttft: float
    sequential_ttft: float
    concurrent: list[Sample]
    wall_seconds: float
    server_cpu_seconds: float | None = None

    @property
    def ratio(self) -> float:
        return self.sequential_ttft / self.direct_ttft

    @property
    def errors(self) -> list[str]:
        return [s.error for s in self.concurrent if s.error is not None]

    def concurrent_ttft(self, quantile: float) -> float:
        values = sorted(s.first_text for s in self.concurrent if s.first_text is not None)
        if not values:
            return float("nan")
        return values[min(len(values) - 1, round(quantile * (len(values) - 1)))]


def run_tutor_benchmark(config: TutorBenchConfig) -> TutorBenchResult:
    """Seed a scratch database, start both servers, measure, stop them."""
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        settings = Settings(
            data_dir=root / "data",
            content_dir=config.content_dir.resolve(),
            jwt_secret=BENCH_SECRET,
        )
        migrate.upgrade(settings)
        seed_database(settings)
        token, lesson = _learner(settings)
        fake_port, app_port = free_port(), free_port()
        reply = " ".join(f"token{n}" for n in range(config.reply_tokens))
        fake = [
            *("-m", "tutorgraph_bench.serve_fake_openai", "--port", str(fake_port)),
            *("--first-token-delay", str(config.first_token_delay)),
            *("--token-interval", str(config.token_interval), "--reply", reply),
        ]
        app = [
            *("-m", "uvicorn", "tutorgraph.server:create_app", "--factory"),
            *("--host", "127.0.0.1", "--port", str(app_port), "--log-level", "warning"),
            *("--no-access-log", "--backlog", "4096"),
        ]
        env = _server_env(settings, root, fake_port)
        with (
            server_process(fake, env, f"http://127.0.0.1:{fake_port}/v1/models"),
            server_process(app, env, f"http://127.0.0.1:{app_port}/healthz") as server,
        ):
            return asyncio.run(_measure(config, app_port, fake_port, token, lesson, server))


def _learner(settings: Settings) -> tuple[str, int]:
    database = Database(settings)
    try:
        with database.session() as session:
            user = users.create_user(
                session=session,
                email="bench@example.org",
                password="load-test passphrase",
                name="Bench",
            )
            lesson = session.scalar(select(Lesson.id).where(Lesson.slug == "self-attention"))
            if lesson is None:
                lesson = session.scalar(select(Lesson.id).order_by(Lesson.id))
            assert lesson is not None, "the content directory has no lessons"
            token = create_access_token(
                settings, user_id=user.id, role=user.role, token_version=user.token_version
            )
            return token, lesson
    finally:
        database.dispose()


def _server_env(settings: Settings, root: Path, fake_port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TUTORGRAPH_")}
    env.update(
        {
            "TUTORGRAPH_SETTINGS_FILE": str(root / "no-settings.yaml"),
            "TUTORGRAPH_DATA_DIR": str(settings.data_dir),
            "TUTORGRAPH_CONTENT_DIR": str(settings.content_dir),
            "TUTORGRAPH_JWT_SECRET": BENCH_SECRET,
            "TUTORGRAPH_LLM_ENGINE": "openai",
            "TUTORGRAPH_LLM_BASE_URL": f"http://127.0.0.1:{fake_port}/v1",
            "TUTORGRAPH_LLM_MODEL": "fake-model",
            "TUTORGRAPH_LLM_MAX_ATTEMPTS": "1",
            "TUTORGRAPH_LLM_TIMEOUT_SECONDS": "120",
            "TUTORGRAPH_LLM_FALLBACK_TO_OFFLINE": "false",
        }
    )
    return env


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process (Linux /proc; None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _measure(
    config: TutorBenchConfig, app_port: int, fake_port: int, token: str, lesson: int, server: int
) -> TutorBenchResult:
    limits = httpx.Limits(max_connections=config.concurrency + 10, max_keepalive_connections=20)
    async with httpx.AsyncClient(limits=limits, timeout=300) as client:
        direct = [await _direct(client, fake_port) for _ in range(config.sequential)]
        chat = _chat(client, f"http://127.0.0.1:{app_port}/api/v1/tutor/chat", token, lesson)
        for _ in range(2):  # warm-up: imports, index load, connection pools
            await chat()
        sequential = [await chat() for _ in range(config.sequential)]
        failed = [s.error for s in sequential if s.error is not None]
        if failed:
            raise RuntimeError(f"sequential chat failed: {failed[0]}")
        cpu_before = _cpu_seconds(server)
        started = time.perf_counter()
        concurrent = await asyncio.gather(*(chat() for _ in range(config.concurrency)))
        wall = time.perf_counter() - started
        cpu_after = _cpu_seconds(server)
    cpu = cpu_after - cpu_before if cpu_before is not None and cpu_after is not None else None
    return TutorBenchResult(
        config=config,
        direct_ttft=statistics.median(direct),
        sequential_ttft=statistics.median(s.first_text or 0.0 for s in sequential),
        concurrent=list(concurrent),
        wall_seconds=wall,
        server_cpu_seconds=cpu,
    )


async def _direct(client: httpx.AsyncClient, fake_port: int) -> float:
    """The model server's own time to the first content token, seen by a client."""
    body = {"model": "fake-model", "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    started = time.perf_counter()
    url = f"http://127.0.0.1:{fake_port}/v1/chat/completions"
    async with client.stream("POST", url, json=body) as response:
        async for line in response.aiter_lines():
            choices = json.loads(line[6:])["choices"] if line.startswith("data: {") else []
            if choices and choices[0]["delta"].get("content"):
                return time.perf_counter() - started
    raise RuntimeError("the fake model server streamed no content")


def _chat(
    client: httpx.AsyncClient, url: str, token: str, lesson: int
) -> Callable[[], Awaitable[Sample]]:
    headers = {"Authorization": f"Bearer {token}"}

    async def one() -> Sample:
        body = {"lesson_id": lesson, "message": QUESTION}
        started = time.perf_counter()
        first: float | None = None
        error: str | None = None
        done = False
        try:
            async with client.stream("POST", url, json=body, headers=headers) as response:
                if response.status_code != 200:
                    await response.aread()
                    return Sample(
                        None, time.perf_counter() - started, f"HTTP {response.status_code}"
                    )
                async for line in response.aiter_lines():
                    if not line.startswith("data: "):
                        continue
                    frame = json.loads(line[6:])
                    if frame["type"] == "text" and first is None:
                        first = time.perf_counter() - started
                    elif frame["type"] == "error":
                        error = frame["message"]
                    elif frame["type"] == "done":
                        done = True
        except httpx.HTTPError as exc:
            error = f"{type(exc).__name__}: {exc}"
        if error is None and (first is None or not done):
            error = "the stream ended without text and done"
        return Sample(first, time.perf_counter() - started, error)

    return one


def markdown(result: TutorBenchResult, command: str) -> str:
    config = result.config
    n = len(result.concurrent)
    target = "met" if result.ratio <= 1.10 else "NOT met"
    errors = len(result.errors)
    totals = [s.total for s in result.concurrent]
    median, p95 = result.concurrent_ttft(0.5) * 1000, result.concurrent_ttft(0.95) * 1000
    cpu = result.server_cpu_seconds
    cpu_row = f"\n| tutorgraph CPU per chat, concurrent | {cpu / n * 1e3:.1f} ms |" if cpu else ""
    return (
        "## Tutor streaming latency (SSE over the fake OpenAI-compatible server)\n\n"
        f"Command: `{command}`\n\n"
        f"The fake model server (its own process) waits {config.first_token_delay:.2f} s before "
        f"its first token, then streams {config.reply_tokens} tokens one every "
        f"{config.token_interval * 1000:.0f} ms. One tutorgraph process (uvicorn, SQLite) serves "
        "`POST /api/v1/tutor/chat` on loopback; each chat is a new session (auth, visibility "
        "check, session and message rows, prompt with the full lesson, tools offered, both "
        "messages stored).\n\n"
        "| metric | value |\n|---|---|\n"
        f"| model server's own time to first token (median of {config.sequential}) "
        f"| {result.direct_ttft * 1000:.0f} ms |\n"
        f"| time to first SSE text event, one chat at a time (median of {config.sequential}) "
        f"| {result.sequential_ttft * 1000:.0f} ms |\n"
        f"| ratio (target <= 1.10) | {result.ratio:.3f} ({target}) |\n"
        f"| concurrent chat streams | {n} |\n"
        f"| errors | {errors} |\n"
        f"| time to first token, concurrent: median | {median:.0f} ms |\n"
        f"| time to first token, concurrent: p95 | {p95:.0f} ms |\n"
        f"| whole stream, concurrent: median | {statistics.median(totals) * 1000:.0f} ms |\n"
        f"| wall time for all {n} streams | {result.wall_seconds:.2f} s |"
        + cpu_row
        + f"\n\nThe three processes (model server, tutorgraph, load client) share {os.cpu_count()} "
        "CPUs. Under load the tutorgraph process is CPU-bound: every chat costs the CPU time in "
        "the last row, so with 200 streams at once most of the time to first token is spent "
        "waiting for the CPU rather than for the model."
    )
