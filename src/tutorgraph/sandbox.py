"""Run untrusted Python (an interview candidate's, a learner's answer) in a bubblewrap sandbox.

Mechanism: `bwrap` starts the interpreter in new mount, pid, network, ipc, uts and cgroup
namespaces. The root is a read-only tmpfs with read-only binds of `/usr` (and the `/bin`, `/lib`,
`/lib64` links), the interpreter's prefix at its own path if outside `/usr` (its parents can be
crossed, not listed), empty site-packages (standard library only), fresh `/proc` and read-only
`/dev`, and a 16 MiB tmpfs `/tmp` holding the code as `/tmp/main.py`. No `/etc`, `/home`, `/root`
contents, project files or database are visible; the network namespace has only its own loopback.
A bootstrap inside sets the rlimits (CPU, address space, processes, file size, open files, no
core) and execs `python -I -u main.py`. The parent kills `bwrap` at the wall-clock deadline, which
with `--die-with-parent` and the pid namespace ends every process inside.

Why bubblewrap: a small Debian package (nsjail is not packaged in bookworm) needing no daemon
(unlike docker), and namespaces do what plain rlimits cannot: cut the network and hide the files.

The process limit: RLIMIT_NPROC never applies to host uid 0, and a user namespace made by bwrap
running as root maps the sandbox user (`--uid 65534` too) back onto host uid 0, so a fork bomb ran
unbounded. Hence two modes. As root (our containers) there is no user namespace: bwrap keeps only
CAP_SETUID and CAP_SETGID and the bootstrap drops to a random unprivileged uid (no capabilities,
no new privileges), so the limit counts this run's processes alone. Unprivileged, it is
`--unshare-user --disable-userns --uid 65534`, and the kernel counts per user namespace. In both,
a seccomp filter refuses new user namespaces (`clone3` gets ENOSYS, so libc falls back to `clone`,
whose flags it can read) and other architectures' syscalls.

Memory is capped for the run as a whole, all its processes together (`memory_mb`), one of two
ways. With a usable cgroup v2 directory (`limits.sandbox_cgroup`: memory and pids enabled in its
`cgroup.subtree_control`, writable by the server), each run gets a child cgroup with
`memory.max` = `memory_mb` (no swap) and `pids.max` = `max_processes`; a shell puts itself in it
and execs bwrap, so every process of the run is inside from the start. Going over is an OOM kill,
reported as the `memory` outcome; RLIMIT_AS stays at `memory_mb` per process so that one big
allocation is a plain MemoryError first. Without one (no cgroup v2 memory controller, no
delegation, or not configured), the run gets fewer processes (`fallback_processes`, 4) and each
an address space of `memory_mb / fallback_processes`, so together they stay within `memory_mb`
of address space (resident memory is less). Either process limit counts threads too.

Runs are niced (+10), so the server's own requests win the CPU from them. Not protected: kernel
bugs reachable through the syscalls left open (the kernel is shared and the filter is far from
docker's profile) and CPU contention between concurrent runs (their number is bounded by the
caller: `offload.slots("sandbox")`). Statuses above 128 read as signals, so `sys.exit(137)`
reads as SIGKILL.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import platform
import secrets
import selectors
import shutil
import signal
import site
import struct
import subprocess
import sys
import threading
import time
import traceback
import warnings
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

from tutorgraph import offload

log = logging.getLogger(__name__)

Outcome = Literal["ok", "error", "syntax_error", "timeout", "memory", "killed", "too_large"]


@dataclass(frozen=True)
class SandboxLimits:
    cpu_seconds: int = 5
    wall_seconds: float = 10.0
    memory_mb: int = 512  # the whole run: all its processes together
    max_processes: int = 16  # with a cgroup; else `fallback_processes`
    max_output_bytes: int = 65536
    max_code_chars: int = 20000
    fallback_processes: int = 4

    def bounds(self, *, cgroup: bool) -> tuple[int, int]:
        """(processes, address-space bytes per process) a run gets, with or without a cgroup."""
        if cgroup:
            return self.max_processes, self.memory_mb * 2**20
        processes = max(1, min(self.max_processes, self.fallback_processes))
        return processes, self.memory_mb * 2**20 // processes


@dataclass(frozen=True)
class RunResult:
    stdout: str
    stderr: str
    exit_code: int | None
    outcome: Outcome
    duration_ms: int
    truncated: bool
    peak_memory_bytes: int | None = None  # the run's cgroup memory.peak, when it had one


class SandboxUnavailable(Exception):
    """bubblewrap is missing or may not create namespaces on this host."""


_SCRIPT = "/tmp/main.py"
_TMP_BYTES = 16 * 2**20
_FILE_BYTES = 8 * 2**20
_OPEN_FILES = 64
_ROOT_MODE_UIDS = range(20_000, 60_000)  # no such users in our images; one per run
_CHUNK = 65536
_COMPILE_LOCK = threading.Lock()

# Runs inside the sandbox: argv is uid (-1: keep), cpu, memory, processes, file size, open files.
_BOOTSTRAP = f"""\
import os, resource as r, sys
uid, cpu, mem, nproc, fsize, nofile = map(int, sys.argv[1:])
for k, v in ((r.RLIMIT_CPU, (cpu, cpu + 1)), (r.RLIMIT_AS, (mem, mem)), (r.RLIMIT_CORE, (0, 0)),
             (r.RLIMIT_NPROC, (nproc, nproc)), (r.RLIMIT_FSIZE, (fsize, fsize)),
             (r.RLIMIT_NOFILE, (nofile, nofile))):
    r.setrlimit(k, v)
