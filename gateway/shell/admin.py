"""Owns the admin listener's app: GET /healthz, /readyz, /metrics and /workers, for one gateway process
or for the parent of several workers. It is never mounted on the main listener, whose paths are A2A's."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, Protocol

from aiohttp import web

from gateway.core import jsoncodec
from gateway.shell.metrics import CONTENT_TYPE

__all__ = ["STATUS", "ProcessStatus", "Status", "build_admin_app"]


class Status(Protocol):
    """What the admin endpoints report; a single process and the supervisor of workers each have one."""

    def readiness(self) -> tuple[bool, str]: ...
    def metrics_text(self) -> bytes: ...
    def workers(self) -> list[dict[str, Any]]: ...


STATUS = web.AppKey("admin_status", Status)


class ProcessStatus:
    """The status of one gateway process (workers = 1): its lifecycle and its own registry."""

    def __init__(self, readiness: Callable[[], tuple[bool, str]], render: Callable[[], bytes],
                 handled: Callable[[], int]) -> None:
        self._readiness = readiness
        self._render = render
        self._handled = handled

    def readiness(self) -> tuple[bool, str]:
        return self._readiness()

    def metrics_text(self) -> bytes:
        return self._render()

    def workers(self) -> list[dict[str, Any]]:
        return [{"index": 0, "pid": os.getpid(), "alive": True, "ready": self._readiness()[0],
                 "requests": self._handled()}]


def build_admin_app(status: Status) -> web.Application:
    app = web.Application()
    app[STATUS] = status
    app.router.add_get("/healthz", _healthz)
    app.router.add_get("/readyz", _readyz)
    app.router.add_get("/metrics", _metrics)
    app.router.add_get("/workers", _workers)
    return app


def _json(body: Any, status: int = 200) -> web.Response:
    return web.Response(body=jsoncodec.dumpb(body), status=status, content_type="application/json",
                        headers={"Cache-Control": "no-store"})


async def _healthz(request: web.Request) -> web.Response:
    return _json({"status": "alive"})


async def _readyz(request: web.Request) -> web.Response:
    ready, reason = request.app[STATUS].readiness()
    return _json({"ready": ready, "reason": reason}, 200 if ready else 503)


async def _metrics(request: web.Request) -> web.Response:
    response = web.Response(body=request.app[STATUS].metrics_text(), headers={"Cache-Control": "no-store"})
    response.headers["Content-Type"] = CONTENT_TYPE
    return response


async def _workers(request: web.Request) -> web.Response:
    return _json({"workers": request.app[STATUS].workers()})
