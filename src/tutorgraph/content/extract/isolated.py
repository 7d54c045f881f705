"""`extract_isolated`: read a file in a child process killed at the time limit, within an
address-space limit (`limits.extraction_memory_mb`), and only while a reader slot is free
(`offload.slots("extraction")`: `limits.extraction_processes` at once, one per owner).

The child is started without the parent's `__main__` module: a spawned child imports it again
(for the `tutorgraph` command, the whole CLI: seconds per file), and the reader needs nothing
from it."""

from __future__ import annotations

import logging
import multiprocessing
import resource
import sys
import threading
import traceback
import types
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess

from tutorgraph import offload
from tutorgraph.content.extract.base import (
    ExtractedDocument,
    ExtractionError,
    ExtractionLimits,
    _fail,
    log,
)
from tutorgraph.content.extract.pipeline import extract

# --- in a separate process ------------------------------------------------------------------


def extract_isolated(
    filename: str,
    data: bytes,
    *,
    limits: ExtractionLimits = ExtractionLimits(),
    owner: Hashable | None = None,
    wait_seconds: float | None = None,
) -> ExtractedDocument:
    """`extract` in a spawned process killed after `limits.timeout_seconds`, so a PDF that makes
    the parser spin (or crash) costs one process, not the server. Blocks: call it from a thread
    (the `extraction` pool).

    A reader slot is taken first. `wait_seconds=0` (an upload a learner waits for) refuses at
    once with `offload.Busy` (429) when the server's readers are all busy or `owner` already has
    one; otherwise (a background build) it waits up to `wait_seconds` (default: the time limit),
    then fails as an ExtractionError."""
    wait = limits.timeout_seconds if wait_seconds is None else wait_seconds
    try:
        with offload.slots("extraction").claim(owner, wait=wait):
            return _extract_in_process(filename, data, limits)
    except offload.Busy as exc:
        if wait_seconds == 0:
            raise
        raise _fail(filename, f"was not read: {exc.message}") from None


def _extract_in_process(filename: str, data: bytes, limits: ExtractionLimits) -> ExtractedDocument:
    memory = offload.process_limits().extraction_memory_mb * 2**20
    context = multiprocessing.get_context("spawn")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(
        target=_extract_in_child, args=(sender, filename, data, limits, memory), daemon=True
    )
    with _main_module_hidden():
        process.start()
    sender.close()
    try:
        if not receiver.poll(limits.timeout_seconds):
            raise _fail(
                filename,
                f"took longer than {limits.timeout_seconds:g} s to read; "
                "it may be damaged or too complex",
            )
        try:
            outcome, payload = receiver.recv()
            process.join(5)  # it exits once its answer is sent
        except EOFError:
            process.join(5)
            raise _fail(
                filename, f"the reader stopped unexpectedly (exit code {process.exitcode})"
            ) from None
    finally:
        receiver.close()
        _stop(process)
    if outcome == "ok" and isinstance(payload, ExtractedDocument):
        return payload
    if outcome == "error":
        raise ExtractionError(str(payload))
    log.error("extracting %s failed in the child process:\n%s", filename, payload)
    raise _fail(filename, "could not be read (an internal error; it has been logged)")


_MAIN_SWAP = threading.Lock()


@contextmanager
def _main_module_hidden() -> Iterator[None]:
    """While a child is started, `__main__` is an empty module, so the spawned interpreter does
    not import the parent's main script (its preparation data is taken in `start()`)."""
    with _MAIN_SWAP:
        main = sys.modules.get("__main__")
        sys.modules["__main__"] = types.ModuleType("__main__")
        try:
            yield
        finally:
            if main is not None:
                sys.modules["__main__"] = main


def _extract_in_child(
    sender: Connection, filename: str, data: bytes, limits: ExtractionLimits, memory: int
) -> None:
    """The child's side: send back the document or the error message (exceptions may not
    pickle; a message always does). Its address space is capped first: a file that would
    need more is refused, not read at the server's expense."""
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # no handler here: it would go to stderr
    try:
        outcome: tuple[str, object] = ("ok", extract(filename, data, limits=limits))
    except ExtractionError as exc:
        outcome = ("error", exc.message)
    except MemoryError:
        outcome = ("error", _too_big(filename, memory))
    except Exception:
        outcome = ("crash", traceback.format_exc())
    try:
        sender.send(outcome)
    except MemoryError:  # read within the limit, but sending it back needs more
        del outcome
        sender.send(("error", _too_big(filename, memory)))
    sender.close()


def _too_big(filename: str, memory: int) -> str:
    return f"{filename}: needs more than {memory // 2**20} MB of memory to read"


def _stop(process: BaseProcess) -> None:
    """Reap the child, terminating (then killing) it if it still runs, so no zombie is left."""
    if process.is_alive():
        process.terminate()
        process.join(2)
    if process.is_alive():
        process.kill()
    process.join()
    process.close()
