"""The gateway's public base URL (from configuration, else from the request, where X-Forwarded-*
headers count only when the peer is a configured trusted proxy) plus the route's prefix, if any."""

from __future__ import annotations

import ipaddress

from aiohttp import web

from gateway.config import Settings
from gateway.shell.keys import ROUTE_PREFIX


def _trusted(request: web.Request, settings: Settings) -> bool:
    peer = request.remote
    if not peer or not settings.server.trusted_proxies:
        return False
    try:
        address = ipaddress.ip_address(peer)
    except ValueError:
        return False
    return any(address in net for net in settings.server.trusted_proxies)


def public_base(request: web.Request, settings: Settings) -> str:
    """`scheme://host[:port][/prefix][/route prefix]` without a trailing slash."""
    route = request.app.get(ROUTE_PREFIX, "")
    if settings.server.public_url:
        return settings.server.public_url.rstrip("/") + route
    scheme, host, prefix = request.scheme, request.host, ""
    if _trusted(request, settings):
        scheme = request.headers.get("X-Forwarded-Proto", scheme).split(",")[0].strip() or scheme
        host = request.headers.get("X-Forwarded-Host", host).split(",")[0].strip() or host
        prefix = request.headers.get("X-Forwarded-Prefix", "").split(",")[0].strip().rstrip("/")
    return f"{scheme}://{host}{prefix}{route}"


def route_path(request: web.Request) -> str:
    """The raw request path without the query and without the route's prefix (what the agent sees)."""
    path = request.raw_path.split("?", 1)[0]
    route = request.app.get(ROUTE_PREFIX, "")
    return (path[len(route):] or "/") if route and path.startswith(route) else path
