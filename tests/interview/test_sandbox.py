"""The interview sandbox: real runs under bubblewrap, limits hit on purpose, escapes refused."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tutorgraph import offload
from tutorgraph.sandbox import (
    SandboxLimits,
    SandboxUnavailable,
    _cgroup_problem,
    _probe,
    memory_mode,
    run_python,
    sandbox_available,
)
from tutorgraph_bench.sandbox_load import descendants, resident_bytes

pytestmark = pytest.mark.skipif(
    not sandbox_available(),
    reason="bubblewrap missing or not permitted to create namespaces: apt-get install bubblewrap",
)

FAST = SandboxLimits(cpu_seconds=1, wall_seconds=3.0, memory_mb=128)
PROJECT_DIR = Path(__file__).resolve().parents[2]


def processes_of(uid: int) -> list[int]:
    """Host pids whose real uid is `uid`."""
    pids = []
    for entry in Path("/proc").iterdir():
        try:
            status = (entry / "status").read_text()
        except (OSError, ValueError):
            continue  # not a pid, or gone meanwhile
        real_uid = next(line.split()[1] for line in status.splitlines() if line.startswith("Uid:"))
        if int(real_uid) == uid:
            pids.append(int(entry.name))
    return pids


def survivors(uid: int, grace: float = 1.0) -> list[int]:
    """Processes of `uid` still there after `grace` seconds (the last ones may be mid-exit)."""
    deadline = time.monotonic() + grace
    while (pids := processes_of(uid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return pids


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP port on the host's loopback that accepts connections."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        yield server.getsockname()[1]


def test_prints_output_and_exits_zero() -> None:
    result = run_python("print('hello')\nprint(6 * 7)", limits=FAST)

    assert (result.outcome, result.exit_code) == ("ok", 0)
    assert result.stdout == "hello\n42\n"
    assert result.stderr == ""
    assert not result.truncated


def test_stdin_reaches_the_program() -> None:
    code = (
        "name = input()\nrest = __import__('sys').stdin.read()\nprint(name.upper(), rest.split())"
    )

    result = run_python(code, limits=FAST, stdin="ada\n3 4 5\n")

    assert result.outcome == "ok"
    assert result.stdout == "ADA ['3', '4', '5']\n"


def test_runtime_error_reports_the_traceback() -> None:
    code = "print('before')\ndef f():\n    return 1 / 0\nf()\n"

    result = run_python(code, limits=FAST)

    assert (result.outcome, result.exit_code) == ("error", 1)
    assert result.stdout == "before\n"
    assert result.stderr.startswith("Traceback (most recent call last):")
    assert 'File "/tmp/main.py", line 3, in f' in result.stderr
    assert result.stderr.rstrip().endswith("ZeroDivisionError: division by zero")


def test_exit_status_is_passed_through() -> None:
    result = run_python("raise SystemExit(3)", limits=FAST)

    assert (result.outcome, result.exit_code, result.stderr) == ("error", 3, "")


@pytest.mark.parametrize(
    ("code", "line", "message"),
    [
        ("print('ran')\nprint(\n", 2, "SyntaxError: '(' was never closed"),
        ("print('ran')\nif True:\nprint(1)\n", 3, "IndentationError: expected an indented block"),
        ("print('ran')\nreturn 1\n", 2, "SyntaxError: 'return' outside function"),
    ],
)
def test_syntax_error_is_reported_without_running(code: str, line: int, message: str) -> None:
    result = run_python(code, limits=FAST)

    assert (result.outcome, result.exit_code) == ("syntax_error", None)
    assert result.stdout == ""  # the print on line 1 never ran
    assert f'File "/tmp/main.py", line {line}' in result.stderr
    assert message in result.stderr


def test_code_with_a_syntax_warning_still_runs() -> None:
    # pytest turns warnings into errors; the parent's compile check must not.
    result = run_python("x = 1\nprint(x is 1)\n", limits=FAST)

    assert (result.outcome, result.stdout) == ("ok", "True\n")
    assert "SyntaxWarning" in result.stderr  # shown to the candidate, as python would


def test_infinite_loop_hits_the_cpu_limit() -> None:
    result = run_python("print('started')\nwhile True:\n    pass\n", limits=FAST)

    assert result.outcome == "timeout"
    assert result.stdout == "started\n"  # unbuffered: output before the limit is kept
    assert result.duration_ms < 2500  # CPU limit (1 s), well before the 3 s wall limit


def test_ignoring_sigxcpu_still_ends_at_the_hard_cpu_limit() -> None:
    code = "import signal\nsignal.signal(signal.SIGXCPU, signal.SIG_IGN)\nwhile True:\n    pass\n"

    result = run_python(code, limits=FAST)

    assert result.outcome == "timeout"
    assert result.duration_ms < 3000


def test_sleeping_hits_the_wall_clock_limit() -> None:
    result = run_python("import time\nprint('sleeping')\ntime.sleep(100)\n", limits=FAST)

    assert (result.outcome, result.exit_code) == ("timeout", None)
    assert result.stdout == "sleeping\n"
    assert 2900 <= result.duration_ms < 4500


@pytest.mark.parametrize(
    "code",
    [
        "x = bytearray(2_000_000_000)",
        "chunks = []\nwhile True:\n    chunks.append(bytearray(10_000_000))\n",
    ],
    ids=["one-allocation", "growing-list"],
)
def test_memory_hog_hits_the_memory_limit(code: str) -> None:
    result = run_python(code, limits=FAST)

    assert result.outcome == "memory"
    assert result.stderr.rstrip().endswith("MemoryError")


EIGHT_CHILDREN = """\
import os, time
children = []
for _ in range(8):
    try:
        pid = os.fork()
    except OSError as exc:
        print("fork refused:", type(exc).__name__, flush=True)
        break
    if pid == 0:
        block = bytearray(200 * 2**20)
        block[::4096] = b"x" * len(block[::4096])  # touched: resident, not just reserved
        time.sleep(1)
        os._exit(0)
    children.append(pid)