os.nice(10)  # the server's requests come first; the run cannot raise it back
if uid >= 0:
    os.setgroups([]); os.setresgid(uid, uid, uid); os.setresuid(uid, uid, uid)
os.execv(sys.executable, [sys.executable, "-I", "-B", "-u", "-X", "utf8", "{_SCRIPT}"])
"""


def sandbox_available() -> bool:
    """Whether bubblewrap is installed and may build the sandbox here (probed once)."""
    return _probe() is None


def run_python(code: str, *, limits: SandboxLimits = SandboxLimits(), stdin: str = "") -> RunResult:
    """Compile `code` here, run it in the sandbox, and report what it printed and how it ended."""
    if len(code) > limits.max_code_chars:
        message = f"Code is {len(code)} characters; the limit is {limits.max_code_chars}.\n"
        return RunResult("", message, None, "too_large", 0, truncated=False)
    if (error := _syntax_error(code)) is not None:
        return RunResult("", error, None, "syntax_error", 0, truncated=False)
    if (reason := _probe()) is not None:
        raise SandboxUnavailable(reason)
    started = time.monotonic()
    run = _execute(code, stdin, limits, cgroup_root())
    outcome, exit_code = _classify(run, limits)
    duration_ms = round((time.monotonic() - started) * 1000)
    log.info("sandbox run: outcome=%s exit=%s duration_ms=%d", outcome, exit_code, duration_ms)
    (out, out_cut), (err, err_cut) = run.stdout, run.stderr
    stdout, stderr = _decode(out, cut=out_cut), _decode(err, cut=err_cut)
    if run.oom_killed:
        stderr += (
            f"\n[stopped: the run needed more than {limits.memory_mb} MB of memory, "
            "all its processes together]\n"
        )
    truncated = out_cut or err_cut
    return RunResult(stdout, stderr, exit_code, outcome, duration_ms, truncated, run.peak_memory)


def memory_mode() -> Literal["cgroup", "rlimit"]:
    """How runs' memory is capped here: a cgroup per run, or the rlimit fallback."""
    return "cgroup" if cgroup_root() is not None else "rlimit"


def cgroup_root() -> Path | None:
    """The configured cgroup v2 directory when runs can be capped there (checked once per
    path; why not is logged once), else None: the rlimit fallback."""
    configured = offload.process_limits().sandbox_cgroup
    if not configured or _cgroup_problem(configured) is not None:
        return None
    return Path(configured)


@dataclass(frozen=True)
class _Run:
    stdout: tuple[bytes, bool]  # what was kept, and whether more was thrown away
    stderr: tuple[bytes, bool]
    returncode: int  # bwrap's: the program's status, 128 + signal number when killed
    seconds: float
    in_time: bool  # exited before the wall-clock deadline
    oom_killed: bool = False  # the run's cgroup went over memory.max
    peak_memory: int | None = None  # the cgroup's memory.peak


def _syntax_error(code: str) -> str | None:
    """Python's own report when `code` does not compile; compiling never runs it."""
    # Warnings (SyntaxWarning for `x is 1`) must not turn into errors under `-W error`; the lock
    # keeps concurrent calls from restoring each other's warning filters out of order.
    with _COMPILE_LOCK, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(code, _SCRIPT, "exec", dont_inherit=True)
        except SyntaxError as exc:
            return "".join(traceback.format_exception_only(exc))
        except (ValueError, RecursionError, MemoryError) as exc:  # nesting too deep to parse
            return f"{type(exc).__name__}: {exc}\n"
    return None


