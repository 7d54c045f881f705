"""`tutorgraph bench load --sandbox`: the interview code sandbox under load, against a
real `tutorgraph serve` process on loopback (SQLite, offline engine).

Memory. A run that forks 8 children that each fill up to 200 MB (touched, so resident) and hold
it for a second is posted once, 20 times at once by one learner, and 20 times at once by 20
learners. Memory is the sum of the
resident set (VmRSS) of every process below the server (bubblewrap and everything inside),
sampled every 10 ms: a spike shorter than that can be missed, and pages shared between
processes (the interpreter's code) are counted once per process, so it overstates a little.

Saturation. Other users' latency (`GET /api/v1/courses`, 4 clients in a closed loop) idle, then
while learners keep the sandbox full with sleeping runs, then with CPU-bound runs (each posts
again as soon as its run ends, or after the Retry-After the server sends when it is refused).
With the default limit (the CPU count) most runs are refused with 429; a second server admits
as many runs as there are learners (45), to show that runs waiting on the sandbox take no
thread other requests need."""

from __future__ import annotations

import asyncio
import contextlib
import os
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from http.cookiejar import CookieJar, DefaultCookiePolicy
from pathlib import Path
from typing import Any

import httpx

from tutorgraph_bench.load import PASSWORD, running_servers
from tutorgraph_bench.metrics import percentile

MEMORY_HOG = """\
import os, sys, time
children = []
for _ in range(8):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        held = []
        try:
            for _ in range(20):  # up to 200 MB, 10 MB at a time, each touched
                chunk = bytearray(10 * 2**20)
                chunk[::4096] = b"x" * len(chunk[::4096])
                held.append(chunk)
        except MemoryError:
            print("MemoryError at", len(held) * 10, "MB", file=sys.stderr, flush=True)
        time.sleep(1)  # hold it
        os._exit(0 if len(held) == 20 else 1)
    children.append(pid)
failed = sum(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) != 0 for pid in children)
print(len(children), "children,", failed, "short of 200 MB")
sys.exit(1 if failed or len(children) < 8 else 0)
"""
SLEEPER = "import time\ntime.sleep(5)\n"
SPINNER = "while True:\n    pass\n"
RESUME = (
    "# Bench Learner\n\n## Experience\nEngineer, Acme (2020 - 2024)\n- Built Python services.\n\n"
    "## Skills\nPython, SQL\n"
)
PROBE_CLIENTS = 4


@dataclass
class MemoryCase:
    name: str
    runs: int
    statuses: Counter[int] = field(default_factory=Counter)
    outcomes: Counter[str] = field(default_factory=Counter)
    peak_bytes: int = 0
    seconds: float = 0.0


@dataclass
class LatencyCase:
    name: str
    sandbox_runs: int  # the server's limit
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    admitted: int = 0
    refused: int = 0


@dataclass
class SandboxLoadResult:
    cpu_count: int
    memory: list[MemoryCase] = field(default_factory=list)
    latency: list[LatencyCase] = field(default_factory=list)


# ---- memory of the server's children ----------------------------------------------------------


def descendants(root: int) -> list[int]:
    """Every process below `root` (children, theirs...), from /proc."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(stat.parent.name))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def resident_bytes(pid: int) -> int:
    """A process's resident memory (VmRSS); 0 once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


