"""Owns the per-key validators (_check_* and helpers): each takes a typed value, returns it
normalized, or raises _Bad with the reason; host:port, URL, header, CIDR and push-key rules."""

from __future__ import annotations

import base64
import binascii
import importlib.util
import ipaddress
import re
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

from gateway.config.errors import _Bad

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

_HOSTNAME = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9.\-]*[A-Za-z0-9])?$")
_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
# Headers the gateway sets or that describe one hop; configuring them would break the proxy.
_RESERVED_HEADERS = frozenset(
    {
        "host",
        "content-length",
        "content-type",
        "transfer-encoding",
        "connection",
        "keep-alive",
        "proxy-connection",
        "te",
        "trailer",
        "upgrade",
        "a2a-version",
    }
)


def _split_hostport(value: str) -> tuple[str, int]:
    if value.startswith("["):
        host, sep, port = value[1:].partition("]:")
        if not sep:
            raise _Bad(f"must be HOST:PORT (IPv6 as [ADDR]:PORT), got {value!r}")
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise _Bad(f"{host!r} is not an IPv6 address") from None
    else:
        host, sep, port = value.rpartition(":")
        if not sep or not host:
            raise _Bad(f"must be HOST:PORT, e.g. 127.0.0.1:8080, got {value!r}")
        if ":" in host:
            raise _Bad(f"IPv6 addresses need brackets, e.g. [::1]:8080, got {value!r}")
        if not _HOSTNAME.match(host):
            raise _Bad(f"{host!r} is not a valid host name or address")
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise _Bad(f"port must be a number from 0 to 65535, got {port!r}")
    return host, int(port)


def _check_listen(value: str) -> str:
    _split_hostport(value)
    return value


def _check_admin_listen(value: str) -> str:
    return value if value == "" else _check_listen(value)


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _check_event_loop(value: str) -> str:
    if value == "uvloop" and not _installed("uvloop"):
        raise _Bad('uvloop is not installed: install a2a-gateway[uvloop], or use "auto"')
    return value


def _check_tracing(value: bool) -> bool:
    if value and not _installed("opentelemetry.sdk.trace"):
        raise _Bad("OpenTelemetry is not installed: install a2a-gateway[otel]")
    return value


def _check_http_url(value: str, *, what: str) -> str:
    if any(c.isspace() for c in value):
        raise _Bad(f"{what} must not contain whitespace, got {value!r}")
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError as exc:
        raise _Bad(f"{what} is not a valid URL ({exc}), got {value!r}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise _Bad(f"{what} must be an absolute http:// or https:// URL, got {value!r}")
    if parts.username is not None or parts.password is not None:
        raise _Bad(f"{what} must not carry credentials; use upstream.headers, got {value!r}")
    if parts.query or parts.fragment:
        raise _Bad(f"{what} must not have a query or fragment, got {value!r}")
    return value


def _check_upstream_url(value: str) -> str:
    return _check_http_url(value, what="the upstream URL")


def _check_public_url(value: str) -> str:
    if value == "":
        return value
    return _check_http_url(value, what="the public URL").rstrip("/")


def _check_cidrs(value: tuple[str, ...]) -> tuple[Network, ...]:
    nets: list[Network] = []
    for item in value:
        try:
            nets.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise _Bad(f"{item!r} is not an IP address or CIDR block") from None
    return tuple(nets)


def _check_tenant(value: str) -> str:
    if any(c in value for c in "/?#") or any(c.isspace() for c in value):
        raise _Bad(f"must be one path segment (no '/', '?', '#' or spaces), got {value!r}")
    return value


def _check_headers(value: Mapping[str, str]) -> Mapping[str, str]:
    for name, val in value.items():
        if not _TOKEN.match(name):
            raise _Bad(f"{name!r} is not a valid header name")
        if name.lower() in _RESERVED_HEADERS:
            raise _Bad(f"header {name!r} is set by the gateway and cannot be configured")
        if any(c in val for c in "\r\n\0"):
            raise _Bad(f"the value of header {name!r} contains a line break or NUL")
    return value


_A2UI_VERSIONS = ("v0.8", "v0.9", "v0.9.1", "v0.10", "v1.0")


def _check_a2ui_versions(value: tuple[str, ...]) -> tuple[str, ...]:
    for item in value:
        if item not in _A2UI_VERSIONS:
            raise _Bad(f"{item!r} is not an A2UI version; expected some of {', '.join(_A2UI_VERSIONS)}")
    return value


def _at_least(minimum: float, *, strict: bool = False) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if value < minimum or (strict and value == minimum):
            raise _Bad(f"must be {'greater than' if strict else 'at least'} {minimum:g}, got {value!r}")
        return value

    return check


_POSITIVE = _at_least(0, strict=True)
_NON_NEGATIVE = _at_least(0)
_ONE_OR_MORE = _at_least(1)


def _check_push_keys(value: tuple[str, ...]) -> tuple[bytes, ...]:
    keys: list[bytes] = []
    for i, item in enumerate(value):
        text = item.strip().rstrip("=").replace("-", "+").replace("_", "/")  # standard or URL-safe
        try:
            key = base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
        except (binascii.Error, ValueError):
            raise _Bad(f"key {i + 1} is not base64") from None
        if len(key) != 32:
            raise _Bad(f"key {i + 1} must decode to 32 bytes, got {len(key)}; make one with: "
                       "python -c 'import os,base64; print(base64.b64encode(os.urandom(32)).decode())'")
        keys.append(key)
    return tuple(keys)


def _check_webhook_base(value: str) -> str:
    return "" if value == "" else _check_http_url(value, what="the webhook base URL").rstrip("/")


def _check_webhook_path(value: str) -> str:
    path = value.rstrip("/")
    if not re.fullmatch(r"(/[A-Za-z0-9._~-]+)+", path):
        raise _Bad(f"must be an absolute path of plain segments, e.g. /a2a-push, got {value!r}")
    return path
