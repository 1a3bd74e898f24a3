"""The gateway's public base URL: from configuration, else from the request, where X-Forwarded-*
headers count only when the peer is a configured trusted proxy."""

from __future__ import annotations

import ipaddress

from aiohttp import web

from gateway.config import Settings


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
    """`scheme://host[:port][/prefix]` without a trailing slash."""
    if settings.server.public_url:
        return settings.server.public_url.rstrip("/")
    scheme, host, prefix = request.scheme, request.host, ""
    if _trusted(request, settings):
        scheme = request.headers.get("X-Forwarded-Proto", scheme).split(",")[0].strip() or scheme
        host = request.headers.get("X-Forwarded-Host", host).split(",")[0].strip() or host
        prefix = request.headers.get("X-Forwarded-Prefix", "").split(",")[0].strip().rstrip("/")
    return f"{scheme}://{host}{prefix}"
