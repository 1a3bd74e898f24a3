"""Owns the SIGHUP reload of one gateway process: load and validate the configuration again, put the new
settings in force (keeping the keys read at start-up), swap a changed upstream, and log and count it."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING

from gateway.config import ConfigError, Settings
from gateway.observability import configure, get_logger

if TYPE_CHECKING:
    from gateway.shell.lifecycle import Lifecycle

__all__ = ["RESTART_PREFIXES", "ROUTED_RESTART_PREFIXES", "keep_static", "reload_settings", "restart_keys"]

log = get_logger("gateway.lifecycle")

# keys read once when the app is built: a reload that changes them is logged as needing a restart
RESTART_PREFIXES = ("server.listen", "server.workers", "server.event_loop", "admin.", "tracing.", "push.",
                    "agui.", "routes")
# with [[routes]], every route's settings (and the [upstream]/[quirks] keys they inherit) are fixed too
ROUTED_RESTART_PREFIXES = (*RESTART_PREFIXES, "upstream.", "quirks.")


def reload_settings(lc: Lifecycle, loader: Callable[[], Settings]) -> bool:
    """SIGHUP: load and validate the configuration again. On success new requests get the new
    settings (a changed upstream gets a new session; the old one closes when the requests that
    use it are done); on failure the running settings stay. Either way: logged and counted."""
    try:
        new = loader()
    except ConfigError as exc:
        log.error("config_reload_failed", problems=[str(p) for p in exc.problems],
                  detail="keeping the running configuration")
        if not lc.supervised:
            lc.metrics.config_reload("error")
        return False
    old = lc.settings
    changed = _changed_keys(old, new)
    routed = bool(old.routes or new.routes)
    static = [k for k in changed if k.startswith(ROUTED_RESTART_PREFIXES if routed else RESTART_PREFIXES)]
    lc.settings = keep_static(old, new)
    lc.generation += 1
    if routed:  # the routes' upstream and quirks are fixed at start-up; the other keys reach them
        lc.settings = dataclasses.replace(lc.settings, upstream=old.upstream, quirks=old.quirks)
        for route in lc.routes.values():
            route.settings = dataclasses.replace(lc.settings, upstream=route.settings.upstream,
                                                 quirks=route.settings.quirks, routes=())
            route.generation += 1
    else:
        retired = lc.upstream.reconfigure(new.upstream, max_body_bytes=new.limits.max_body_bytes,
                                          max_connections=new.limits.max_connections)
        if retired is not None:
            lc.retire(retired)
    if new.log != old.log:
        configure(new.log)
    if not lc.supervised:
        lc.metrics.config_reload("ok")
    log.info("config_reloaded", changed=changed)
    if static:
        log.warning("config_reload_needs_restart", keys=static,
                    detail="these keys are read at start-up; the running values stay until a restart")
    return True


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


def restart_keys(old: Settings, new: Settings) -> list[str]:
    """Changed keys that only take effect after a restart."""
    prefixes = ROUTED_RESTART_PREFIXES if old.routes or new.routes else RESTART_PREFIXES
    return [k for k in _changed_keys(old, new) if k.startswith(prefixes)]


def keep_static(old: Settings, new: Settings) -> Settings:
    """The settings in force after a reload: the new ones, except the keys read at start-up."""
    server = dataclasses.replace(new.server, listen=old.server.listen, workers=old.server.workers,
                                 event_loop=old.server.event_loop)
    return dataclasses.replace(new, server=server, admin=old.admin, tracing=old.tracing, push=old.push,
                               agui=old.agui, routes=old.routes)
