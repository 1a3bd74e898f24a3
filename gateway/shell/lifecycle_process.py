"""Owns one serving process: the app's runner and listener (SO_REUSEPORT under a supervisor), the admin
listener unless a parent serves it, the SIGTERM/SIGINT and SIGHUP handlers, `run()` and the drain."""

# Drain, in order: readiness fails; the listening socket closes (no new connections) and idle keep-alive
# connections are closed; requests in flight continue; after `server.stream_drain_seconds` every open
# stream is ended after its last complete event (`: draining`, then the end of the response); at
# `server.shutdown_grace_seconds` whatever is still running is cancelled; the app is cleaned up; exit 0.

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable
from typing import TYPE_CHECKING

from aiohttp import web

from gateway.config import Settings
from gateway.observability import get_logger

if TYPE_CHECKING:
    from gateway.shell.lifecycle import Lifecycle

__all__ = ["CANCEL_WAIT_SECONDS", "Process"]

log = get_logger("gateway.lifecycle")

CANCEL_WAIT_SECONDS = 2.0  # after the grace: how long cancelled handlers get to unwind


class Process:
    """One serving process: the app's runner and listener (SO_REUSEPORT under a supervisor), the admin
    listener unless a parent serves it, the signal handlers, and the drain."""

    def __init__(self, app: web.Application, lifecycle: Lifecycle, *, admin: web.Application | None = None,
                 loader: Callable[[], Settings] | None = None, reuse_port: bool = False) -> None:
        self.app = app
        self.lifecycle = lifecycle
        self.admin = admin
        self.loader = loader
        self.reuse_port = reuse_port
        self.runner = web.AppRunner(app, handle_signals=False, access_log=None, handler_cancellation=True,
                                    shutdown_timeout=CANCEL_WAIT_SECONDS)
        self.admin_runner = (web.AppRunner(admin, handle_signals=False, access_log=None,
                                           shutdown_timeout=1.0) if admin is not None else None)
        self.site: web.TCPSite | None = None
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
        await self.runner.setup()
        self.lifecycle.server = self.runner.server
        self.site = web.TCPSite(self.runner, host, port, reuse_port=self.reuse_port or None)
        await self.site.start()
        if self.admin_runner is not None and admin is not None:
            await self.admin_runner.setup()
            await web.TCPSite(self.admin_runner, admin[0], admin[1]).start()

    async def close(self) -> None:
        """Release the runners without a drain (start failed)."""
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
        server = self.runner.server
        if server is not None:
            await asyncio.sleep(0)  # requests already read get to their handlers first
            server.pre_shutdown()  # idle keep-alive connections close; busy ones after their reply
        stream_deadline = started + min(settings.server.stream_drain_seconds, grace)
        await lc.wait_idle(stream_deadline - loop.time())
        stopped = lc.stop_streams()
        idle = await lc.wait_idle(started + grace - loop.time())
        cancelled = 0 if idle else await lc.cancel_leftovers()
        await self.runner.cleanup()
        log.info("drain_done", streams_ended=stopped, cancelled=cancelled,
                 duration_s=round(loop.time() - started, 3))
        if cancelled:
            log.warning("drain_cancelled_requests", count=cancelled, grace_s=grace)
        if self.admin_runner is not None:
            await self.admin_runner.cleanup()

