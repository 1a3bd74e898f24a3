"""Owns the push-notification sink for peer tests: a tiny aiohttp server on its own thread and loop (so
sync tests blocked on a client subprocess still receive), recording every POST for later assertions."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from aiohttp import web


@dataclass(frozen=True)
class Notification:
    path: str
    headers: dict[str, str]
    body: Any  # parsed JSON, or the raw text when it was not JSON
    raw: str


class WebhookReceiver:
    """`with WebhookReceiver() as hook:` -> POST anything to hook.url; hook.wait_for(pred) returns matches."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self._host = host
        self._received: list[Notification] = []
        self._lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._runner: web.AppRunner | None = None
        self._thread = threading.Thread(target=self._loop.run_forever, name="webhook-receiver", daemon=True)
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://{self._host}:{self.port}/webhook"

    @property
    def received(self) -> list[Notification]:
        with self._lock:
            return list(self._received)

    async def _handle(self, request: web.Request) -> web.Response:
        raw = await request.text()
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = raw
        with self._lock:
            self._received.append(Notification(request.path, dict(request.headers), body, raw))
        return web.Response(status=200)

    async def _start(self) -> None:
        app = web.Application()
        app.router.add_route("POST", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self._host, 0)
        await site.start()
        self.port = self._runner.addresses[0][1]

    def start(self) -> WebhookReceiver:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(10)
        return self

    def stop(self) -> None:
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
            self._runner = None
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    def wait_for(
        self, predicate: Callable[[Notification], bool], *, count: int = 1, timeout: float = 10.0
    ) -> list[Notification]:
        """Every notification matching `predicate`, once `count` of them arrived (or what came by timeout)."""
        deadline = time.monotonic() + timeout
        while True:
            matches = [n for n in self.received if predicate(n)]
            if len(matches) >= count or time.monotonic() >= deadline:
                return matches
            time.sleep(0.05)

    def __enter__(self) -> WebhookReceiver:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
