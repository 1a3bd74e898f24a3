"""Outbound webhook POSTs: own cookie-less session behind the SSRF resolver, bounded concurrency, backlog
and retries (exponential backoff), no redirects, outcomes logged and counted, jobs kept by reference."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import AsyncIterator, Coroutine
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

import aiohttp
from aiohttp import web

from gateway.config import PushSettings
from gateway.core.push import Delivery, PushUrlRejected
from gateway.observability import KeyCounter, get_logger
from gateway.shell.process.metrics import Metrics
from gateway.shell.push.ssrf import BlockedAddress, GuardedResolver, check_url

__all__ = ["MAX_BACKOFF_S", "PUSH_COUNTER", "MetricsPushCounter", "PushCounter", "PushSender"]

log = get_logger("gateway.push")

MAX_BACKOFF_S = 30.0
BACKLOG_PER_SLOT = 64  # jobs waiting per concurrency slot before webhook calls are answered 503
RETRY_STATUSES = frozenset({408, 425, 429})


class PushCounter(KeyCounter):
    """Push outcomes by name (exported as metrics)."""

    def add(self, outcome: str, n: int = 1) -> None:
        self.count([outcome] * n)


PUSH_COUNTER = PushCounter()


class MetricsPushCounter(PushCounter):
    """The push sender's outcome counter, also counted in Prometheus (it keeps its own snapshot)."""

    def __init__(self, metrics: Metrics) -> None:
        super().__init__()
        self._metrics = metrics

    def add(self, outcome: str, n: int = 1) -> None:
        super().add(outcome, n)
        self._metrics.push_delivery(outcome, n)


def _target(url: str) -> str:
    """scheme://host:port of a client URL: enough to find it in logs, never its path, query or userinfo."""
    try:
        parts = urlsplit(url)
        return f"{parts.scheme}://{parts.hostname}:{parts.port or (443 if parts.scheme == 'https' else 80)}"
    except ValueError:
        return "<invalid>"


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


