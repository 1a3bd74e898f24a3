"""The gateway's public base URL (from configuration, else from the request, where X-Forwarded-*
headers count only when the peer is a configured trusted proxy) plus the route's prefix, if any; the gRPC
listener's `host:port` as the card lists it."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from aiohttp import web

from gateway.config import Settings
from gateway.shell.process.keys import ROUTE_PREFIX


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


def listener_base(settings: Settings) -> str:
    """The public base URL when no HTTP request says it (a gRPC call): server.public_url, else the listen
    address (an unspecified host becomes loopback: the sidecar case)."""
    if settings.server.public_url:
        return settings.server.public_url.rstrip("/")
    host = settings.server.host
    host = "127.0.0.1" if host in ("0.0.0.0", "") else "[::1]" if host == "::" else f"[{host}]" if ":" in host else host
    return f"http://{host}:{settings.server.port}"


def grpc_target(base_url: str, settings: Settings, port: int | None) -> str:
    """The `host:port` the card lists for gRPC: grpc.public_address, else the host of the public base
    URL with the gRPC listener's bound port; "" while the listener is off."""
    if not settings.grpc.listen or port is None:
        return ""
    if settings.grpc.public_address:
        return settings.grpc.public_address
    host = urlsplit(base_url).hostname or settings.grpc.host
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
