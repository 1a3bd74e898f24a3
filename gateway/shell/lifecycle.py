"""Owns the life of one gateway app: in-flight requests (one middleware), open streams (the relay's
handles), readiness and the settings in force; the module the rest imports from (see lifecycle_*)."""

# The other concerns live beside it: lifecycle_process (the runners, the signals and the SIGTERM drain),
# lifecycle_reload (SIGHUP) and lifecycle_streams (one open stream's handle); their names are re-exported.

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any

import aiohttp
from aiohttp import web

from gateway.config import Settings
from gateway.observability import bound, get_logger
from gateway.shell.lifecycle_process import CANCEL_WAIT_SECONDS, Process
from gateway.shell.lifecycle_reload import keep_static, reload_settings, restart_keys
from gateway.shell.lifecycle_streams import Drained, Stoppable, StreamHandle
from gateway.shell.metrics import Metrics
from gateway.shell.upstream import Upstream

__all__ = ["Drained", "Lifecycle", "Process", "StreamHandle", "keep_static", "restart_keys"]

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

log = get_logger("gateway.lifecycle")

READY_POLL_SECONDS = 1.0


class Lifecycle:
    """In-flight requests, open streams, readiness and the settings in force for one gateway app."""

    def __init__(self, settings: Settings, upstream: Upstream, metrics: Metrics, *,
                 supervised: bool = False) -> None:
        self.settings = settings  # replaced as a whole by reload(): read it per request
        self.upstream = upstream
        self.metrics = metrics
        self.supervised = supervised  # a worker of gateway.shell.workers: its parent counts reloads
        self.draining = False
        self.server: web.Server | None = None  # set by Process: its connections count against the limit
        self.generation = 0  # bumped by every reload; requests remember the one they started in
        self.handled = 0  # requests this process has taken (the admin /workers endpoint)
        self._tasks: dict[asyncio.Task[Any], int] = {}
        self._by_generation: dict[int, int] = {}  # requests in flight by generation
        self._streams: set[StreamHandle] = set()
        self._streams_stopped = False
        self._waiters: list[tuple[Callable[[], bool], asyncio.Future[None]]] = []
        self._jobs: set[asyncio.Task[None]] = set()
        # [[routes]]: each route's own lifecycle (its settings, upstream and open streams), by name; the
        # root's middleware still counts every request, and its drain and readiness cover the routes
        self.routes: dict[str, Lifecycle] = {}

    # ---- requests (the middleware) ---------------------------------------------------------------

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        server = self.server
        if server is not None and _connections(server) > self.settings.limits.max_client_connections:
            self.metrics.overloaded.inc()
            response = web.json_response({"error": "too many connections"}, status=503,
                                         headers={"Retry-After": "1"})
            response.force_close()
            return response
        task = asyncio.current_task()
        assert task is not None
        generation = self.generation
        self._tasks[task] = generation
        by_generation = self._by_generation
        by_generation[generation] = by_generation.get(generation, 0) + 1
        self.handled += 1
        self.metrics.in_flight.inc()
        self.metrics.worker_requests.set(self.handled)
        try:
            return await handler(request)
        except asyncio.CancelledError:
            self._count_cancelled()
            raise
        finally:
            self.metrics.in_flight.dec()
            self._tasks.pop(task, None)
            left = by_generation[generation] - 1
            if left:
                by_generation[generation] = left
            else:
                del by_generation[generation]
            if self._waiters:
                self._notify()

    def _count_cancelled(self) -> None:
        """An exchange whose handler was cancelled (client gone, or the drain's deadline) never reaches
        its log line; count it from the fields bound so far."""
        fields = bound()
        operation = fields.get("operation")
        if operation is None:
            return
        self.metrics.requests.labels(fields.get("route", "default"), operation, fields.get("client_version", ""),
                                     fields.get("upstream_version", ""), fields.get("binding", ""),
                                     "cancelled").inc()

    @property
    def in_flight(self) -> int:
        return len(self._tasks)

    @property
    def open_streams(self) -> int:
        return len(self._streams) + sum(route.open_streams for route in self.routes.values())

    def _notify(self) -> None:
        for predicate, future in list(self._waiters):
            if not future.done() and predicate():
                future.set_result(None)

    async def _wait_until(self, predicate: Callable[[], bool], timeout: float) -> bool:
        if predicate():
            return True
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        entry = (predicate, future)
        self._waiters.append(entry)
        try:
            await asyncio.wait_for(future, max(0.0, timeout))
        except TimeoutError:
            pass
        finally:
            self._waiters.remove(entry)
        return predicate()

    async def wait_idle(self, timeout: float) -> bool:
        """Wait until no request is in flight; whether that happened within `timeout` seconds."""
        return await self._wait_until(lambda: not self._tasks, timeout)

    # ---- streams (the relay loop) ----------------------------------------------------------------

    def stream(self, reader: aiohttp.StreamReader, relay: Stoppable, mode: str) -> StreamHandle:
        handle = StreamHandle(self, reader, relay, mode)
        self._streams.add(handle)
        self.metrics.open_streams.inc()
        if self._streams_stopped:
            handle.stop()
        return handle

    def stop_streams(self) -> int:
        """End every open stream (and any opened from now on) after its last complete event."""
        self._streams_stopped = True
        streams = list(self._streams)
        for handle in streams:
            handle.stop()
        return len(streams) + sum(route.stop_streams() for route in self.routes.values())

    # ---- readiness ------------------------------------------------------------------------------

    def readiness(self) -> tuple[bool, str]:
        """(ready, reason): the upstream agent is known (its card fetched, or its version fixed in
        configuration) and the gateway is not draining."""
        if self.draining:
            return False, "draining: the gateway is shutting down"
        for name, route in self.routes.items():  # [[routes]]: ready when every route's agent is known
            ready, reason = route.readiness()
            if not ready:
                return False, f"route {name}: {reason}"
        if self.routes:
            return True, "ready"
        upstream = self.upstream
        if upstream.settings.version != "auto" or upstream.card_known:
            return True, "ready"
        error = upstream.last_card_error
        return False, "the upstream agent card is not known yet" + (f": {error}" if error else "")

    async def cleanup_ctx(self, app: web.Application) -> AsyncIterator[None]:
        """For `app.cleanup_ctx`: keeps the `ready` gauge current (the supervisor reads it per worker);
        in a worker, drains when the parent process has gone."""
        parent = os.getppid()
        watcher = asyncio.get_running_loop().create_task(self._watch(parent), name="ready-watch")
        yield
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
        for job in list(self._jobs):
            job.cancel()
        if self._jobs:
            await asyncio.wait(self._jobs)

    async def _watch(self, parent: int) -> None:
        while True:
            self.metrics.ready.set(1 if self.readiness()[0] else 0)
            if self.supervised and os.getppid() != parent and not self.draining:
                log.warning("parent_gone", parent=parent)
                os.kill(os.getpid(), signal.SIGTERM)
            await asyncio.sleep(READY_POLL_SECONDS)

    # ---- reload (lifecycle_reload) --------------------------------------------------------------

    def reload(self, loader: Callable[[], Settings]) -> bool:
        """SIGHUP: load and validate the configuration again (see lifecycle_reload.reload_settings)."""
        return reload_settings(self, loader)

    def retire(self, session: aiohttp.ClientSession) -> None:
        """A reload replaced the upstream session: close it when the requests that use it are done."""
        self._spawn(self._close_after(session, self.generation - 1))

    async def _close_after(self, session: aiohttp.ClientSession, generation: int) -> None:
        await self._wait_until(lambda: not any(g <= generation for g in self._by_generation), float("inf"))
        await self.upstream.close_retired(session)

    def _spawn(self, job: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(job)
        self._jobs.add(task)
        task.add_done_callback(self._jobs.discard)

    # ---- drain (lifecycle_process) --------------------------------------------------------------

    async def cancel_leftovers(self) -> int:
        """The grace is over: cancel every handler still running and give them a moment to unwind."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=CANCEL_WAIT_SECONDS)
        return len(tasks)


def _connections(server: web.Server) -> int:
    """Open client connections; `Server.connections` copies them into a list, so count its dict."""
    table = getattr(server, "_connections", None)
    return len(table) if table is not None else len(server.connections)
