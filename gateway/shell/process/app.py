"""The aiohttp application: routes (each handler tracked by the root lifecycle), typed state, the upstream
session and card refresher paired in `cleanup_ctx`, and `serve()` for one process (lifecycle.Process). No
protocol logic."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import os
from collections.abc import AsyncIterator, Callable, MutableMapping
from pathlib import Path

from aiohttp import web

import gateway.shell.carrier.task_index as task_index
from gateway.config import ConfigError, Problem, Settings
from gateway.core.card import CARD_PATHS
from gateway.core.types import Binding
from gateway.observability import get_logger
from gateway.shell.agent.upstream import UPSTREAM, Upstream
from gateway.shell.carrier.migration import MIGRATION, Migration, flush_forever
from gateway.shell.doors import agui, card, jsonrpc, rest
from gateway.shell.edge.guard import GUARD, Guard
from gateway.shell.edge.signing import CARD_SIGNER, JWKS_PATH, CardSigner, CardVerifier
from gateway.shell.process.admin import ProcessStatus, build_admin_app
from gateway.shell.process.keys import ROUTE_NAME, ROUTE_PREFIX, SERVED_BINDINGS
from gateway.shell.process.lifecycle import LIFECYCLE, Lifecycle, Listener, Process, Track
from gateway.shell.process.metrics import METRICS, MULTIPROC_ENV, Metrics
from gateway.shell.push import relay as push
from gateway.shell.push.sender import PUSH_SENDER, MetricsPushCounter

log = get_logger("gateway.app")


def build_app(settings: Settings) -> web.Application:
    """The gateway app: in front of `[upstream]` (the sidecar), or, with `[[routes]]`, one sub-app per
    route (gateway.shell.process.routes) and a 404 for paths no route matches."""
    app = web.Application(client_max_size=settings.limits.max_body_bytes + 1)
    metrics = app[METRICS] = Metrics()
    upstream = Upstream(settings.upstream, settings.limits, metrics=metrics)
    lifecycle = app[LIFECYCLE] = Lifecycle(settings, upstream, metrics)
    app[MIGRATION] = Migration(settings.migration, lambda: {name: route.upstream for name, route in
                                                            lifecycle.routes.items()} or {"default": upstream})
    inject = None
    edge = _Edge(CardSigner.from_settings(settings.card), CardVerifier.from_settings(settings.card))
    if edge.verifier is not None:
        app.cleanup_ctx.append(edge.cleanup_ctx)
    if settings.tracing.enabled:  # outermost: the span covers the whole request
        from gateway.shell.process.tracing import TRACING, Tracing

        tracing = app[TRACING] = Tracing(settings.tracing)
        app.middlewares.append(tracing.middleware)
        inject = tracing.inject
        app.cleanup_ctx.append(tracing.cleanup_ctx)
    track = lifecycle.tracking  # the root's, around every route's handler: it counts the routes' requests too
    app[task_index.TASK_INDEX] = task_index.store_for(settings.task_index)   # every route's agent shares it
    app.cleanup_ctx.append(task_index.cleanup_ctx)
    lifecycle.follow_in_gauges()
    if settings.routes:
        import gateway.shell.process.routes as routes

        routes.install(app, settings, lambda sub, route_settings: _serve_agent(sub, route_settings, inject, edge,
                                                                               track), track)
    else:
        app[UPSTREAM] = upstream
        upstream.inject = inject
        _serve_agent(app, settings, inject, edge, track)
    app.cleanup_ctx.append(lifecycle.cleanup_ctx)
    app.cleanup_ctx.append(_migration_ctx)
    return app


class _Edge:
    """What the edge adds to every agent served: the card signer and the upstream card's verifier."""

    def __init__(self, signer: CardSigner | None, verifier: CardVerifier | None) -> None:
        self.signer, self.verifier = signer, verifier

    async def cleanup_ctx(self, app: web.Application) -> AsyncIterator[None]:
        yield
        if self.verifier is not None:
            await self.verifier.close()


async def _migration_ctx(app: web.Application) -> AsyncIterator[None]:
    """A worker's migration snapshot: rewritten while it runs, and a last time when it stops."""
    migration = app[MIGRATION]
    writer = None
    if migration.directory is not None:
        writer = asyncio.get_running_loop().create_task(flush_forever(migration), name="migration-flush")
    yield
    if writer is not None:
        writer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await writer
    migration.flush()


