"""Owns the admin listener's app: GET /healthz, /readyz, /metrics, /workers, /migration (JSON) and / (the
migration page, server-rendered HTML), for one gateway process or for the parent of several workers. It is
never mounted on the main listener, whose paths are A2A's."""

from __future__ import annotations

import html
import os
import time
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from aiohttp import web

from gateway.core import jsoncodec
from gateway.core.migration import view
from gateway.observability import get_logger
from gateway.shell.process.metrics import CONTENT_TYPE

__all__ = ["STATUS", "ProcessStatus", "Status", "build_admin_app", "migration_page"]


class Status(Protocol):
    """What the admin endpoints report; a single process and the supervisor of workers each have one."""

    def readiness(self) -> tuple[bool, str]: ...
    def metrics_text(self) -> bytes: ...
    def workers(self) -> list[dict[str, Any]]: ...
    def migration(self) -> dict[str, Any]:
        """The migration snapshot (gateway.core.migration), summed over the workers."""
        ...


STATUS = web.AppKey("admin_status", Status)
log = get_logger("gateway.admin")


class ProcessStatus:
    """The status of one gateway process (workers = 1): its lifecycle and its own registry."""

    def __init__(self, readiness: Callable[[], tuple[bool, str]], render: Callable[[], bytes],
                 handled: Callable[[], int], migration: Callable[[], dict[str, Any]]) -> None:
        self._readiness = readiness
        self._render = render
        self._handled = handled
        self._migration = migration

    def migration(self) -> dict[str, Any]:
        return self._migration()

    def readiness(self) -> tuple[bool, str]:
        return self._readiness()

    def metrics_text(self) -> bytes:
        return self._render()

    def workers(self) -> list[dict[str, Any]]:
        return [{"index": 0, "pid": os.getpid(), "alive": True, "ready": self._readiness()[0],
                 "requests": self._handled()}]


@web.middleware
async def _boundary(request: web.Request, handler: Callable[[web.Request], Any]) -> web.StreamResponse:
    """A bug behind an admin endpoint is answered as JSON and logged with its traceback (never aiohttp's
    own error page); aiohttp's HTTP errors (404, 405) pass as they are."""
    try:
        response: web.StreamResponse = await handler(request)
        return response
    except web.HTTPException:
        raise
    except Exception as exc:
        log.exception("admin_internal_error", path=request.path, error=f"{type(exc).__name__}: {exc}")
        return _json({"error": f"internal error: {type(exc).__name__}"}, status=500)


def build_admin_app(status: Status) -> web.Application:
    app = web.Application(middlewares=[_boundary])
    app[STATUS] = status
    app.router.add_get("/healthz", _healthz)
    app.router.add_get("/readyz", _readyz)
    app.router.add_get("/metrics", _metrics)
    app.router.add_get("/workers", _workers)
    app.router.add_get("/migration", _migration)
    app.router.add_get("/", _page)
    return app


def _json(body: Any, status: int = 200) -> web.Response:
    return web.Response(body=jsoncodec.dumpb(body), status=status, content_type="application/json",
                        headers={"Cache-Control": "no-store"})


async def _healthz(request: web.Request) -> web.Response:
    return _json({"status": "alive"})


async def _readyz(request: web.Request) -> web.Response:
    status = request.app[STATUS]
    ready, reason = status.readiness()
    body: dict[str, Any] = {"ready": ready, "reason": reason}
    agents = status.migration().get("agents", {})
    if list(agents) == ["default"]:   # one agent: its interfaces as the version probes found them
        body["upstream"] = agents["default"]
    elif agents:
        body["routes"] = agents
    return _json(body, 200 if ready else 503)


async def _migration(request: web.Request) -> web.Response:
    return _json(view(request.app[STATUS].migration(), time.time()))


async def _page(request: web.Request) -> web.Response:
    page = migration_page(view(request.app[STATUS].migration(), time.time()))
    return web.Response(text=page, content_type="text/html", charset="utf-8",
                        headers={"Cache-Control": "no-store"})


# ---- the migration page: plain HTML, a few lines of CSS, no script ---------------------------------

_CSS = """body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left}
th{background:#f3f3f3}td.n{text-align:right}.v03{background:#fff3cd}.bad{color:#a00;font-weight:bold}
.ok{color:#070}small{color:#666}"""


class _Num(str):
    """An escaped cell that is a count: right-aligned (its <td class="n">)."""