class PushSender:
    """Delivers planned notifications; `submit` runs relay jobs in the background (by reference)."""

    def __init__(self, settings: PushSettings, *, counter: PushCounter = PUSH_COUNTER,
                 backlog: int | None = None) -> None:
        self.settings = settings
        self.counter = counter
        self._backlog = backlog if backlog is not None else settings.max_concurrency * BACKLOG_PER_SLOT
        self._slots = asyncio.Semaphore(settings.max_concurrency)
        self._tasks: set[asyncio.Task[None]] = set()
        self._session: aiohttp.ClientSession | None = None

    # ---- lifecycle ----------------------------------------------------------------------------

    async def start(self) -> None:
        connector = aiohttp.TCPConnector(limit=self.settings.max_concurrency,
                                         resolver=GuardedResolver(self.settings.allow_networks))
        self._session = aiohttp.ClientSession(
            connector=connector, cookie_jar=aiohttp.DummyCookieJar(), trust_env=False,
            timeout=aiohttp.ClientTimeout(total=self.settings.timeout_seconds))

    async def close(self, grace: float = 5.0) -> None:
        """Let running jobs finish for up to `grace` seconds, cancel the rest, close the session."""
        if self._tasks:
            _, pending = await asyncio.wait(set(self._tasks), timeout=grace)
            for task in pending:
                task.cancel()
            if pending:
                log.warning("push_jobs_cancelled", count=len(pending))
                self.counter.add("cancelled", len(pending))
                await asyncio.wait(pending)
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def cleanup_ctx(self, app: web.Application) -> AsyncIterator[None]:
        """For `app.cleanup_ctx`: start with the app, drain and close with it."""
        await self.start()
        yield
        await self.close()

    @property
    def pending(self) -> int:
        return len(self._tasks)

    def submit(self, job: Coroutine[Any, Any, None]) -> bool:
        """Run `job` in the background, kept referenced; False (job dropped) when the backlog is full."""
        if len(self._tasks) >= self._backlog:
            job.close()
            self.counter.add("overloaded")
            log.warning("push_overloaded", pending=len(self._tasks))
            return False
        task = asyncio.get_running_loop().create_task(self._guard(job), name="push-relay")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return True

    async def _guard(self, job: Coroutine[Any, Any, None]) -> None:
        try:
            await job
        except asyncio.CancelledError:
            raise
        except Exception:  # a bug in a job must not vanish silently in a task nobody awaits
            self.counter.add("crashed")
            log.exception("push_job_crashed")

    async def drain(self) -> None:
        """Wait until every submitted job has finished (tests and shutdown)."""
        while self._tasks:
            await asyncio.wait(set(self._tasks))

    # ---- one delivery -------------------------------------------------------------------------

    @property
    def session(self) -> aiohttp.ClientSession:
        assert self._session is not None, "PushSender.start() not awaited"
        return self._session

    async def deliver(self, delivery: Delivery, **fields: Any) -> str:
        """POST `delivery` with retries; returns and logs the outcome: delivered, refused (SSRF),
        redirect (not followed), rejected (4xx) or failed (attempts used up)."""
        started = time.monotonic()
        target = _target(delivery.url)
        s = self.settings
        status: int | None = None
        error = ""
        attempt = 0
        for attempt in range(1, s.max_attempts + 1):
            wait: float | None = None
            try:
                # literal addresses skip the resolver: vet them (and the scheme) before every attempt
                await check_url(delivery.url, s.allow_networks, resolve_names=False)
                async with self._slots, self.session.post(
                        delivery.url, data=delivery.body, headers=delivery.headers,
                        allow_redirects=False) as resp:
                    status = resp.status
                    wait = _retry_after(resp.headers.get("Retry-After"))
                    resp.release()
            except PushUrlRejected as err:
                return self._done("refused", target, attempt, started, error=err.message, **fields)
            except aiohttp.ClientConnectorError as exc:
                if isinstance(exc.os_error, BlockedAddress):
                    return self._done("refused", target, attempt, started, error=str(exc.os_error), **fields)
                status, error = None, f"{type(exc).__name__}: {exc.os_error}"
            except (TimeoutError, aiohttp.ClientError) as exc:
                status, error = None, f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            if status is not None:
                if 200 <= status < 300:
                    return self._done("delivered", target, attempt, started, status=status, **fields)
                if 300 <= status < 400:
                    return self._done("redirect", target, attempt, started, status=status, **fields)
                if status < 500 and status not in RETRY_STATUSES:
                    return self._done("rejected", target, attempt, started, status=status, **fields)
                error = f"HTTP {status}"
            if attempt == s.max_attempts:
                break
            delay = min(MAX_BACKOFF_S, s.backoff_seconds * 2 ** (attempt - 1)) * random.uniform(0.5, 1.0)
            if wait is not None:
                delay = max(delay, min(wait, MAX_BACKOFF_S))
            self.counter.add("retry")
            log.info("push_retry", target=target, attempt=attempt, error=error, delay_s=round(delay, 3),
                     **fields)
            await asyncio.sleep(delay)
        return self._done("failed", target, attempt, started, status=status, error=error, **fields)

    def _done(self, outcome: str, target: str, attempts: int, started: float, **fields: Any) -> str:
        self.counter.add(outcome)
        level = "info" if outcome == "delivered" else "warning"
        getattr(log, level)(f"push_{outcome}", target=target, attempts=attempts,
                            duration_ms=round((time.monotonic() - started) * 1000, 2),
                            **{k: v for k, v in fields.items() if v is not None and v != ""})
        return outcome


@contextlib.asynccontextmanager
async def running(settings: PushSettings, **kwargs: Any) -> AsyncIterator[PushSender]:
    """A started sender for scripts and tests, closed on exit."""
    sender = PushSender(settings, **kwargs)
    await sender.start()
    try:
        yield sender
    finally:
        await sender.close()


# the app key of the one instance an app holds
PUSH_SENDER = web.AppKey("push_sender", PushSender)