class _Sampler:
    """The peak summed VmRSS of the processes below `root`, sampled every 10 ms."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, sum(map(resident_bytes, descendants(self.root))))
            self._stop.wait(0.01)

    def __enter__(self) -> _Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join()


# ---- learners ---------------------------------------------------------------------------------


async def _learner(http: httpx.AsyncClient, url: str, email: str) -> tuple[dict[str, str], str]:
    """A learner with an interview: (headers, its code-run URL)."""
    account = {"email": email, "password": PASSWORD}
    registered = await http.post(f"{url}/api/v1/auth/register", json=account | {"name": "Bench"})
    login = await http.post(f"{url}/api/v1/auth/login", json=account)
    if login.status_code != 200:
        raise RuntimeError(f"{email}: {registered.text[:200]} / {login.text[:200]}")
    token = login.json()["access_token"]
    headers = {"Authorization": f"Bearer {token}"}
    resume = await http.post(f"{url}/api/v1/resumes", data={"text": RESUME}, headers=headers)
    resume.raise_for_status()
    begin = {"resume_id": resume.json()["id"]}
    interview = await http.post(f"{url}/api/v1/interviews", json=begin, headers=headers)
    interview.raise_for_status()
    return headers, f"{url}/api/v1/interviews/{interview.json()['id']}/code"


async def _learners(http: httpx.AsyncClient, url: str, count: int) -> list[tuple[Any, str]]:
    run_id = time.time_ns()
    made = []
    for n in range(count):  # one by one: registration hashes a password
        made.append(await _learner(http, url, f"sandbox-{run_id}-{n}@example.org"))
    return made


async def _post_run(
    http: httpx.AsyncClient, learner: tuple[dict[str, str], str], code: str
) -> httpx.Response:
    headers, path = learner
    return await http.post(path, json={"code": code}, headers=headers)


# ---- scenarios --------------------------------------------------------------------------------


async def _memory_cases(
    http: httpx.AsyncClient, url: str, server: int, learners: list[Any]
) -> list[MemoryCase]:
    cases = [
        ("one run", [learners[0]]),
        ("20 runs at once, one learner", [learners[0]] * 20),
        ("20 runs at once, 20 learners", learners[:20]),
    ]
    results = []
    for name, who in cases:
        case = MemoryCase(name, len(who))
        started = time.perf_counter()
        with _Sampler(server) as sampler:
            replies = await asyncio.gather(*(_post_run(http, one, MEMORY_HOG) for one in who))
        case.seconds = time.perf_counter() - started
        case.peak_bytes = sampler.peak
        case.statuses = Counter(r.status_code for r in replies)
        case.outcomes = Counter(r.json()["outcome"] for r in replies if r.status_code == 200)
        results.append(case)
    return results


async def _probe(
    http: httpx.AsyncClient, url: str, headers: dict[str, str], seconds: float, case: LatencyCase
) -> None:
    deadline = time.perf_counter() + seconds

    async def client() -> None:
        while time.perf_counter() < deadline:
            started = time.perf_counter()
            try:
                response = await http.get(f"{url}/api/v1/courses", headers=headers)
                ok = response.status_code == 200
            except httpx.HTTPError:
                ok = False
            case.latencies.append(time.perf_counter() - started)
            case.errors += not ok

    await asyncio.gather(*(client() for _ in range(PROBE_CLIENTS)))


async def _keep_busy(
    http: httpx.AsyncClient, learners: list[Any], code: str, stop: asyncio.Event, case: LatencyCase
) -> None:
    async def learner(one: Any) -> None:
        while not stop.is_set():
            try:
                reply = await _post_run(http, one, code)
            except httpx.HTTPError:
                continue
            if reply.status_code == 429:  # a well-behaved client waits as it is told
                case.refused += 1
                await asyncio.sleep(float(reply.headers.get("retry-after", "0.2")))
            else:
                case.admitted += 1

    await asyncio.gather(*(learner(one) for one in learners))


async def _latency_case(
    http: httpx.AsyncClient,
    url: str,
    learners: list[Any],
    *,
    name: str,
    code: str | None,
    seconds: float,
    sandbox_runs: int,
) -> LatencyCase:
    case = LatencyCase(name, sandbox_runs)
    headers = learners[0][0]
    if code is None:
        await _probe(http, url, headers, seconds, case)
        return case
    stop = asyncio.Event()
    busy = asyncio.create_task(_keep_busy(http, learners[1:], code, stop, case))
    await asyncio.sleep(1.0)  # the sandbox fills up
    await _probe(http, url, headers, seconds, case)
    stop.set()
    await busy
    return case


async def _drive(
    url: str,
    server: int,
    *,
    learners: int,
    seconds: float,
    sandbox_runs: int,
    first: bool,
    memory: bool,
) -> tuple[list[MemoryCase], list[LatencyCase]]:
    limits = httpx.Limits(max_connections=learners * 2 + 20, max_keepalive_connections=0)
    no_cookies = CookieJar(DefaultCookiePolicy(allowed_domains=[]))  # bearer tokens only
    async with httpx.AsyncClient(timeout=120, limits=limits, cookies=no_cookies) as http:
        people = await _learners(http, url, learners + 1)  # the first one probes
        memory_cases = await _memory_cases(http, url, server, people[1:]) if memory else []
        latency = []
        for name, code in (("idle", None), ("sleeping runs", SLEEPER), ("CPU-bound runs", SPINNER)):
            if code is None and not first:
                continue  # the permissive server: idle was measured on the first
            latency.append(
                await _latency_case(
                    http,
                    url,
                    people,
                    name=name,
                    code=code,
                    seconds=seconds,
                    sandbox_runs=sandbox_runs,
                )
            )
            if not first:
                break  # sleeping runs only
    return memory_cases, latency


def run_sandbox_benchmark(
    *,
    content_dir: Path,
    learners: int = 20,
    seconds: float = 10.0,
    permissive_learners: int = 45,
    python: str | None = None,
) -> SandboxLoadResult:
    """The memory cases and the saturation latency with the default limits, then sleeping
    runs against a server that admits `permissive_learners` runs at once. `python` runs the
    servers with another interpreter (an older checkout on PYTHONPATH, for a before/after);
    the memory cases are skipped then: unbounded, 20 runs would want 32 GB."""
    result = SandboxLoadResult(cpu_count=os.cpu_count() or 1)
    for runs, count, first in (
        (0, learners, True),
        (permissive_learners, permissive_learners, False),
    ):
        with contextlib.ExitStack() as stack:
            workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="tg-sandbox-")))
            pids: list[int] = []
            limits = {"sandbox_runs": runs} if runs else {}
            [url] = stack.enter_context(
                running_servers(
                    count=1,
                    database_url=None,
                    workdir=workdir,
                    content_dir=content_dir,
                    limits=limits,
                    python=python,
                    pids=pids,
                )
            )
            memory_cases, latency = asyncio.run(
                _drive(
                    url,
                    pids[0],
                    learners=count,
                    seconds=seconds,
                    sandbox_runs=runs or result.cpu_count,
                    first=first,
                    memory=first and python is None,
                )
            )
        result.memory += memory_cases
        result.latency += latency
    return result


# ---- report -----------------------------------------------------------------------------------


def _ms(values: list[float], q: float) -> str:
    return f"{percentile(values, q / 100) * 1000:.0f}" if values else "-"


def _mb(value: int) -> str:
    return f"{value / 2**20:,.0f}"


def sandbox_markdown(result: SandboxLoadResult, command: str, *, note: str = "") -> str:
    lines = [
        "## Load: the interview code sandbox (memory and other users' latency)",
        "",
        f"`{command}`",
        "",
        "One `tutorgraph serve` process on loopback (SQLite, offline engine), default limits "
        f"(`limits.sandbox_runs` = CPU count = {result.cpu_count}, "
        "`interview.sandbox_memory_mb` = 512 for a whole run). Memory: the peak of the summed "
        "VmRSS of every process below the server, sampled every 10 ms (shared pages counted per "
        "process). The program forks 8 children that each fill up to 200 MB (10 MB at a time, "
        "touched) and hold it for a second.",
        *(["", note] if note else []),
        "",
        "| case | runs posted | 200 | 429 | outcomes | peak memory (MB) | wall (s) |",
        "|---|---|---|---|---|---|---|",
    ]
    for case in result.memory:
        outcomes = ", ".join(f"{k} {v}" for k, v in sorted(case.outcomes.items())) or "-"
        lines.append(
            f"| {case.name} | {case.runs} | {case.statuses.get(200, 0)} | "
            f"{case.statuses.get(429, 0)} | {outcomes} | {_mb(case.peak_bytes)} | "
            f"{case.seconds:.1f} |"
        )
    idle = next((c for c in result.latency if c.name == "idle"), None)
    idle_p99 = percentile(idle.latencies, 0.99) if idle and idle.latencies else 0.0
    lines += [
        "",
        f"Other users: `GET /api/v1/courses` from {PROBE_CLIENTS} clients in a closed loop while "
        "the other learners keep posting runs (again at once when one ends, after the Retry-After "
        "the server sends when refused). Latencies in ms.",
        "",
        "| sandbox | runs at once (limit) | requests | errors | p50 | p99 | p99 / idle p99 | "
        "runs done | runs refused (429) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for phase in result.latency:
        p99 = percentile(phase.latencies, 0.99)
        ratio = f"{p99 / idle_p99:.2f}" if idle_p99 and phase is not idle else "-"
        lines.append(
            f"| {phase.name} | {phase.sandbox_runs} | {len(phase.latencies)} | {phase.errors} | "
            f"{_ms(phase.latencies, 50)} | {_ms(phase.latencies, 99)} | {ratio} | "
            f"{phase.admitted} | {phase.refused} |"
        )
    return "\n".join(lines) + "\n"
