"""Platforms' key sets (JWKS), which launches are checked against: fetched without blocking the
event loop and with a short timeout, cached per URL for as long as the platform's Cache-Control
allows (`max-age`; `no-store`/`no-cache`: used for that launch only; none: five minutes), and
fetched again when a launch names a key id the cached set lacks, as platforms rotate keys.

Launches arrive unauthenticated, so a forged one must not make the tool hammer a platform or
wait on it: concurrent launches share one fetch per URL, a URL is fetched at most once every
`refetch_seconds` (for an unknown key id or after a failure), and a failed fetch keeps the
previous key set in use."""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

log = logging.getLogger(__name__)

FETCH_TIMEOUT_SECONDS = 5.0
DEFAULT_MAX_AGE = 300.0
MAX_AGE_CAP = 86400.0
REFETCH_SECONDS = 30.0
MAX_KEY_SET_BYTES = 256 * 1024


class KeySetUnavailable(Exception):
    """No key set for this URL: it could not be fetched and none was cached."""


@dataclass(frozen=True)
class _Entry:
    keys: dict[str, Any] | None
    fetched_at: float
    expires_at: float
    error: str = ""

    def has(self, kid: str | None) -> bool:
        return self.keys is not None and (kid is None or kid in _kids(self.keys))


def _kids(keys: dict[str, Any]) -> set[str]:
    return {str(key.get("kid")) for key in keys.get("keys", []) if isinstance(key, dict)}


def max_age(cache_control: str) -> float:
    """Seconds a response may be reused, from its Cache-Control header."""
    directives = cache_control.lower()
    if "no-store" in directives or "no-cache" in directives:
        return 0.0
    found = re.search(r"max-age\s*=\s*(\d+)", directives)
    return min(float(found.group(1)), MAX_AGE_CAP) if found else DEFAULT_MAX_AGE


class KeySetCache:
    """Key sets by URL, for one event loop (one per app: `app.state`)."""

    def __init__(
        self,
        *,
        timeout: float = FETCH_TIMEOUT_SECONDS,
        refetch_seconds: float = REFETCH_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.timeout = timeout
        self.refetch_seconds = refetch_seconds
        self.clock = clock
        self.transport = transport
        self._entries: dict[str, _Entry] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    def _fresh(self, url: str, kid: str | None) -> dict[str, Any] | None:
        entry = self._entries.get(url)
        if entry is not None and entry.has(kid) and self.clock() < entry.expires_at:
            return entry.keys
        return None

    async def key_set(self, url: str, kid: str | None) -> dict[str, Any]:
        """The key set at `url`: the cached one while fresh and holding `kid`, else fetched."""
        if (keys := self._fresh(url, kid)) is not None:
            return keys
        asked = self.clock()
        async with self._locks.setdefault(url, asyncio.Lock()):
            entry = self._entries.get(url)
            if entry is not None and entry.keys is not None and entry.fetched_at >= asked:
                return entry.keys  # fetched while this launch waited: share it
            now = self.clock()
            if (
                entry is None
                or now >= entry.expires_at
                or (not entry.has(kid) and now - entry.fetched_at >= self.refetch_seconds)
            ):
                entry = await self._refresh(url, entry)
            if entry.keys is None:
                raise KeySetUnavailable(entry.error)
            return entry.keys

    async def _refresh(self, url: str, previous: _Entry | None) -> _Entry:
        now = self.clock()
        try:
            # The whole fetch, not each read, is bounded: a trickling server cannot stretch it.
            keys, seconds = await asyncio.wait_for(self._fetch(url), self.timeout)
            entry = _Entry(keys, self.clock(), now + seconds)  # fetched_at: when it arrived
        except (httpx.HTTPError, ValueError, TimeoutError) as exc:
            error = f"{type(exc).__name__}: {str(exc)[:200]}"
            log.warning("LTI: the key set at %s could not be fetched: %s", url, error)
            kept = previous.keys if previous is not None else None
            entry = _Entry(kept, now, now + self.refetch_seconds, error)  # not asked again soon
        self._entries[url] = entry
        return entry

    async def _fetch(self, url: str) -> tuple[dict[str, Any], float]:
        async with httpx.AsyncClient(
            timeout=self.timeout, transport=self.transport, follow_redirects=False
        ) as http:
            response = await http.get(url, headers={"Accept": "application/json"})
            response.raise_for_status()
            if len(response.content) > MAX_KEY_SET_BYTES:
                raise ValueError(f"the key set is larger than {MAX_KEY_SET_BYTES} bytes")
            keys = response.json()
        if not isinstance(keys, dict) or not isinstance(keys.get("keys"), list):
            raise ValueError("not a JSON key set (no 'keys' list)")
        return keys, max_age(response.headers.get("cache-control", ""))
