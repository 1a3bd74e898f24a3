"""The aiohttp application: routes, typed state, the upstream session and card refresher paired in
`cleanup_ctx`, and `serve()` for the process. It holds no protocol logic."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from aiohttp import web

from gateway.config import Settings
from gateway.core.card import CARD_PATHS
from gateway.observability import get_logger
from gateway.core.types import Binding
from gateway.shell.handlers import agui, card, jsonrpc, push, rest
from gateway.shell.keys import SERVED_BINDINGS, SETTINGS, UPSTREAM
from gateway.shell.upstream import Upstream

log = get_logger("gateway.app")


def build_app(settings: Settings) -> web.Application:
    app = web.Application(client_max_size=settings.limits.max_body_bytes + 1)
    app[SETTINGS] = settings
    app[UPSTREAM] = Upstream(settings.upstream, max_body_bytes=settings.limits.max_body_bytes,
                             max_connections=settings.limits.max_connections)
    app[SERVED_BINDINGS] = (Binding.JSONRPC, Binding.REST)
    for path in CARD_PATHS:
        app.router.add_get(path, card.handle)
    app.router.add_post("/", jsonrpc.handle)
    push.install(app, settings)  # the push webhook route, before the REST catch-all
    agui.install(app, settings)  # POST /agui and /agui/{route}, before the REST catch-all
    app.router.add_route("*", "/{path:.+}", rest.handle)  # the REST surface; keep this route last
    app.cleanup_ctx.append(_upstream_ctx)
    app.cleanup_ctx.append(push.cleanup_ctx)  # after the upstream: relay jobs drain before it closes
    return app


async def _upstream_ctx(app: web.Application) -> AsyncIterator[None]:
    upstream = app[UPSTREAM]
    await upstream.start()
    refresher = None
    if app[SETTINGS].upstream.version == "auto":
        refresher = asyncio.get_running_loop().create_task(upstream.refresh_forever(), name="card-refresh")
    yield
    if refresher is not None:
        refresher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await refresher
    await upstream.close()


def serve(settings: Settings) -> None:
    """Run the gateway until SIGINT/SIGTERM (blocking)."""
    host, port = settings.server.host, settings.server.port
    log.info("listening", listen=f"{host}:{port}", upstream=settings.upstream.url)
    web.run_app(build_app(settings), host=host, port=port, handler_cancellation=True,
                shutdown_timeout=settings.server.shutdown_grace_seconds, print=None, access_log=None)