def _execute(code: str, stdin: str, limits: SandboxLimits, cgroup: Path | None = None) -> _Run:
    code_fd = _memfd("main.py", code.encode())
    filter_fd = _memfd("seccomp", _seccomp_filter())
    group = None
    try:
        argv = _argv(code_fd, filter_fd, limits, cgroup=cgroup is not None)
        if cgroup is not None:
            processes, _ = limits.bounds(cgroup=True)
            group = _RunCgroup.create(cgroup, memory=limits.memory_mb * 2**20, pids=processes)
            # The shell joins the run's cgroup, then becomes bwrap: every process of the run
            # starts inside it.
            argv = ["/bin/sh", "-c", 'echo $$ > "$0" && exec "$@"', str(group.procs), *argv]
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=(code_fd, filter_fd),
            cwd="/",
            env={},
        )
    except BaseException:
        if group is not None:
            group.close()
        raise
    finally:
        os.close(code_fd)
        os.close(filter_fd)
    started = time.monotonic()
    deadline = started + limits.wall_seconds
    try:
        with proc:
            try:
                out, err = _pump(proc, stdin.encode(), deadline, limits)
                proc.wait(max(deadline - time.monotonic(), 0))
                in_time = True
            except subprocess.TimeoutExpired:
                in_time = False
                proc.kill()
                # The pipes close once the namespace's last process is gone; wait briefly.
                _pump(proc, b"", time.monotonic() + 1, limits)
            finally:
                proc.kill()  # bwrap's death ends every process in its pid namespace
                proc.wait()
        seconds = time.monotonic() - started
        if group is None:
            return _Run(out, err, proc.returncode, seconds, in_time)
        oom, peak = group.oom_killed(), group.peak()
        return _Run(out, err, proc.returncode, seconds, in_time, oom, peak)
    finally:
        if group is not None:
            group.close()


@dataclass(frozen=True)
class _RunCgroup:
    """One run's child of the configured cgroup v2 directory."""

    path: Path

    @classmethod
    def create(cls, root: Path, *, memory: int, pids: int) -> _RunCgroup:
        group = cls(root / f"run-{secrets.token_hex(8)}")
        group.path.mkdir()
        try:
            (group.path / "memory.max").write_text(str(memory))
            for name, value in (("memory.swap.max", "0"), ("memory.oom.group", "1")):
                if (group.path / name).exists():  # no swap; an OOM kill ends the whole run
                    (group.path / name).write_text(value)
            (group.path / "pids.max").write_text(str(pids))
        except OSError:
            group.close()
            raise
        return group

    @property
    def procs(self) -> Path:
        return self.path / "cgroup.procs"

    def _read(self, name: str) -> str:
        try:
            return (self.path / name).read_text()
        except OSError:
            return ""

    def oom_killed(self) -> bool:
        for line in self._read("memory.events").splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill" and value.strip() not in ("", "0"):
                return True
        return False

    def peak(self) -> int | None:
        value = self._read("memory.peak").strip()  # Linux 5.19+
        return int(value) if value.isdigit() else None

    def close(self) -> None:
        """End whatever is left in it, then remove it."""
        try:
            if not (self.path / "cgroup.controllers").exists():
                pass  # not a kernel cgroup (a stand-in directory): its pids mean nothing
            elif (self.path / "cgroup.kill").exists():  # Linux 5.14+
                (self.path / "cgroup.kill").write_text("1")
            else:
                for pid in self._read("cgroup.procs").split():
                    with contextlib.suppress(OSError):
                        os.kill(int(pid), signal.SIGKILL)
        except OSError as exc:
            log.warning("sandbox cgroup %s: could not end its processes: %s", self.path, exc)
        for _ in range(100):  # the killed processes leave it within milliseconds
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError as exc:
                if exc.errno != errno.EBUSY:
                    log.warning("sandbox cgroup %s: not removed: %s", self.path, exc)
                    return
                time.sleep(0.01)
        log.warning("sandbox cgroup %s: still busy, not removed", self.path)