codes = [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in children]
if len(children) < 8 or any(codes):
    raise SystemExit(1)
print("all eight held 200 MB")
"""


def test_memory_is_capped_for_the_whole_run_not_per_process() -> None:
    """Eight children of 200 MB each (1.6 GB) must not fit in a 512 MB run: the run ends with
    the memory outcome, and its processes together never hold more than the cap."""
    limits = SandboxLimits(cpu_seconds=5, wall_seconds=10.0, memory_mb=512)
    peak = 0
    with ThreadPoolExecutor(max_workers=1) as pool:
        running = pool.submit(run_python, EIGHT_CHILDREN, limits=limits)
        while not running.done():
            peak = max(peak, sum(map(resident_bytes, descendants(os.getpid()))))
            time.sleep(0.01)
        result = running.result()

    assert "all eight" not in result.stdout
    assert result.outcome == "memory", result
    assert peak < limits.memory_mb * 2**20


@pytest.mark.parametrize(
    "bomb",
    [
        "while True:\n    os.fork()\n",
        "while True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n",
    ],
    ids=["plain", "retrying"],
)
def test_fork_bomb_is_contained(bomb: str) -> None:
    code = f"import os\nprint(os.getuid(), flush=True)\n{bomb}"

    started = time.monotonic()
    result = run_python(code, limits=FAST)
    elapsed = time.monotonic() - started

    assert result.outcome in {"timeout", "killed", "error"}
    assert elapsed < FAST.wall_seconds + 1.5
    if result.outcome == "error":
        assert "BlockingIOError" in result.stderr  # the process limit refused the fork
    sandbox_uid = int(result.stdout.split()[0])
    assert survivors(sandbox_uid) == []  # nothing left running on the host
    subprocess.run(["true"], check=True)  # the host can still start processes
    assert run_python("print('next')", limits=FAST).stdout == "next\n"


def test_process_limit_counts_per_run() -> None:
    code = (
        "import os, time\nn = 0\ntry:\n    for _ in range(100):\n        if os.fork() == 0:\n"
        "            time.sleep(2)\n            os._exit(0)\n        n += 1\n"
        "except OSError as exc:\n    print(n, type(exc).__name__)\n"
    )

    result = run_python(code, limits=FAST)

    forked, error = result.stdout.split()
    assert error == "BlockingIOError"
    processes, _ = FAST.bounds(cgroup=memory_mode() == "cgroup")
    assert max(processes - 3, 1) <= int(forked) < processes


def test_concurrent_runs_do_not_interfere() -> None:
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda n: run_python(f"print({n} * 2)", limits=FAST), range(8)))

    assert [r.stdout for r in results] == [f"{n * 2}\n" for n in range(8)]


@pytest.mark.parametrize("port", ["listener", 5432])
def test_network_is_unreachable(port: int | str, request: pytest.FixtureRequest) -> None:
    if port == "listener":
        port = request.getfixturevalue("listener")
        socket.create_connection(("127.0.0.1", port), timeout=1).close()  # open on the host
    code = f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=1)\n"

    result = run_python(code, limits=FAST)

    assert result.outcome == "error"
    assert "ConnectionRefusedError: [Errno 111] Connection refused" in result.stderr


def test_outside_network_is_unreachable() -> None:
    code = "import socket\nsocket.create_connection(('1.1.1.1', 53), timeout=1)\n"

    result = run_python(code, limits=FAST)

    assert result.outcome == "error"
    assert "OSError: [Errno 101] Network is unreachable" in result.stderr


@pytest.mark.parametrize(
    ("code", "error"),
    [
        ("print(open('/etc/shadow').read())", "FileNotFoundError"),
        ("print(open('/etc/passwd').read())", "FileNotFoundError"),
        ("import os\nprint(os.listdir('/root'))", "PermissionError"),
        (f"import os\nprint(os.listdir({str(PROJECT_DIR)!r}))", "FileNotFoundError"),
        ("open('/usr/escape.txt', 'w').write('x')", "OSError: [Errno 30] Read-only file system"),
        ("import os\nos.mkdir('/escape')", "OSError: [Errno 30] Read-only file system"),
        ("open('/dev/shm/x', 'w').write('x')", "OSError: [Errno 30] Read-only file system"),
    ],
    ids=["etc-shadow", "etc-passwd", "root", "project", "write-usr", "mkdir-root", "dev-shm"],
)
def test_host_files_are_out_of_reach(code: str, error: str) -> None:
    result = run_python(code, limits=FAST)

    assert result.outcome == "error"
    assert error in result.stderr.splitlines()[-1]
    assert result.stdout == ""
    assert not Path("/usr/escape.txt").exists()


def test_a_host_file_passed_by_path_is_out_of_reach(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("database password")
    code = f"print(open({str(secret)!r}).read())"

    result = run_python(code, limits=FAST)

    assert result.outcome == "error"
    assert "FileNotFoundError" in result.stderr
    assert "database password" not in result.stdout


def test_sandbox_tmp_is_private_and_size_limited() -> None:
    code = (
        "import os\nprint(os.listdir('/tmp'))\nopen('/tmp/note.txt', 'w').write('ok')\n"
        "print(open('/tmp/note.txt').read())\nopen('/tmp/big', 'wb').write(bytes(9 * 2**20))\n"
    )

    result = run_python(code, limits=FAST)

    assert result.stdout == "['main.py']\nok\n"
    assert result.stderr.splitlines()[-1] == "OSError: [Errno 27] File too large"


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_output_flood_is_truncated(stream: str) -> None:
    code = f"import sys\nsys.{stream}.write('x' * 10_000_000)\n"

    result = run_python(code, limits=FAST)

    flooded = getattr(result, stream)
    assert result.outcome == "ok"
    assert result.truncated
    assert flooded.startswith("x" * FAST.max_output_bytes)
    assert len(flooded.encode()) < FAST.max_output_bytes + 100
    assert flooded.rstrip().endswith("[output truncated after 65536 bytes]")


def test_over_long_code_is_refused_without_running() -> None:
    code = "print('ran')\n" + "#" * FAST.max_code_chars

    result = run_python(code, limits=FAST)

    assert (result.outcome, result.exit_code, result.stdout) == ("too_large", None, "")
    assert str(FAST.max_code_chars) in result.stderr
    assert not result.truncated


def test_only_the_standard_library_is_importable() -> None:
    code = "import sys, json, sqlite3\nprint(sys.prefix)\nimport pydantic\n"

    result = run_python(code, limits=FAST)

    assert result.stdout == f"{sys.base_prefix}\n"  # the base interpreter, not the project's venv
    assert result.stderr.splitlines()[-1] == "ModuleNotFoundError: No module named 'pydantic'"


def test_missing_bubblewrap_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda *args, **kwargs: None)
    _probe.cache_clear()
    try:
        assert not sandbox_available()
        with pytest.raises(SandboxUnavailable, match="apt-get install bubblewrap"):
            run_python("print('hi')")
    finally:
        monkeypatch.undo()
        _probe.cache_clear()
    assert sandbox_available()


def test_with_a_cgroup_each_run_gets_a_child_holding_its_limits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cgroup wiring, against a stand-in directory (the kernel does not enforce anything in
    it; on a host with a delegated cgroup v2 memory controller the same files are the limits):
    each run gets a child with memory.max and pids.max, and the run's first process joins it
    before bwrap starts."""
    (tmp_path / "cgroup.subtree_control").write_text("cpu memory pids\n")
    monkeypatch.setattr(offload, "_config", offload.ProcessLimits(sandbox_cgroup=str(tmp_path)))
    _cgroup_problem.cache_clear()
    try:
        assert memory_mode() == "cgroup"
        result = run_python("print('inside')", limits=SandboxLimits(memory_mb=300))
    finally:
        _cgroup_problem.cache_clear()

    assert (result.outcome, result.stdout) == ("ok", "inside\n")
    runs = [d for d in tmp_path.iterdir() if d.is_dir()]  # the probe's, then the run's
    run = max(runs, key=lambda d: (d / "pids.max").read_text() == "16")
    assert (run / "memory.max").read_text() == str(300 * 2**20)
    assert (run / "pids.max").read_text() == "16"
    assert (run / "cgroup.procs").read_text().strip().isdigit()
