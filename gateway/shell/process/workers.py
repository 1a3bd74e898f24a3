"""Owns `server.workers` > 1: a parent that starts N worker processes sharing the listen port with
SO_REUSEPORT, forwards SIGTERM and SIGHUP, restarts a crashed worker, and serves the admin listener."""

# The admin listener lives in the parent, not in a worker: the parent outlives every worker (so /healthz
# and /metrics stay up while one restarts), it is the one that knows all workers are alive and ready
# (/readyz), and it is where the workers' metrics meet. Workers run prometheus-client's multiprocess
# mode, each writing to files in PROMETHEUS_MULTIPROC_DIR (set here before any metric exists); the
# parent sums them per scrape. prometheus_client is imported only after that variable is set.

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import struct
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from aiohttp import web

from gateway.config import ConfigError, Settings
from gateway.observability import configure, get_logger

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry

__all__ = ["Supervisor", "supervise"]

log = get_logger("gateway.workers")
T = TypeVar("T")

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"  # = gateway.shell.process.metrics.MULTIPROC_ENV (not imported: see above)
EXIT_CONFIG = 2
RESTART_DELAY_S = 1.0
MAX_RESTART_DELAY_S = 30.0
STABLE_AFTER_S = 10.0  # a worker that ran this long before dying is restarted at once
KILL_MARGIN_S = 10.0  # after the grace: cancelled handlers unwind, push jobs get up to 5 s; then SIGKILL


def supervise(settings: Settings, loader: Callable[[], Settings], argv: list[str]) -> int:
    """Run the parent until SIGTERM or SIGINT and every worker has drained (blocking); the exit status.
    `argv` is the worker's `gateway` command line without `--worker`."""
    if settings.server.port == 0:
        log.error("workers_need_a_fixed_port", listen=settings.server.listen,
                  detail="with server.workers > 1 every worker binds the same port (SO_REUSEPORT)")
        return EXIT_CONFIG
    own = MULTIPROC_ENV not in os.environ
    path = Path(os.environ.get(MULTIPROC_ENV) or tempfile.mkdtemp(prefix="a2a-gateway-metrics-"))
    for stale in path.glob("*.db"):  # values of an earlier run would be summed into this one's
        stale.unlink()
    os.environ[MULTIPROC_ENV] = str(path)
    try:
        return asyncio.run(Supervisor(settings, loader, argv).run())
    finally:
        if own:
            shutil.rmtree(path, ignore_errors=True)


@dataclass
class _Worker:
    index: int
    process: asyncio.subprocess.Process | None = None
    started: float = 0.0
    delay: float = RESTART_DELAY_S
    restarts: int = 0
    watcher: asyncio.Task[None] | None = field(default=None, repr=False)

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.returncode is None