@cache
def _cgroup_problem(path: str) -> str | None:
    """None when runs can be capped in a child of `path`, else why not (logged once)."""
    root = Path(path)
    problem = None
    try:
        enabled = set((root / "cgroup.subtree_control").read_text().split())
    except OSError as exc:
        problem = f"not a cgroup v2 directory here ({exc.strerror or exc})"
    else:
        if missing := {"memory", "pids"} - enabled:
            problem = f"{' and '.join(sorted(missing))} not in its cgroup.subtree_control"
    if problem is None:
        try:
            group = _RunCgroup.create(root, memory=64 * 2**20, pids=4)
            try:
                joined = subprocess.run(
                    ["/bin/sh", "-c", 'echo $$ > "$0"', str(group.procs)],
                    capture_output=True,
                    timeout=10,
                    env={},
                )
            finally:
                group.close()
            if joined.returncode != 0:
                problem = f"cannot move a process into a child ({joined.stderr.decode().strip()})"
        except (OSError, subprocess.SubprocessError) as exc:
            problem = f"cannot make a child cgroup with limits ({exc})"
    if problem is not None:
        level = logging.INFO if not root.exists() else logging.WARNING
        log.log(
            level,
            "sandbox: cgroup %s unusable (%s); each run gets fewer processes and a lower "
            "address-space limit instead",
            path,
            problem,
        )
    return problem


def _argv(
    code_fd: int, filter_fd: int, limits: SandboxLimits, *, cgroup: bool = False
) -> list[str]:
    prefix = Path(sys.base_prefix)
    python = prefix / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    as_root = os.geteuid() == 0
    if as_root:
        namespaces = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts"]
        namespaces += ["--unshare-cgroup", "--cap-drop", "ALL"]
        namespaces += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        namespaces = ["--unshare-all", "--unshare-user", "--disable-userns"]
        namespaces += ["--uid", "65534", "--gid", "65534"]
    mounts = ["--ro-bind", "/usr", "/usr"]
    for name in ("/bin", "/lib", "/lib64"):
        if os.path.islink(name):
            mounts += ["--symlink", os.readlink(name), name]
        elif os.path.isdir(name):
            mounts += ["--ro-bind", name, name]
    if not prefix.is_relative_to("/usr"):
        # Same path, so the interpreter's RUNPATH holds; parents can be crossed, not listed.
        for parent in reversed(prefix.parents[:-1]):
            mounts += ["--perms", "0711", "--dir", str(parent)]
        mounts += ["--ro-bind", str(prefix), str(prefix)]
    for packages in filter(os.path.isdir, site.getsitepackages([sys.base_prefix])):
        mounts += ["--tmpfs", packages, "--remount-ro", packages]  # the standard library only
    uid = secrets.choice(_ROOT_MODE_UIDS) if as_root else -1
    processes, address_space = limits.bounds(cgroup=cgroup)
    rlimits = [uid, limits.cpu_seconds, address_space, processes]
    rlimits += [_FILE_BYTES, _OPEN_FILES]
    return [
        _bwrap() or "bwrap",
        *namespaces,
        "--die-with-parent",
        "--new-session",
        "--hostname",
        "sandbox",
        "--clearenv",
        *("--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/tmp"),
        *("--setenv", "LANG", "C.UTF-8", "--setenv", "PYTHONDONTWRITEBYTECODE", "1"),
        *mounts,
        *("--proc", "/proc", "--dev", "/dev"),
        *("--perms", "01777", "--size", str(_TMP_BYTES), "--tmpfs", "/tmp"),
        *("--perms", "0444", "--ro-bind-data", str(code_fd), _SCRIPT),
        *("--remount-ro", "/dev", "--remount-ro", "/"),  # only the bounded /tmp is writable
        *("--chdir", "/tmp", "--seccomp", str(filter_fd)),
        *(str(python), "-I", "-S", "-c", _BOOTSTRAP, *map(str, rlimits)),
    ]


