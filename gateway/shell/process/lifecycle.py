"""Owns the life of one gateway process: in-flight requests, open streams and their handles, readiness
and the settings in force (Lifecycle), the SIGHUP reload, and the listeners with their client deadlines,
the runners, signals and drain (Process)."""

# Drain, in order: readiness fails; the listening socket closes (no new connections) and idle keep-alive
# connections are closed; requests in flight continue; after `server.stream_drain_seconds` every open
# stream is ended after its last complete event (`: draining`, then the end of the response); at
# `server.shutdown_grace_seconds` whatever is still running is cancelled; the app is cleaned up; exit 0.

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import errno
import os
import signal
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextvars import ContextVar
from typing import Any, Protocol, TypeVar

from aiohttp import web

from gateway.config import BY_NAME, ConfigError, Settings
from gateway.core.errors import GatewayError, GatewayOverloaded, InvalidRequest
from gateway.core.exchange import error_reply
from gateway.core.types import Binding, Version
from gateway.observability import bound, configure, get_logger
from gateway.shell.agent.upstream import Pool, Upstream
from gateway.shell.edge.callers import StreamBudget
from gateway.shell.process.metrics import Metrics

__all__ = [
    "CANCEL_WAIT_SECONDS",
    "OVERLOADED",
    "RESTART_PREFIXES",
    "ROUTED_RESTART_PREFIXES",
    "Deadlines",
    "Drained",
    "FramingErrors",
    "Lifecycle",
    "ListenFailed",
    "Listener",
    "Process",
    "Stoppable",
    "StreamHandle",
    "Wakeable",
    "keep_static",
    "listen_failed",
    "restart_keys",
]

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
Track = Callable[[Handler], Handler]   # a route's handler as the root lifecycle runs it (Lifecycle.tracking)
T = TypeVar("T")

log = get_logger("gateway.lifecycle")

READY_POLL_SECONDS = 1.0
CANCEL_WAIT_SECONDS = 2.0  # after the grace: how long cancelled handlers get to unwind
# set by the tracking around a request beyond limits.max_client_connections (the handler runs in the same
# task, so it sees it): the pipeline answers it with this error in the caller's shape instead of running
# its door, and sets it back to None to say so
OVERLOADED: ContextVar[GatewayOverloaded | None] = ContextVar("a2a_gateway_overloaded", default=None)


# --- one open stream, as the drain sees it -----------------------------------------------------------


class Drained(Exception):
    """Set on a stream's upstream reader to wake its relay loop: the gateway is draining."""


class Stoppable(Protocol):
    """What a stream handle needs of the relay's translator (see shell.carrier.relay.Relay)."""

    @property
    def events_out(self) -> int: ...


class Wakeable(Protocol):
    """What a stream handle wakes on drain: the upstream's reader (aiohttp's), or a gRPC agent's call."""

    def set_exception(self, exc: BaseException) -> None: ...


class StreamHandle:
    """One open stream, registered by the relay loop while it runs; a caller's stream budgets (shell.edge.callers)
    end it as the drain does, once it has lasted their seconds or been sent their bytes (`wrote`)."""

    __slots__ = ("_budget", "_counted", "_lifecycle", "_reader", "_timer", "mode", "relay", "stopping", "written")

    def __init__(self, lifecycle: Lifecycle, reader: Wakeable, relay: Stoppable,
                 mode: str, budget: StreamBudget | None = None) -> None:
        self._lifecycle = lifecycle
        self._reader = reader
        self.relay = relay
        self.mode = mode
        self.stopping = False
        self._counted = 0
        self._budget = budget
        self.written = 0   # bytes sent to the caller
        self._timer = asyncio.get_running_loop().call_later(budget.seconds, self.stop) \
            if budget is not None and budget.seconds > 0 else None

    def stop(self) -> None:
        """End this stream after its last complete event (every relay writes whole events only): wake the
        loop if it waits for the upstream."""
        if self.stopping:
            return
        self.stopping = True
        self._reader.set_exception(Drained())

    def sync(self) -> None:
        """Count the events written since the last call."""
        n = self.relay.events_out - self._counted
        if n > 0:
            self._counted += n
            self._lifecycle.metrics.events_relayed(n, self.mode)

    def wrote(self, n: int) -> None:
        """`n` more bytes sent to the caller: past the byte budget, the stream ends after this event."""
        self.written += n
        if self._budget is not None and self._budget.over(self.written):
            self.stop()

    def upstream_error(self, kind: str) -> None:
        self._lifecycle.metrics.upstream_error(kind)

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self.sync()
        self._lifecycle.stream_closed(self)


