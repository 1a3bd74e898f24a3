"""The agent's health, per address (scheme://host:port), as nginx's max_fails and Envoy's outlier detection
keep it: a call that finds the agent cannot be reached at all marks it down, and until a background check
(with backoff) reaches it again every caller is answered at once; one log line per change, not per call."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import math
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gateway.core.errors import AgentUnavailable
from gateway.observability import get_logger
from gateway.shell.agent.link_failures import Failure, origin

if TYPE_CHECKING:
    from gateway.shell.process.metrics import Metrics

__all__ = ["CHECK_DELAYS", "AgentHealth"]

log = get_logger("gateway.upstream")

# the waits between two checks of an agent known down: short at first (a restart takes seconds), then steady
# (a check of an agent that is not there costs a refused connection)
CHECK_DELAYS = (0.05, 0.1, 0.2, 0.5, 1.0)


@dataclass(slots=True)
class _Down:
    failure: Failure          # the last check's (or call's) failure
    since: float              # wall clock
    next_check: float = 0.0   # time.monotonic() of the next check
    task: asyncio.Task[None] | None = field(default=None, repr=False)


class AgentHealth:
    """The addresses known down, each with its check running. `check(url)` reaches the agent at `url` once
    and returns why it could not (None: it answered); `on_up` is told when an address is back."""

    def __init__(self, check: Callable[[str], Awaitable[Failure | None]], on_up: Callable[[], None],
                 metrics: Metrics | None = None) -> None:
        self._check, self._on_up, self.metrics = check, on_up, metrics
        self._down: dict[str, _Down] = {}
        self._ending: set[asyncio.Task[None]] = set()

    def refusal(self, url: str) -> AgentUnavailable | None:
        """The answer for a call to `url` while its address is known down (None: send it)."""
        if not self._down:
            return None
        down = self._down.get(origin(url))
        if down is None:
            return None
        wait = max(1, math.ceil(down.next_check - time.monotonic()))
        return AgentUnavailable(f"agent {origin(url)} unavailable: {down.failure.cause}; checked again in the "
                                "background", retry_after=wait)

    def failed(self, failure: Failure) -> None:
        """A call's failure: one of a class that shows the agent unreachable marks its address down."""
        if not failure.cls.down:
            return
        key = origin(failure.url)
        down = self._down.get(key)
        if down is not None:
            down.failure = failure
            return
        down = self._down[key] = _Down(failure, time.time())
        log.warning("upstream_down", agent=key, failure=failure.cls.name, cause=failure.message)
        self._count()
        # a context of its own: nothing of the call that found the agent down (its request id, its watch)
        down.task = asyncio.get_running_loop().create_task(self._watch(key, down), name=f"agent-check {key}",
                                                           context=contextvars.Context())

    def reached(self, url: str) -> None:
        """A call to `url` got a reply: its address is up."""
        if self._down:
            self._back(origin(url))

    async def _watch(self, key: str, down: _Down) -> None:
        """Check the address with backoff until it answers."""
        attempt, faulted = 0, False
        while self._down.get(key) is down:
            delay = CHECK_DELAYS[min(attempt, len(CHECK_DELAYS) - 1)] * (0.75 + random.random() / 4)
            down.next_check = time.monotonic() + delay
            await asyncio.sleep(delay)
            attempt += 1
            try:
                failure = await self._check(key)
            except Exception:   # a fault of the check itself: the agent stays down, checked again (logged once)
                if not faulted:
                    log.exception("upstream_check_failed", agent=key)
                faulted = True
                continue
            if failure is None or not failure.cls.down:   # it answered, or at least accepted the connection
                self._back(key)
                return
            down.failure = failure

    def _back(self, key: str) -> None:
        down = self._down.pop(key, None)
        if down is None:
            return
        if down.task is not None and down.task is not _current():
            down.task.cancel()
        log.info("upstream_up", agent=key, down_seconds=round(time.time() - down.since, 3))
        self._count()
        self._on_up()

    def _count(self) -> None:
        if self.metrics is not None:
            self.metrics.agents_down.set(len(self._down))

    def state(self) -> dict[str, str]:
        """{address: the cause} of every address known down."""
        return {key: down.failure.cause for key, down in self._down.items()}

    def reset(self) -> list[asyncio.Task[None]]:
        """Forget every address known down (another agent is configured): their checks are cancelled, and
        returned for the caller to await when it can."""
        tasks = [down.task for down in self._down.values() if down.task is not None]
        self._down.clear()
        self._count()
        for task in tasks:
            task.cancel()
            self._ending.add(task)   # held until it ends (the loop keeps only a weak reference)
            task.add_done_callback(self._ending.discard)
        return tasks

    async def close(self) -> None:
        for task in self.reset():
            with contextlib.suppress(asyncio.CancelledError):
                await task


def _current() -> asyncio.Task[object] | None:
    try:
        return asyncio.current_task()
    except RuntimeError:
        return None
