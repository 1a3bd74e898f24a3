"""Per-caller limits at the edge: who a caller is (its subject, else a header), a token bucket of requests per
second and concurrent streams each (counted in this process, or shared: shell.edge.shared_limits), stream budgets."""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Protocol

from multidict import MultiMapping

from gateway.config import CallersSettings
from gateway.core.errors import RateLimited

__all__ = ["MAX_CALLERS", "CallerLimits", "LimitStore", "MemoryLimits", "StreamBudget"]

MAX_CALLERS = 100_000   # buckets kept; the least recently seen callers are forgotten first (a full bucket)


class StreamBudget:
    """The budgets of one caller's stream: ended (after its last complete event) once it has lasted
    `seconds` or been sent `max_bytes`; 0 is no limit."""

    __slots__ = ("max_bytes", "seconds")

    def __init__(self, seconds: float, max_bytes: int) -> None:
        self.seconds, self.max_bytes = seconds, max_bytes

    def over(self, written: int) -> bool:
        return 0 < self.max_bytes <= written

    def spent(self, since: float, written: int) -> bool:
        """Whether a stream opened at `since` (time.monotonic) and sent `written` bytes is over a budget."""
        return self.over(written) or 0 < self.seconds <= time.monotonic() - since


class LimitStore(Protocol):
    """Where callers' requests and open streams are counted: numbers in, numbers out."""

    async def take(self, caller: str, rate: float, burst: int) -> float:
        """Take one request from the caller's bucket (`burst` tokens, `rate` back a second): 0 when taken,
        else the seconds until one is back."""
        ...

    async def open(self, caller: str, most: int) -> str | None:
        """One of the caller's `most` stream slots (its lease), or None when all are taken."""
        ...

    async def close(self, caller: str, lease: str) -> None: ...

    def start(self) -> None:
        """Start what the store runs beside the calls (in the app's event loop)."""
        ...

    async def aclose(self) -> None: ...


class MemoryLimits:
    """The embedded default: this process's buckets (at most MAX_CALLERS) and open-stream counts."""

    def __init__(self) -> None:
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()   # caller -> (tokens, at)
        self._streams: dict[str, int] = {}

    async def take(self, caller: str, rate: float, burst: int) -> float:
        now = time.monotonic()
        tokens, at = self._buckets.pop(caller, (float(burst), now))
        tokens = min(float(burst), tokens + (now - at) * rate)
        taken = tokens >= 1.0
        self._buckets[caller] = (tokens - 1.0 if taken else tokens, now)
        if len(self._buckets) > MAX_CALLERS:
            self._buckets.popitem(last=False)
        return 0.0 if taken else (1.0 - tokens) / rate

    async def open(self, caller: str, most: int) -> str | None:
        open_now = self._streams.get(caller, 0)
        if open_now >= most:
            return None
        self._streams[caller] = open_now + 1
        return caller

    async def close(self, caller: str, lease: str) -> None:
        left = self._streams.get(caller, 0) - 1
        if left > 0:
            self._streams[caller] = left
        else:
            self._streams.pop(caller, None)

    def start(self) -> None:
        pass

    async def aclose(self) -> None:
        self._buckets.clear()


class CallerLimits:
    """The [callers] limits in force for one agent's app, counted in its store."""

    def __init__(self, settings: CallersSettings, store: LimitStore) -> None:
        self.settings = settings
        self.store = store
        self.budget = StreamBudget(settings.max_stream_seconds, settings.max_stream_bytes) \
            if settings.max_stream_seconds or settings.max_stream_bytes else None

    def caller(self, headers: MultiMapping[str], peer: str | None, subject: str | None) -> str:
        """Who is calling: the authenticated subject, else the identity header's value, else the address."""
        if subject is not None:
            return "sub:" + subject
        said = headers.get(self.settings.identity_header)
        return "hdr:" + said if said else "ip:" + (peer or "")

    async def admit(self, caller: str) -> None:
        """Take one request from the caller's bucket, or RateLimited with the seconds until one is back."""
        rate = self.settings.requests_per_second
        if rate <= 0:
            return
        wait = await self.store.take(caller, rate, self.settings.burst)
        if wait > 0:
            raise RateLimited(f"over {rate:g} requests per second for this caller (callers.requests_per_second)",
                              retry_after=max(1, math.ceil(wait)), limit="callers.requests_per_second")

    @asynccontextmanager
    async def stream(self, caller: str) -> AsyncIterator[None]:
        """Hold one of the caller's stream slots for the block, or RateLimited when all are taken."""
        most = self.settings.max_streams
        if most <= 0:
            yield
            return
        lease = await self.store.open(caller, most)
        if lease is None:
            raise RateLimited(f"this caller already has {most} open streams (callers.max_streams)",
                              retry_after=1, limit="callers.max_streams")
        try:
            yield
        finally:
            await self.store.close(caller, lease)