def _serve_agent(app: web.Application, settings: Settings,
                 inject: Callable[[MutableMapping[str, str]], None] | None, edge: _Edge, track: Track) -> None:
    """Serve one agent on `app` (the root app, or a route's sub-app holding its own UPSTREAM), each handler
    registered as `track` runs it."""
    app[UPSTREAM].inject = inject
    if edge.verifier is not None:
        app[UPSTREAM].verify = edge.verifier.check
    grpc = (Binding.GRPC,) if settings.grpc.listen and not settings.routes else ()  # gRPC serves [upstream]
    app[SERVED_BINDINGS] = (Binding.JSONRPC, Binding.REST, *grpc)
    for path in CARD_PATHS:
        app.router.add_get(path, track(card.handle))
    if edge.signer is not None:
        app[CARD_SIGNER] = edge.signer
        app.router.add_get(JWKS_PATH, track(card.jwks))
    guard = Guard.of(settings, app[METRICS], app.get(ROUTE_NAME, "default"))   # this agent's [auth] and [callers]
    if guard is not None:
        app[GUARD] = guard
        app.cleanup_ctx.append(guard.cleanup_ctx)
    app.router.add_route("*", "/", track(jsonrpc.handle))  # any method: a GET is answered in JSON-RPC's shape too
    if app.get(ROUTE_PREFIX):
        app.router.add_route("*", "", track(jsonrpc.handle))  # the route's prefix itself, as its card says
    push.install(app, settings, track)  # the push webhook route, before the REST catch-all
    agui.install(app, settings, track)  # POST /agui and /agui/{route}, before the REST catch-all
    app.router.add_route("*", "/{path:.+}", track(rest.handle))  # the REST surface; keep this route last
    app.cleanup_ctx.append(_upstream_ctx)
    app.cleanup_ctx.append(push.cleanup_ctx)  # after the upstream: relay jobs drain before it closes
    if PUSH_SENDER in app:
        app[PUSH_SENDER].counter = MetricsPushCounter(app[METRICS])


async def _upstream_ctx(app: web.Application) -> AsyncIterator[None]:
    upstream = app[UPSTREAM]
    await upstream.start()
    # everything imported and built: keep the startup heap out of the cyclic GC's way, so the
    # collections that per-request garbage triggers stay cheap
    gc.collect()
    gc.freeze()
    # it idles while the version is fixed, and a reload may switch to "auto"
    refresher = asyncio.get_running_loop().create_task(upstream.refresh_forever(), name="card-refresh")
    yield
    refresher.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await refresher
    await upstream.close()


def grpc_listener(app: web.Application, settings: Settings, *, reuse_port: bool = False) -> Listener:
    """The gRPC listener of `app` (imported only when configured: grpcio stays out of an HTTP-only process)."""
    from gateway.shell.doors.grpc import GrpcListener

    return GrpcListener(app, settings, reuse_port=reuse_port)


EXIT_CONFIG = 2
EXIT_LISTEN = 1


def loop_factory(choice: str) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """server.event_loop: uvloop's loop factory ("uvloop", or "auto" when installed), else None."""
    if choice == "asyncio":
        return None
    try:
        uvloop = importlib.import_module("uvloop")
    except ImportError:
        if choice == "uvloop":
            raise ConfigError([Problem("server.event_loop", "uvloop is not installed")]) from None
        return None
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


def serve(settings: Settings, loader: Callable[[], Settings] | None = None, *,
          worker: int | None = None) -> int:
    """Run one gateway process until SIGTERM or SIGINT, then drain (blocking); the exit status.
    `loader` reads the configuration again on SIGHUP. A `worker` (started by gateway.shell.process.workers)
    shares the port with its siblings (SO_REUSEPORT) and leaves the admin listener to its parent."""
    with asyncio.Runner(loop_factory=loop_factory(settings.server.event_loop)) as runner:
        return runner.run(run_process(settings, loader, worker))


async def run_process(settings: Settings, loader: Callable[[], Settings] | None = None, worker: int | None = None,
                      on_ready: Callable[[Process], None] | None = None) -> int:
    """serve()'s body on a running loop: start the listeners, call `on_ready` with the started process
    (`a2a-gateway demo` prints what to try), serve until SIGTERM or SIGINT, drain; the exit status."""
    try:
        app = build_app(settings)
    except ConfigError as exc:
        log.error("configuration_error", problems=[str(p) for p in exc.problems])
        return EXIT_CONFIG
    lifecycle = app[LIFECYCLE]
    lifecycle.supervised = worker is not None  # its parent counts reloads and serves the admin listener
    if worker is not None and os.environ.get(MULTIPROC_ENV):  # the parent sums the workers' snapshots
        app[MIGRATION].directory = Path(os.environ[MULTIPROC_ENV])
    admin = None
    if worker is None and settings.admin.listen:
        admin = build_admin_app(ProcessStatus(lifecycle.readiness, app[METRICS].render,
                                              lambda: lifecycle.handled, app[MIGRATION].snapshot))
    listeners = (grpc_listener(app, settings, reuse_port=worker is not None),) if settings.grpc.listen else ()
    process = Process(app, lifecycle, admin=admin, loader=loader, reuse_port=worker is not None, listeners=listeners)
    host, port = settings.server.host, settings.server.port
    admin_at = (settings.admin.host, settings.admin.port) if admin is not None else None
    try:
        await process.start(host, port, admin_at)
    except OSError as exc:
        log.error("listen_failed", listen=settings.server.listen, admin=settings.admin.listen, error=str(exc))
        await process.close()
        return EXIT_LISTEN
    agents: dict[str, object] = ({"routes": {r.name: r.upstream.url for r in settings.routes}} if settings.routes
                                 else {"upstream": settings.upstream.url})
    grpc_at = f"{settings.grpc.host}:{lifecycle.grpc_port}" if lifecycle.grpc_port is not None else None
    log.info("listening", listen=f"{host}:{process.port}", admin=settings.admin.listen if admin else None, grpc=grpc_at,
             **agents, worker=worker, loop=type(asyncio.get_running_loop()).__module__)
    if on_ready is not None:
        on_ready(process)
    return await process.run()