def _pump(
    proc: subprocess.Popen[bytes], data: bytes, deadline: float, limits: SandboxLimits
) -> tuple[tuple[bytes, bool], tuple[bytes, bool]]:
    """Feed stdin and read stdout and stderr, keeping at most the cap of each, until both close
    or the deadline passes."""
    assert proc.stdin and proc.stdout and proc.stderr
    kept = {proc.stdout.fileno(): bytearray(), proc.stderr.fileno(): bytearray()}
    cut: set[int] = set()
    pending = memoryview(data)
    with selectors.DefaultSelector() as selector:
        for fd in kept:
            selector.register(fd, selectors.EVENT_READ)
        if pending:
            os.set_blocking(proc.stdin.fileno(), False)
            selector.register(proc.stdin.fileno(), selectors.EVENT_WRITE)
        else:
            proc.stdin.close()
        while any(fd in selector.get_map() for fd in kept):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            for key, _ in selector.select(remaining):
                if key.fd in kept:
                    chunk = os.read(key.fd, _CHUNK)
                    if not chunk:
                        selector.unregister(key.fd)
                    room = max(limits.max_output_bytes - len(kept[key.fd]), 0)
                    if len(chunk) > room:
                        cut.add(key.fd)  # keep draining so the program is not blocked
                    kept[key.fd] += chunk[:room]
                    continue
                try:
                    pending = pending[os.write(key.fd, pending[:_CHUNK]) :]
                except BrokenPipeError:
                    pending = pending[:0]
                if not pending:
                    selector.unregister(key.fd)
                    proc.stdin.close()
    out, err = (proc.stdout.fileno(), proc.stderr.fileno())
    return (bytes(kept[out]), out in cut), (bytes(kept[err]), err in cut)


def _classify(run: _Run, limits: SandboxLimits) -> tuple[Outcome, int | None]:
    """The outcome and exit code (negative signal number, like subprocess) of one run."""
    if not run.in_time:
        return "timeout", None  # killed by us at the wall-clock deadline
    returncode = run.returncode
    signum = returncode - 128 if returncode > 128 else -returncode if returncode < 0 else 0
    if run.oom_killed:
        return "memory", -signum if signum else returncode
    if signum == signal.SIGXCPU:
        return "timeout", -signum
    if signum == signal.SIGKILL and run.seconds >= limits.cpu_seconds + 1:
        # Most likely the hard CPU limit (soft + 1 s) after SIGXCPU was ignored; bwrap's exit
        # carries no CPU time, so an equally late self-inflicted SIGKILL reads the same.
        return "timeout", -signum
    if signum:
        return "killed", -signum
    if returncode == 0:
        return "ok", 0
    if b"MemoryError" in run.stderr[0][-2048:]:
        return "memory", returncode
    return "error", returncode


def _decode(data: bytes, *, cut: bool) -> str:
    text = data.decode("utf-8", errors="replace")
    return text + f"\n[output truncated after {len(data)} bytes]\n" if cut else text


def _memfd(name: str, data: bytes) -> int:
    fd = os.memfd_create(name)
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


@cache
def _seccomp_filter() -> bytes:
    """BPF refusing new user namespaces and other architectures' syscalls (x86-64, arm64)."""
    arch, clone, unshare = {
        "x86_64": (0xC000003E, 56, 272),
        "aarch64": (0xC00000B7, 220, 97),
    }[platform.machine()]
    ld, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06
    allow, kill, errno = 0x7FFF0000, 0x80000000, 0x00050000
    program = [
        (ld, 0, 0, 4),  # seccomp_data.arch
        (jeq, 1, 0, arch),
        (ret, 0, 0, kill),
        (ld, 0, 0, 0),  # seccomp_data.nr
        (jge, 0, 1, 0x40000000),  # x32 syscalls
        (ret, 0, 0, errno | 1),  # EPERM
        (jeq, 0, 1, 435),  # clone3: flags live in memory the filter cannot read
        (ret, 0, 0, errno | 38),  # ENOSYS
        (jeq, 1, 0, unshare),
        (jeq, 0, 3, clone),
        (ld, 0, 0, 16),  # low half of the first argument: the flags
        (jset, 0, 1, 0x10000000),  # CLONE_NEWUSER
        (ret, 0, 0, errno | 1),
        (ret, 0, 0, allow),
    ]
    return b"".join(struct.pack("=HBBI", *insn) for insn in program)


def _bwrap() -> str | None:
    return shutil.which("bwrap") or shutil.which("bwrap", path="/usr/bin:/bin")


@cache
def _probe() -> str | None:
    """None when a trivial program runs in the sandbox, else why not and how to fix it."""
    if _bwrap() is None:
        return "bubblewrap is not installed: apt-get install bubblewrap"
    if platform.machine() not in ("x86_64", "aarch64"):
        return f"no seccomp filter for {platform.machine()}; the sandbox supports x86_64, aarch64"
    try:
        run = _execute("pass", "", SandboxLimits())
    except OSError as exc:
        return f"bubblewrap could not start ({exc}); apt-get install bubblewrap"
    if run.returncode != 0:
        detail = run.stderr[0].decode(errors="replace").strip()
        return f"bubblewrap cannot build the sandbox here: {detail}"
    return None
