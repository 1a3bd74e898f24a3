"""Per-caller limits at the edge, per replica: who a caller is (its authenticated subject, else a header),
a token bucket of requests per second each, concurrent streams each, and the budgets of each stream."""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager

from multidict import MultiMapping

from gateway.config import CallersSettings
from gateway.core.errors import RateLimited

__all__ = ["CallerLimits", "StreamBudget"]

MAX_CALLERS = 100_000   # buckets kept; the least recently seen callers are forgotten first (a full bucket)


class StreamBudget:
    """The budgets of one caller's stream: ended (after its last complete event) once it has lasted
    `seconds` or been sent `max_bytes`; 0 is no limit."""

    __slots__ = ("max_bytes", "seconds")

    def __init__(self, seconds: float, max_bytes: int) -> None:
        self.seconds, self.max_bytes = seconds, max_bytes

    def over(self, written: int) -> bool:
        return 0 < self.max_bytes <= written


class CallerLimits:
    """The [callers] limits in force for one agent's app, with each caller's bucket and open streams."""

    def __init__(self, settings: CallersSettings) -> None:
        self.settings = settings
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()   # caller -> (tokens, at)
        self._streams: dict[str, int] = {}
        self.budget = StreamBudget(settings.max_stream_seconds, settings.max_stream_bytes) \
            if settings.max_stream_seconds or settings.max_stream_bytes else None

    def caller(self, headers: MultiMapping[str], peer: str | None, subject: str | None) -> str:
        """Who is calling: the authenticated subject, else the identity header's value, else the address."""
        if subject is not None:
            return "sub:" + subject
        said = headers.get(self.settings.identity_header)
        return "hdr:" + said if said else "ip:" + (peer or "")

    def admit(self, caller: str, now: float | None = None) -> None:
        """Take one request from the caller's bucket, or RateLimited with the seconds until one is back."""
        rate, burst = self.settings.requests_per_second, self.settings.burst
        if rate <= 0:
            return
        now = time.monotonic() if now is None else now
        tokens, at = self._buckets.pop(caller, (float(burst), now))
        tokens = min(float(burst), tokens + (now - at) * rate)
        if tokens < 1.0:
            self._keep(caller, tokens, now)
            wait = max(1, math.ceil((1.0 - tokens) / rate))
            raise RateLimited(f"over {rate:g} requests per second for this caller (callers.requests_per_second)",
                              retry_after=wait, limit="callers.requests_per_second")
        self._keep(caller, tokens - 1.0, now)

    def _keep(self, caller: str, tokens: float, now: float) -> None:
        self._buckets[caller] = (tokens, now)
        if len(self._buckets) > MAX_CALLERS:
            self._buckets.popitem(last=False)

    @contextmanager
    def stream(self, caller: str) -> Iterator[None]:
        """Hold one of the caller's stream slots for the block, or RateLimited when all are taken."""
        most = self.settings.max_streams
        if most <= 0:
            yield
            return
        open_now = self._streams.get(caller, 0)
        if open_now >= most:
            raise RateLimited(f"this caller already has {open_now} open streams (callers.max_streams)",
                              retry_after=1, limit="callers.max_streams")
        self._streams[caller] = open_now + 1
        try:
            yield
        finally:
            left = self._streams[caller] - 1
            if left:
                self._streams[caller] = left
            else:
                del self._streams[caller]