def _table(head: Iterable[str], rows: Iterable[tuple[list[str], str]], empty: str) -> str:
    """A table of already-escaped cells (counts right-aligned); each row with its CSS class."""
    cells = ["<tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for row, cls in rows:
        cells.append(f'<tr class="{cls}">' + "".join(
            f'<td class="n">{c}</td>' if isinstance(c, _Num) else f"<td>{c}</td>" for c in row) + "</tr>")
    return f"<table>{''.join(cells)}</table>" if len(cells) > 1 else f"<p><small>{empty}</small></p>"


def _e(value: object) -> str:
    return html.escape("" if value is None else str(value))


def _n(value: object) -> str:
    return _Num(_e(value))


# the [migration] dates as the page names them: (policy key, label, the key to set)
_DATES = (("deprecation", "deprecated since", "migration.deprecation"), ("sunset", "sunset", "migration.sunset"),
          ("cutoff", "cut-off (v0.3 refused from then)", "migration.cutoff"))


def _policy_lines(policy: dict[str, Any]) -> str:
    dates = [(label, policy.get(key) or "") for key, label, _ in _DATES]
    if not any(value for _, value in dates) and not policy.get("link"):
        keys = ", ".join(k for _, _, k in _DATES)
        return (f"<p><small>No deprecation dates set ({_e(keys)}): v0.3 clients are translated with no end "
                "date</small></p>")
    items = [f"<li>{_e(label)}: {_e(value) or '<small>not set</small>'}</li>" for label, value in dates]
    if policy.get("cutoff_in_force"):
        items.append('<li class="bad">the cut-off has passed: v0.3 clients get the version error</li>')
    if policy.get("link"):
        items.append(f'<li>migration guide: <a href="{_e(policy["link"])}">{_e(policy["link"])}</a></li>')
    return f"<ul>{''.join(items)}</ul>"


def migration_page(data: dict[str, Any]) -> str:
    """The migration view (gateway.core.migration.view) as a page for a person."""
    windows = data.get("windows", [])
    status_cls = {"corrected": "bad", "verified": "ok"}
    agents = [([_e(route), _e(i.get("url")), _e(i.get("binding")), _e(i.get("claimed") or "-"),
                _e(i.get("observed") or "?"), f'<span class="{status_cls.get(i.get("status"), "")}">'
                f'{_e(i.get("status"))}</span>'], "")
              for route, agent in data.get("agents", {}).items() for i in agent.get("interfaces", [])]
    traffic = [([_e(t["route"]), _e(t["client_version"]), _e(t["binding"]),
                 *(_n(t["windows"].get(w, 0)) for w in windows), _n(t["total"]), _e(t["last_seen"])],
                "v03" if t["client_version"] == "0.3" else "") for t in data.get("traffic", [])]
    def per_window(counts: dict[str, int]) -> str:
        return ", ".join(f"{w} {counts.get(w, 0)}" for w in windows)

    callers = [([_e(c["caller"]), _e(", ".join(c["versions"])),
                 "<br>".join(f"{_e(b['route'])} {_e(b['client_version'])} {_e(b['binding'])}: {_e(b['total'])} "
                             f"<small>({per_window(b['windows'])})</small>" for b in c["by"]),
                 _n(c["total"]), _e(c["last_seen"])], "v03" if c["still_v03"] else "")
               for c in data.get("callers", [])]
    notes = [([_e(n["route"]), f"<code>{_e(n['code'])}</code>", _e(n.get("explained", "")),
               f"<code>{_e(n['example_path'])}</code>", _e(n["detail"]), _n(n["total"]), _e(n["last_seen"])], "")
             for n in data.get("notes", [])]
    policy = data.get("policy", {})
    header = policy.get("caller_header") or "the caller header"
    unnamed = [([_e(u["client_version"]), *(_n(u["windows"].get(w, 0)) for w in windows), _n(u["total"]),
                 _e(u["last_seen"])], "v03" if u["client_version"] == "0.3" else "") for u in data.get("unnamed", [])]
    still = data.get("still_v03", [])
    summary = (f'<p class="bad">{len(still)} caller(s) still speak A2A 0.3: {_e(", ".join(still))}</p>' if still
               else '<p class="ok">No caller speaks A2A 0.3 in the counts kept.</p>')
    return "".join([
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>a2a-gateway: migration</title>",
        f"<style>{_CSS}</style></head><body><h1>Migration from A2A 0.3 to 1.0</h1>",
        f"<p><small>generated {_e(data.get('generated'))}; windows {_e(', '.join(windows))}; "
        "JSON at <a href=/migration>/migration</a></small></p>", summary,
        "<h2>Agents</h2>", _table(["route", "interface", "binding", "card claims", "agent speaks", "check"],
                                  agents, "no agent known yet"),
        "<h2>Traffic by client version and binding</h2>",
        _table(["route", "client version", "binding", *windows, "total", "last seen"], traffic, "no traffic yet"),
        "<h2>Dates</h2>", _policy_lines(policy),
        "<h2>Callers</h2>", _table(["caller", "versions", "by route, version, binding", "total", "last seen"],
                                   callers, "no callers yet"),
        f"<h3>Requests without a caller name (no {_e(header)} header)</h3>",
        _table(["client version", *windows, "total", "last seen"], unnamed, "none"),
        "<h2>Translation notes</h2>",
        _table(["route", "code", "what it means", "example path", "detail", "count", "last seen"], notes,
               "no notes"),
        "</body></html>"])


async def _metrics(request: web.Request) -> web.Response:
    response = web.Response(body=request.app[STATUS].metrics_text(), headers={"Cache-Control": "no-store"})
    response.headers["Content-Type"] = CONTENT_TYPE
    return response


async def _workers(request: web.Request) -> web.Response:
    return _json({"workers": request.app[STATUS].workers()})