# --- the keys a reload cannot change -----------------------------------------------------------------


# keys read once when the app is built: a reload that changes them is logged as needing a restart
RESTART_PREFIXES = ("server.listen", "server.workers", "server.event_loop", "server.idle_timeout_seconds", "admin.",
                    "grpc.", "tracing.", "push.", "agui.", "task_index.", "card.", "auth.", "callers.", "routes")
# with [[routes]], every route's settings (and the [upstream]/[quirks]/[migration] keys they inherit) are fixed too
ROUTED_RESTART_PREFIXES = (*RESTART_PREFIXES, "upstream.", "quirks.", "migration.")


def _flatten(obj: object, prefix: str = "") -> dict[str, object]:
    out: dict[str, object] = {}
    for f in dataclasses.fields(obj):  # type: ignore[arg-type]
        value = getattr(obj, f.name)
        if dataclasses.is_dataclass(value):
            out.update(_flatten(value, f"{prefix}{f.name}."))
        else:
            out[f"{prefix}{f.name}"] = dict(value) if hasattr(value, "items") else value
    return out


def _changed_keys(old: Settings, new: Settings) -> list[str]:
    a, b = _flatten(old), _flatten(new)
    return sorted(k for k in a if a[k] != b.get(k))


def _restart_prefixes(old: Settings, new: Settings) -> tuple[str, ...]:
    return ROUTED_RESTART_PREFIXES if old.routes or new.routes else RESTART_PREFIXES


def restart_keys(old: Settings, new: Settings) -> list[str]:
    """Changed keys that only take effect after a restart."""
    return [k for k in _changed_keys(old, new) if k.startswith(_restart_prefixes(old, new))]


def keep_static(old: Settings, new: Settings) -> Settings:
    """The settings in force after a reload: the new ones, except the keys read at start-up (each of
    RESTART_PREFIXES: a key, or with a trailing dot a whole section) keep their running values."""
    kept = new
    for prefix in RESTART_PREFIXES:
        kept = _with_old(kept, old, prefix.rstrip(".").split("."))
    return kept


def _with_old(new: Any, old: Any, path: list[str]) -> Any:
    """`new` with the value at the dotted `path` taken from `old` (nested frozen dataclasses)."""
    head, rest = path[0], path[1:]
    value = _with_old(getattr(new, head), getattr(old, head), rest) if rest else getattr(old, head)
    return dataclasses.replace(new, **{head: value})


# --- one gateway app: requests, streams, readiness, settings -----------------------------------------