class Supervisor:
    """The parent process of the workers; also the admin listener's Status."""

    def __init__(self, settings: Settings, loader: Callable[[], Settings], argv: list[str]) -> None:
        self.settings = settings
        self.loader = loader
        self.argv = argv
        self.workers = [_Worker(i) for i in range(settings.server.workers)]
        self.draining = False
        self.exit_code = 0
        self._stop = asyncio.Event()
        self._multiproc = os.environ[MULTIPROC_ENV]
        import gateway.shell.process.metrics as metrics

        self._metrics = metrics
        own = metrics.SupervisorMetrics()
        self.reloads, self.restarts = own.config_reloads, own.worker_restarts

    # ---- the admin listener's Status -------------------------------------------------------------

    def _per_pid(self) -> dict[str, dict[str, float]]:
        """{metric name: {pid: value}} of the workers' per-process gauges."""
        out: dict[str, dict[str, float]] = {}
        wanted = {self._metrics.PREFIX + "ready", self._metrics.PREFIX + "worker_requests"}
        for family in self._collect():
            if family.name in wanted:
                for sample in family.samples:
                    out.setdefault(family.name, {})[sample.labels.get("pid", "")] = sample.value
        return out

    def readiness(self) -> tuple[bool, str]:
        if self.draining:
            return False, "draining: the gateway is shutting down"
        ready = self._per_pid().get(self._metrics.PREFIX + "ready", {})
        for w in self.workers:
            if not w.alive or w.process is None:
                return False, f"worker {w.index} is not running"
            if ready.get(str(w.process.pid)) != 1:
                return False, f"worker {w.index} (pid {w.process.pid}) is not ready"
        return True, "ready"

    def _read(self, read: Callable[[CollectorRegistry], T], when_busy: T) -> T:
        """`read` of the registry summing the workers' metric files. A worker that is starting may be
        writing its own file at that moment (prometheus-client reads it as a short struct): read again, and
        give `when_busy` if it is still being written (a starting worker's gauges count as absent)."""
        for _ in range(3):
            try:
                return read(self._metrics.multiprocess_registry(self._multiproc))
            except (struct.error, ValueError, OSError):
                continue
        return when_busy

    def _collect(self) -> list[Any]:
        return self._read(lambda registry: list(registry.collect()), [])

    def metrics_text(self) -> bytes:
        return self._read(self._metrics.render, b"# the workers' metric files are being written: ask again\n")

    def migration(self) -> dict[str, Any]:
        """The workers' migration snapshots, summed (each writes its own file beside its metrics)."""
        from gateway.shell.carrier.migration import read_snapshots

        return read_snapshots(Path(self._multiproc))

    def workers_status(self) -> list[dict[str, Any]]:
        gauges = self._per_pid()
        ready = gauges.get(self._metrics.PREFIX + "ready", {})
        handled = gauges.get(self._metrics.PREFIX + "worker_requests", {})
        out: list[dict[str, Any]] = []
        for w in self.workers:
            pid = w.process.pid if w.process is not None else None
            out.append({"index": w.index, "pid": pid, "alive": w.alive, "ready": ready.get(str(pid)) == 1,
                        "requests": int(handled.get(str(pid), 0)), "restarts": w.restarts})
        return out

    # ---- running --------------------------------------------------------------------------------

    async def run(self) -> int:
        from gateway.shell.process.admin import build_admin_app

        loop = asyncio.get_running_loop()
        for w in self.workers:
            await self._start(w)
        admin_runner = None
        if self.settings.admin.listen:
            admin_runner = web.AppRunner(build_admin_app(_AdminStatus(self)), handle_signals=False,
                                         access_log=None, shutdown_timeout=1.0)
            await admin_runner.setup()
            try:
                await web.TCPSite(admin_runner, self.settings.admin.host, self.settings.admin.port).start()
            except OSError as exc:
                from gateway.shell.process.lifecycle import listen_failed

                error = listen_failed(exc, "admin listener", "admin.listen", self.settings.admin.listen)
                log.error("listen_failed", admin=self.settings.admin.listen, error=str(error))
                self.exit_code = 1
                self._stop.set()
        loop.add_signal_handler(signal.SIGTERM, self._stop.set)
        loop.add_signal_handler(signal.SIGINT, self._stop.set)
        loop.add_signal_handler(signal.SIGHUP, self._reload)
        log.info("workers_started", workers=len(self.workers), pids=[w.process.pid for w in self.workers
                                                                     if w.process is not None],
                 admin=self.settings.admin.listen or None)
        await self._stop.wait()
        await self._drain()
        if admin_runner is not None:
            await admin_runner.cleanup()
        return self.exit_code

    async def _start(self, w: _Worker) -> None:
        cmd = [sys.executable, "-m", "gateway", *self.argv, f"--worker={w.index}"]
        w.process = await asyncio.create_subprocess_exec(*cmd, stdin=asyncio.subprocess.DEVNULL)
        w.started = asyncio.get_running_loop().time()
        w.watcher = asyncio.get_running_loop().create_task(self._watch(w), name=f"worker-{w.index}")

    async def _watch(self, w: _Worker) -> None:
        process = w.process
        assert process is not None
        code = await process.wait()
        self._metrics_dead(process.pid)
        if self.draining:
            return
        loop = asyncio.get_running_loop()
        if code == EXIT_CONFIG:
            log.error("worker_config_error", worker=w.index, pid=process.pid, detail="stopping every worker")
            self.exit_code = EXIT_CONFIG
            self._stop.set()
            return
        ran = loop.time() - w.started
        if ran >= STABLE_AFTER_S:  # it had been running well: at once
            wait, w.delay = 0.0, RESTART_DELAY_S
        else:  # crashing at start: back off, doubling
            wait, w.delay = w.delay, min(MAX_RESTART_DELAY_S, w.delay * 2)
        log.error("worker_exited", worker=w.index, pid=process.pid, code=code, ran_s=round(ran, 1),
                  restart_in_s=wait)
        await asyncio.sleep(wait)
        if not self.draining:
            w.restarts += 1
            self.restarts.inc()
            await self._start(w)

    def _metrics_dead(self, pid: int) -> None:
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid, self._multiproc)  # type: ignore[no-untyped-call]

    def _reload(self) -> None:
        """SIGHUP: validate the file here; forward to the workers only when it is valid."""
        try:
            new = self.loader()
        except ConfigError as exc:
            log.error("config_reload_failed", problems=[str(p) for p in exc.problems],
                      detail="keeping the running configuration; workers not signalled")
            self.reloads.labels("error").inc()
            return
        from gateway.shell.process.lifecycle import keep_static, restart_keys

        static = restart_keys(self.settings, new)
        if static:
            log.warning("config_reload_needs_restart", keys=static,
                        detail="these keys are read at start-up; the running values stay until a restart")
        if new.log != self.settings.log:
            configure(new.log)
        self.settings = keep_static(self.settings, new)
        self.reloads.labels("ok").inc()
        log.info("config_reload", workers=len(self.workers))
        self._signal(signal.SIGHUP)

    def _signal(self, sig: signal.Signals) -> None:
        for w in self.workers:
            if w.alive and w.process is not None:
                with contextlib.suppress(ProcessLookupError):
                    w.process.send_signal(sig)

    async def _drain(self) -> None:
        """SIGTERM to every worker; they drain within the grace; SIGKILL whoever outlives it."""
        self.draining = True
        grace = self.settings.server.shutdown_grace_seconds
        log.info("drain_start", workers=sum(w.alive for w in self.workers), grace_s=grace)
        self._signal(signal.SIGTERM)
        watchers = [w.watcher for w in self.workers if w.watcher is not None]
        processes = [w.process for w in self.workers if w.process is not None]
        waits = [asyncio.ensure_future(p.wait()) for p in processes]
        if waits:
            _, pending = await asyncio.wait(waits, timeout=grace + KILL_MARGIN_S)
            if pending:
                log.warning("workers_killed", count=len(pending))
                for p in processes:
                    if p.returncode is None:
                        with contextlib.suppress(ProcessLookupError):
                            p.kill()
                await asyncio.wait(waits)
        for task in watchers:
            task.cancel()
        codes = [p.returncode for p in processes]
        if self.exit_code == 0 and any(c != 0 for c in codes):
            self.exit_code = 1
        log.info("drain_done", exit_codes=codes)


class _AdminStatus:
    """The supervisor as the admin endpoints see it."""

    def __init__(self, supervisor: Supervisor) -> None:
        self._s = supervisor

    def readiness(self) -> tuple[bool, str]:
        return self._s.readiness()

    def metrics_text(self) -> bytes:
        return self._s.metrics_text()

    def workers(self) -> list[dict[str, Any]]:
        return self._s.workers_status()

    def migration(self) -> dict[str, Any]:
        return self._s.migration()
