"""The AG-UI endpoint: POST /agui and /agui/{route} take a RunAgentInput, answer 4xx JSON before any
stream, else AG-UI SSE driven by core.agui (one A2A JSON-RPC call upstream, keep-alives while it is
quiet, one terminal event whatever happens). A client leaving cancels the agent's task only with
[agui] cancel_on_disconnect (the cancel goes out in the background, bounded by the unary timeout)."""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import dataclass, field

from aiohttp import web

from gateway.config import Settings
from gateway.core import jsoncodec
from gateway.core.agui import inputs
from gateway.core.agui.request import Options
from gateway.core.agui.run import AguiRun
from gateway.core.agui.session import Sessions
from gateway.core.errors import LimitExceeded
from gateway.core.types import JsonObj
from gateway.observability import get_logger
from gateway.shell.handlers.agui_door import Door
from gateway.shell.handlers.jsonrpc import read_body
from gateway.shell.keys import SETTINGS, UPSTREAM

log = get_logger("gateway.agui")
DEFAULT_ROUTES = frozenset({"", "default"})
_STREAM_TYPES = ("text/event-stream", "text/*", "*/*")


@dataclass(slots=True)
class AguiState:
    sessions: Sessions
    options: Options
    active: set[tuple[str, str]] = field(default_factory=set)   # (route, threadId) of running runs
    cancels: set[asyncio.Task[None]] = field(default_factory=set)  # cancels sent for clients that left


AGUI = web.AppKey("agui", AguiState)


def install(app: web.Application, settings: Settings) -> None:
    """The state and the two routes (add them before any catch-all)."""
    conf = settings.agui
    options = Options(contextid_mode=conf.contextid_mode, unknown_surface=conf.unknown_surface,
                      action_encoding=conf.action_encoding, a2ui_sniff=conf.a2ui_sniff,
                      input_required_as_interrupt=conf.input_required_as_interrupt,
                      snapshot_mode=conf.snapshot_mode, compact_above_bytes=conf.compact_above_bytes,
                      mirror_ids_in_state=conf.mirror_ids_in_state)
    app[AGUI] = AguiState(Sessions(max_entries=conf.max_sessions, ttl=conf.session_ttl_seconds), options)
    app.router.add_post("/agui", handle)
    app.router.add_post("/agui/{route}", handle)


def _reject(status: int, code: str, message: str, details: list[JsonObj] | None = None) -> web.Response:
    body = inputs.InputError(status, code, message, details).body()
    return web.Response(status=status, body=jsoncodec.dumpb(body), content_type="application/json")


def _check_headers(request: web.Request) -> web.Response | None:
    ctype = request.headers.get("Content-Type")
    if ctype is not None and not ctype.split(";")[0].strip().lower().endswith(("/json", "+json")):
        return _reject(415, "agui.unsupported_media_type", f"expected application/json, got {ctype!r}")
    accept = request.headers.get("Accept", "").lower()
    if accept and not any(t in accept for t in _STREAM_TYPES):
        return _reject(406, "agui.not_acceptable", "this endpoint answers text/event-stream only")
    return None


async def handle(request: web.Request) -> web.StreamResponse:
    route = request.match_info.get("route", "")
    if route not in DEFAULT_ROUTES:
        return _reject(404, "agui.unknown_route", f"no upstream agent is routed as {route!r}")
    settings, state = request.app[SETTINGS], request.app[AGUI]
    rejected = _check_headers(request)
    if rejected is not None:
        return rejected
    try:
        inp = inputs.parse(await read_body(request, settings.limits.max_body_bytes))
    except LimitExceeded as err:
        return _reject(413, "agui.too_large", err.message)
    except inputs.InputError as err:
        return _reject(err.status, err.code, err.message, err.details)
    key = (route or "default", inp.thread_id)
    if key in state.active:
        return _reject(409, "agui.thread_busy", f"a run on thread {inp.thread_id!r} is still active")
    state.active.add(key)
    started = time.monotonic()
    try:
        run = AguiRun(inp, state.sessions.get(key, time.time()), state.options,
                      new_id=lambda: uuid.uuid4().hex, now=time.time)
        door = Door(request, settings, run)
        response = await door.start()
        try:
            await door.drive(request.app[UPSTREAM], request.headers.get("Authorization"))
        except asyncio.CancelledError:   # aiohttp cancels the handler when its client disconnects
            if request.transport is None or request.transport.is_closing():
                door.outcome = "client_gone"
                door.cancel_upstream(state.cancels)
            raise
        if door.outcome == "client_gone":
            door.cancel_upstream(state.cancels)
        log.info("agui_run", thread=inp.thread_id, run=inp.run_id, items=run.items, events=door.sent,
                 outcome=door.outcome, duration_ms=round((time.monotonic() - started) * 1000, 2))
        return response
    finally:
        state.active.discard(key)