class Lifecycle:
    """In-flight requests, open streams, readiness and the settings in force for one gateway app."""

    def __init__(self, settings: Settings, upstream: Upstream, metrics: Metrics, *,
                 supervised: bool = False) -> None:
        self.settings = settings  # replaced as a whole by reload(): read it per request
        self.upstream = upstream
        self.metrics = metrics
        self.supervised = supervised  # a worker of gateway.shell.process.workers: its parent counts reloads
        self.draining = False
        self.server: web.Server | None = None  # set by Process: its connections count against the limit
        self.grpc_port: int | None = None  # the gRPC listener's bound port, once open (the card lists it)
        self.generation = 0  # bumped by every reload; requests remember the one they started in
        self.handled = 0  # requests this process has taken (the admin /workers endpoint)
        self._tasks: dict[asyncio.Task[Any], int] = {}
        self._by_generation: dict[int, int] = {}  # requests in flight by generation
        self._streams: set[StreamHandle] = set()
        self._streams_stopped = False
        self._waiters: list[tuple[Callable[[], bool], asyncio.Future[None]]] = []
        self._jobs: set[asyncio.Task[None]] = set()
        # [[routes]]: each route's own lifecycle (its settings, upstream and open streams), by name; the
        # root's tracking still counts every request, and its drain and readiness cover the routes
        self.routes: dict[str, Lifecycle] = {}
        self._gauges_per_request = True  # follow_in_gauges() makes the scrape read the counts instead

    # ---- requests (each route's handler, see tracking) --------------------------------------------

    def follow_in_gauges(self) -> None:
        """This lifecycle's tracking counts the process's requests: the in-flight and handled gauges
        read its counts when scraped (per request only where the metrics cannot, in multiprocess mode)."""
        self._gauges_per_request = not self.metrics.follow(lambda: len(self._tasks), lambda: self.handled)

    def tracking(self, handler: Handler) -> Handler:
        """`handler` run as one of this lifecycle's requests (the root's: it counts the routes' requests too),
        what every door's route is registered as: counted and in flight (`tracked`), its connection's head
        deadline met, and beyond limits.max_client_connections answered as the overload. A wrapper of each
        route's handler rather than an app middleware: aiohttp runs an app with middlewares through two more
        layers per request (its handler chain and the current-app fix), ~10,000 instructions."""
        async def track(request: web.Request) -> web.StreamResponse:
            server = self.server
            if server is not None and _connections(server) > self.settings.limits.max_client_connections:
                return await self._overloaded(request, handler)
            transport = request.transport
            deadlines = transport.get_protocol() if transport is not None else None
            if isinstance(deadlines, Deadlines):  # the head is in: the header deadline is met
                deadlines.head_received()
                try:
                    return await self.tracked(handler(request))
                finally:
                    deadlines.request_done()
            return await self.tracked(handler(request))

        return track

    async def _overloaded(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """A request beyond limits.max_client_connections: the pipeline answers it 503 with Retry-After in
        the caller's shape (its door does not run); a path no door serves gets a plain JSON 503."""
        limit = "limits.max_client_connections"
        self.metrics.overload(limit)
        err = GatewayOverloaded(f"gateway overloaded: more than {self.settings.limits.max_client_connections} "
                                f"client connections are open ({limit})", limit=limit)
        token = OVERLOADED.set(err)
        response: web.StreamResponse | None = None
        try:
            with contextlib.suppress(web.HTTPException):
                response = await handler(request)
            answered = OVERLOADED.get() is None
        finally:
            OVERLOADED.reset(token)
        if response is None or not answered:  # not answered by the pipeline
            response = web.json_response({"error": {"code": err.reason.lower(), "message": err.message}},
                                         status=503, headers={"Retry-After": str(err.retry_after)})
        response.force_close()
        return response

    async def tracked(self, call: Awaitable[T]) -> T:
        """Run one request's handling (an HTTP request's, or a gRPC call's) as in flight: counted, waited
        for by the drain, cancelled after its grace."""
        task = asyncio.current_task()
        assert task is not None
        generation = self.generation
        self._tasks[task] = generation
        by_generation = self._by_generation
        by_generation[generation] = by_generation.get(generation, 0) + 1
        self.handled += 1
        gauges = self._gauges_per_request
        if gauges:
            self.metrics.in_flight.inc()
            self.metrics.worker_requests.set(self.handled)
        try:
            return await call
        except asyncio.CancelledError:
            self._count_cancelled()
            raise
        finally:
            if gauges:
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
        self.metrics.cancelled(route=str(fields.get("route", "default")), operation=str(operation),
                               client_version=str(fields.get("client_version", "")),
                               upstream_version=str(fields.get("upstream_version", "")),
                               binding=str(fields.get("binding", "")))

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

    def stream(self, reader: Wakeable, relay: Stoppable, mode: str, budget: StreamBudget | None = None) -> StreamHandle:
        handle = StreamHandle(self, reader, relay, mode, budget)
        self._streams.add(handle)
        self.metrics.open_streams.inc()
        if self._streams_stopped:
            handle.stop()
        return handle

    def stream_closed(self, handle: StreamHandle) -> None:
        """The relay loop of `handle` has ended: it no longer counts as open."""
        self._streams.discard(handle)
        self.metrics.open_streams.dec()

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
        verdict = upstream.card_signature
        if verdict is not None and not verdict.ok:   # [card] verify keys: the upstream card's signatures
            if self.settings.card.require_verified:
                return False, f"the upstream card's signature is not verified: {verdict.detail}"
            return True, f"ready; the upstream card's signature is not verified: {verdict.detail}"
        down = "; ".join(f"{agent}: {cause}" for agent, cause in upstream.health.state().items())
        if upstream.settings.version != "auto" or upstream.card_known:
            # ready: the gateway answers every call at once, in its shape, until the agent is back
            return True, f"ready; the upstream agent is unavailable ({down})" if down else "ready"
        if down:
            return False, f"the upstream agent card is not known yet: the agent is unavailable ({down})"
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

    # ---- reload (SIGHUP) -------------------------------------------------------------------------

    def reload(self, loader: Callable[[], Settings]) -> bool:
        """SIGHUP: load and validate the configuration again. On success new requests get the new
        settings (a changed upstream gets a new session; the old one closes when the requests that
        use it are done); on failure the running settings stay. Either way: logged and counted."""
        try:
            new = loader()
        except ConfigError as exc:
            log.error("config_reload_failed", problems=[str(p) for p in exc.problems],
                      detail="keeping the running configuration")
            if not self.supervised:
                self.metrics.config_reload("error")
            return False
        old = self.settings
        changed = _changed_keys(old, new)
        self._put_in_force(old, new)
        if new.log != old.log:
            configure(new.log)
        if not self.supervised:
            self.metrics.config_reload("ok")
        log.info("config_reloaded", changed=changed)
        static = [k for k in changed if k.startswith(_restart_prefixes(old, new))]
        if static:
            log.warning("config_reload_needs_restart", keys=static,
                        detail="these keys are read at start-up; the running values stay until a restart")
        return True

    def _put_in_force(self, old: Settings, new: Settings) -> None:
        """New requests get `new`, but for the keys read at start-up; a changed upstream is swapped."""
        self.settings = keep_static(old, new)
        self.generation += 1
        if old.routes or new.routes:  # the routes' upstream, quirks, migration: fixed at start-up; the rest reach them
            self.settings = dataclasses.replace(self.settings, upstream=old.upstream, quirks=old.quirks,
                                                migration=old.migration)
            for route in self.routes.values():
                route.settings = dataclasses.replace(self.settings, upstream=route.settings.upstream,
                                                     quirks=route.settings.quirks,
                                                     migration=route.settings.migration, routes=())
                route.generation += 1
                route.upstream.reload_tls()   # its [upstream.tls] files read again (rotated certificates)
            return
        for pool in self.upstream.reconfigure(new.upstream, new.limits):
            self.retire(pool)

    def retire(self, pool: Pool) -> None:
        """A reload replaced an upstream pool: close it when the requests that use it are done."""
        self._spawn(self._close_after(pool, self.generation - 1))

    async def _close_after(self, pool: Pool, generation: int) -> None:
        await self._wait_until(lambda: not any(g <= generation for g in self._by_generation), float("inf"))
        await self.upstream.close_retired(pool)

    def _spawn(self, job: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(job)
        self._jobs.add(task)
        task.add_done_callback(self._jobs.discard)

    # ---- drain (Process.drain) ----------------------------------------------------------------

    async def cancel_leftovers(self) -> int:
        """The grace is over: cancel every handler still running and give them a moment to unwind."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=CANCEL_WAIT_SECONDS)
        return len(tasks)


def _address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _connections(server: web.Server) -> int:
    """Open client connections; `Server.connections` copies them into a list, so count its dict."""
    table = getattr(server, "_connections", None)
    return len(table) if table is not None else len(server.connections)


# --- the listeners: client deadlines, and a failed listen said in one line ---------------------------


class Deadlines(asyncio.Protocol):
    """One client connection's deadline for a request's head, around aiohttp's RequestHandler (which has
    a keep-alive timer but no header deadline, so a client sending its headers a byte at a time would hold
    the connection for as long as it likes). From the connection's opening, and from the first byte of
    each later request, the head must be in within server.header_timeout_seconds (the settings in force)
    or the connection is closed. The tracking says when a head is in and when its request is done;
    the body has its own deadline where it is read (pipeline.read_body), idle keep-alive is aiohttp's."""

    # One timer per connection, not one per request: a head's start is noted as a time, and the timer,
    # when it fires, closes the connection only if a head is still pending past its deadline (else it
    # re-arms for what is left, or lapses until the next head starts).
    __slots__ = ("_busy", "_inner", "_lifecycle", "_loop", "_since", "_timer")

    def __init__(self, inner: asyncio.Protocol, lifecycle: Lifecycle) -> None:
        self._inner = inner
        self._lifecycle = lifecycle
        self._busy = False  # a request's head is in and its handler runs
        self._since: float | None = None  # when the pending head's first byte came (None: no head pending)
        self._timer: asyncio.TimerHandle | None = None
        self._loop = asyncio.get_running_loop()

    def _head_started(self) -> None:
        self._since = self._loop.time()
        if self._timer is None:
            self._timer = self._loop.call_later(self._lifecycle.settings.server.header_timeout_seconds,
                                                self._expire)

    def _expire(self) -> None:
        self._timer = None
        since = self._since
        if self._busy or since is None:
            return
        left = since + self._lifecycle.settings.server.header_timeout_seconds - self._loop.time()
        if left > 0:
            self._timer = self._loop.call_later(left, self._expire)
            return
        self._lifecycle.metrics.client_timeout("headers")
        log.info("client_too_slow", phase="headers",
                 detail="the request head did not arrive within server.header_timeout_seconds")
        force_close = getattr(self._inner, "force_close", None)
        if force_close is not None:
            force_close()

    def head_received(self) -> None:
        self._busy = True
        self._since = None

    def request_done(self) -> None:
        """The request's reply is handed over: idle until the next request's first byte."""
        self._busy = False

    # ---- asyncio.Protocol, passed on ---------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._inner.connection_made(transport)
        self._head_started()

    def data_received(self, data: bytes) -> None:
        if self._since is None and not self._busy:  # the first byte of a new request's head
            self._head_started()
        self._inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self._inner.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self._inner.pause_writing()

    def resume_writing(self) -> None:
        self._inner.resume_writing()


class FramingErrors(web.RequestHandler):
    """aiohttp's connection handler, with what aiohttp answers by itself in the caller's shape: a request
    its parser cannot take apart (broken chunked framing, Content-Length beside Transfer-Encoding, bytes a
    header may not hold, a bad request line) gets a JSON-RPC error with a null id instead of aiohttp's
    text/plain page, and so would an exception that ever got past the pipeline's boundary. Such a request
    was never read, so its door, version and id are unknown: the JSON-RPC envelope (the same in both
    versions, and JSON any REST client can read) is the one shape left; the HTTP status stays aiohttp's and
    the connection is closed behind the answer, as aiohttp does (the framing is lost)."""

    __slots__ = ("_lifecycle",)

    def __init__(self, manager: web.Server, lifecycle: Lifecycle, **kwargs: Any) -> None:
        super().__init__(manager, loop=asyncio.get_running_loop(), **kwargs)
        self._lifecycle = lifecycle

    def handle_error(self, request: web.BaseRequest, status: int = 500, exc: BaseException | None = None,
                     message: str | None = None) -> web.StreamResponse:
        if request.writer.output_size > 0:   # a reply has begun: the connection is all that can be closed
            raise ConnectionError("the reply is sent already, cannot send an error after it")
        err: GatewayError
        if status >= 500:
            log.error("internal_error", status=status, error=f"{type(exc).__name__}: {exc}" if exc else None,
                      exc_info=exc)
            err = GatewayError("internal error")
        else:
            log.info("malformed_http", status=status, detail=message or str(exc or ""))
            err = InvalidRequest(f"malformed HTTP request: {message or exc or 'cannot be parsed'}")
        reply = error_reply(err, Version.V10, Binding.JSONRPC, None, self._lifecycle.settings.quirks)
        resp = web.Response(status=status, body=reply.body, content_type="application/json")
        resp.force_close()
        return resp


class DeadlineSite(web.BaseSite):
    """The main listener: aiohttp's TCP listener with each connection's protocol a FramingErrors handler
    wrapped in Deadlines. A BaseSite subclass is how aiohttp itself adds listeners (TCPSite, UnixSite,
    SockSite); this one differs from TCPSite only in the protocol factory. `handler` is the keyword
    arguments the runner gives aiohttp's own handlers (the same keep-alive and logging)."""

    __slots__ = ("_handler", "_host", "_lifecycle", "_port", "_reuse_port")

    def __init__(self, runner: web.BaseRunner, host: str, port: int, lifecycle: Lifecycle, *,
                 handler: dict[str, Any], reuse_port: bool | None = None) -> None:
        super().__init__(runner)
        self._host, self._port, self._lifecycle, self._reuse_port = host, port, lifecycle, reuse_port
        self._handler = handler

    @property
    def name(self) -> str:
        host = f"[{self._host}]" if ":" in self._host else self._host
        return f"http://{host}:{self._port}"

    async def start(self) -> None:
        await super().start()
        server, lifecycle = self._runner.server, self._lifecycle
        assert server is not None
        # the accept queue as long as the connections the gateway takes (the kernel caps it at somaxconn):
        # aiohttp's 128 makes a burst of a thousand clients wait for their SYN to be sent again
        backlog = max(self._backlog, lifecycle.settings.limits.max_client_connections)
        self._server = await asyncio.get_running_loop().create_server(
            lambda: Deadlines(FramingErrors(server, lifecycle, **self._handler), lifecycle), self._host, self._port,
            backlog=backlog,
            reuse_port=self._reuse_port)


class ListenFailed(OSError):
    """A listener could not be opened; the message says which, why, and which key to change."""


def listen_failed(exc: OSError, what: str, key: str, address: str) -> ListenFailed:
    """`exc` (from opening the `what` listener on `address`, set by `key`) said in one line."""
    reason = os.strerror(exc.errno) if exc.errno else str(exc)
    busy = " (is another gateway running?)" if exc.errno == errno.EADDRINUSE else ""
    off = ', or to "" to run without it' if key in ("admin.listen", "grpc.listen") else ""
    return ListenFailed(f"cannot open the {what} on {address}: {reason.lower()}{busy}; set {key} "
                        f"({BY_NAME[key].env}) to a free HOST:PORT{off}")


class Listener(Protocol):
    """Another listener of the process beside the main one (the gRPC listener): opened after the main
    listener, closed to new calls when the drain starts, stopped within the drain's grace."""

    async def start(self) -> int:
        """Open the listener; its bound port. ListenFailed when it cannot be opened."""
        ...

    async def stop(self, grace: float) -> None:
        """No new calls; the calls in flight get `grace` seconds, then are cancelled."""
        ...


# --- one serving process: runners, signals, drain ----------------------------------------------------


class Process:
    """One serving process: the app's runner and listener (SO_REUSEPORT under a supervisor), the admin
    listener unless a parent serves it, the signal handlers, and the drain."""

    def __init__(self, app: web.Application, lifecycle: Lifecycle, *, admin: web.Application | None = None,
                 loader: Callable[[], Settings] | None = None, reuse_port: bool = False,
                 listeners: tuple[Listener, ...] = ()) -> None:
        self.app = app
        self.listeners = listeners
        self.lifecycle = lifecycle
        self.admin = admin
        self.loader = loader
        self.reuse_port = reuse_port
        # what each connection's handler is given, by the runner's server and by DeadlineSite alike
        self.handler: dict[str, Any] = {"access_log": None,
                                        "keepalive_timeout": lifecycle.settings.server.idle_timeout_seconds}
        self.runner = web.AppRunner(app, handle_signals=False, handler_cancellation=True,
                                    shutdown_timeout=CANCEL_WAIT_SECONDS, **self.handler)
        self.admin_runner = (web.AppRunner(admin, handle_signals=False, access_log=None,
                                           shutdown_timeout=1.0) if admin is not None else None)
        self.site: DeadlineSite | None = None
        self._stop = asyncio.Event()
        self._drained = False
        self._reloads: set[asyncio.Task[None]] = set()

    @property
    def port(self) -> int:
        """The main listener's port (useful with port 0)."""
        return int(self.runner.addresses[0][1])

    @property
    def admin_port(self) -> int | None:
        return int(self.admin_runner.addresses[0][1]) if self.admin_runner is not None else None

    async def start(self, host: str, port: int, admin: tuple[str, int] | None = None) -> None:
        """Open the listeners; ListenFailed (one line naming the key to change) when one cannot be."""
        await self.runner.setup()
        self.lifecycle.server = self.runner.server
        self.site = DeadlineSite(self.runner, host, port, self.lifecycle, handler=self.handler,
                                 reuse_port=self.reuse_port or None)
        try:
            await self.site.start()
        except OSError as exc:
            raise listen_failed(exc, "main listener", "server.listen", _address(host, port)) from None
        for listener in self.listeners:
            await listener.start()
        if self.admin_runner is not None and admin is not None:
            await self.admin_runner.setup()
            try:
                await web.TCPSite(self.admin_runner, admin[0], admin[1]).start()
            except OSError as exc:
                raise listen_failed(exc, "admin listener", "admin.listen", _address(*admin)) from None

    async def close(self) -> None:
        """Release the runners without a drain (start failed)."""
        for listener in self.listeners:
            await listener.stop(0)
        await self.runner.cleanup()
        if self.admin_runner is not None:
            await self.admin_runner.cleanup()

    def install_signals(self) -> None:
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, self._on_stop, "SIGTERM")
        loop.add_signal_handler(signal.SIGINT, self._on_stop, "SIGINT")
        if self.loader is not None:
            loop.add_signal_handler(signal.SIGHUP, self._on_reload)

    def _on_stop(self, name: str) -> None:
        if self._stop.is_set():
            log.info("drain_in_progress", signal=name)
        self._stop.set()

    def _on_reload(self) -> None:
        loader = self.loader
        assert loader is not None
        log.info("config_reload", signal="SIGHUP")
        self.lifecycle.reload(loader)

    async def run(self) -> int:
        """Serve until SIGTERM or SIGINT, then drain; the exit status (0)."""
        self.install_signals()
        await self._stop.wait()
        await self.drain()
        return 0

    async def drain(self) -> None:
        """Readiness off, listener closed, in-flight requests finished or (after the grace) cancelled,
        streams ended cleanly, the app cleaned up. Idempotent."""
        if self._drained:
            return
        self._drained = True
        lc, settings = self.lifecycle, self.lifecycle.settings
        loop = asyncio.get_running_loop()
        started = loop.time()
        grace = settings.server.shutdown_grace_seconds
        lc.draining = True
        lc.metrics.ready.set(0)
        log.info("drain_start", in_flight=lc.in_flight, streams=lc.open_streams, grace_s=grace)
        if self.site is not None:
            await self.site.stop()  # the listening socket closes: no new connections
        # the other listeners refuse new calls at once and cancel theirs at the grace (the lifecycle
        # counts their calls in flight, so the waits below cover them too)
        stopping = [loop.create_task(listener.stop(grace)) for listener in self.listeners]
        server = self.runner.server
        if server is not None:
            await asyncio.sleep(0)  # requests already read get to their handlers first
            server.pre_shutdown()  # idle keep-alive connections close; busy ones after their reply
        stream_deadline = started + min(settings.server.stream_drain_seconds, grace)
        await lc.wait_idle(stream_deadline - loop.time())
        stopped = lc.stop_streams()
        idle = await lc.wait_idle(started + grace - loop.time())
        cancelled = 0 if idle else await lc.cancel_leftovers()
        if stopping:
            await asyncio.wait(stopping)
        await self.runner.cleanup()
        log.info("drain_done", streams_ended=stopped, cancelled=cancelled,
                 duration_s=round(loop.time() - started, 3))
        if cancelled:
            log.warning("drain_cancelled_requests", count=cancelled, grace_s=grace)
        if self.admin_runner is not None:
            await self.admin_runner.cleanup()


# the app key of the one instance an app holds
LIFECYCLE = web.AppKey("lifecycle", Lifecycle)  # its `settings` are the ones in force (SIGHUP)
