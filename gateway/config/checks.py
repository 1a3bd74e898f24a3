"""Owns what makes one value valid: the per-key checks (each takes a typed value and returns it
normalized, or raises BadValue with the reason), for host:port, URLs, headers, CIDRs, push keys, routes."""

from __future__ import annotations

import base64
import binascii
import datetime
import importlib.util
import ipaddress
import re
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

from gateway.core.agui import A2UI_VERSIONS


class BadValue(ValueError):
    """A value a check or a coercion refuses, with the reason only; load() adds the key and the source."""


def describe(value: object) -> str:
    """A raw value as a reason names it: "boolean true", "a table", "a list", "int 3"."""
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list | tuple):
        return "a list"
    return f"{type(value).__name__} {value!r}"


Network = ipaddress.IPv4Network | ipaddress.IPv6Network

_HOSTNAME = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9.\-]*[A-Za-z0-9])?$")
_PLAIN_PATH = re.compile(r"(/[A-Za-z0-9._~-]+)+")  # absolute, of plain segments
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


def split_hostport(value: str) -> tuple[str, int]:
    if value.startswith("["):
        host, sep, port = value[1:].partition("]:")
        if not sep:
            raise BadValue(f"must be HOST:PORT (IPv6 as [ADDR]:PORT), got {value!r}")
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise BadValue(f"{host!r} is not an IPv6 address") from None
    else:
        host, sep, port = value.rpartition(":")
        if not sep or not host:
            raise BadValue(f"must be HOST:PORT, e.g. 127.0.0.1:8080, got {value!r}")
        if ":" in host:
            raise BadValue(f"IPv6 addresses need brackets, e.g. [::1]:8080, got {value!r}")
        if not _HOSTNAME.match(host):
            raise BadValue(f"{host!r} is not a valid host name or address")
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise BadValue(f"port must be a number from 0 to 65535, got {port!r}")
    return host, int(port)


def check_listen(value: str) -> str:
    split_hostport(value)
    return value


def check_admin_listen(value: str) -> str:
    return value if value == "" else check_listen(value)


def check_grpc_address(value: str) -> str:
    """HOST:PORT (what a2a-sdk's cards list and its clients dial), or a `grpc://` / `grpcs://` URL."""
    if value == "" or value.startswith(("grpc://", "grpcs://")):
        return value
    return check_listen(value)


def installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def check_event_loop(value: str) -> str:
    if value == "uvloop" and not installed("uvloop"):
        raise BadValue('uvloop is not installed: install a2a-gateway[uvloop], or use "auto"')
    return value


def check_tracing(value: bool) -> bool:
    if value and not installed("opentelemetry.sdk.trace"):
        raise BadValue("OpenTelemetry is not installed: install a2a-gateway[otel]")
    return value


def check_http_url(value: str, *, what: str) -> str:
    if any(c.isspace() for c in value):
        raise BadValue(f"{what} must not contain whitespace, got {value!r}")
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError as exc:
        raise BadValue(f"{what} is not a valid URL ({exc}), got {value!r}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BadValue(f"{what} must be an absolute http:// or https:// URL, got {value!r}")
    if parts.username is not None or parts.password is not None:
        raise BadValue(f"{what} must not carry credentials; use upstream.headers, got {value!r}")
    if parts.query or parts.fragment:
        raise BadValue(f"{what} must not have a query or fragment, got {value!r}")
    return value


def check_upstream_url(value: str) -> str:
    return check_http_url(value, what="the upstream URL")


def check_redis_url(value: str) -> str:
    if urlsplit(value).scheme not in ("redis", "rediss", "unix"):
        raise ValueError(f"expected a redis://, rediss:// or unix:// URL, got {describe(value)}")
    return value


def check_public_url(value: str) -> str:
    if value == "":
        return value
    return check_http_url(value, what="the public URL").rstrip("/")


def check_jwks_url(value: str) -> str:
    return value if value == "" else check_http_url(value, what="the JWKS URL")


JWT_ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA")


def check_jwt_algorithms(value: tuple[str, ...]) -> tuple[str, ...]:
    bad = [a for a in value if a not in JWT_ALGORITHMS]
    if bad or not value:
        raise BadValue(f"must be some of {', '.join(JWT_ALGORITHMS)}, got {', '.join(bad) or 'none'}")
    return value


def check_cidrs(value: tuple[str, ...]) -> tuple[Network, ...]:
    nets: list[Network] = []
    for item in value:
        try:
            nets.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise BadValue(f"{item!r} is not an IP address or CIDR block") from None
    return tuple(nets)


def check_tenant(value: str) -> str:
    if any(c in value for c in "/?#") or any(c.isspace() for c in value):
        raise BadValue(f"must be one path segment (no '/', '?', '#' or spaces), got {value!r}")
    return value


def check_headers(value: Mapping[str, str]) -> Mapping[str, str]:
    for name, val in value.items():
        if not _TOKEN.match(name):
            raise BadValue(f"{name!r} is not a valid header name")
        if name.lower() in _RESERVED_HEADERS:
            raise BadValue(f"header {name!r} is set by the gateway and cannot be configured")
        if any(c in val for c in "\r\n\0"):
            raise BadValue(f"the value of header {name!r} contains a line break or NUL")
    return value


def check_header_name(value: str) -> str:
    if not _TOKEN.match(value):
        raise BadValue(f"{value!r} is not a valid header name")
    return value


def check_instant(value: str) -> str:
    """A moment, as a date (2026-06-30, midnight UTC), an ISO 8601 date-time with its offset (or Z), or
    `@<unix seconds>` (RFC 9745's form); normalised to `@<unix seconds>`. "" means unset."""
    text = value.strip()
    if text == "":
        return ""
    if text.startswith("@") and text[1:].isdigit():
        return f"@{int(text[1:])}"
    try:
        moment = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise BadValue(f"must be a date (2026-06-30), an ISO 8601 date-time with an offset "
                       f"(2026-06-30T12:00:00Z) or @<unix seconds>, got {value!r}") from None
    if moment.tzinfo is None:
        if "T" in text or " " in text:
            raise BadValue(f"a date-time needs its UTC offset (e.g. Z or +02:00), got {value!r}")
        moment = moment.replace(tzinfo=datetime.UTC)
    return f"@{int(moment.timestamp())}"


def check_deprecation_link(value: str) -> str:
    return "" if value == "" else check_http_url(value, what="the deprecation link")


def check_a2ui_versions(value: tuple[str, ...]) -> tuple[str, ...]:
    for i, item in enumerate(value):
        if item not in A2UI_VERSIONS:
            raise BadValue(f"{item!r} is not an A2UI version; expected some of {', '.join(A2UI_VERSIONS)}")
        if item in value[:i]:
            raise BadValue(f"{item!r} is listed twice (the list is an order of preference)")
    return value


def at_least(minimum: float, *, strict: bool = False) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if value < minimum or (strict and value == minimum):
            raise BadValue(f"must be {'greater than' if strict else 'at least'} {minimum:g}, got {value!r}")
        return value

    return check


POSITIVE = at_least(0, strict=True)
NON_NEGATIVE = at_least(0)
ONE_OR_MORE = at_least(1)


def check_push_keys(value: tuple[str, ...]) -> tuple[bytes, ...]:
    keys: list[bytes] = []
    for i, item in enumerate(value):
        text = item.strip().rstrip("=").replace("-", "+").replace("_", "/")  # standard or URL-safe
        try:
            key = base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
        except (binascii.Error, ValueError):
            raise BadValue(f"key {i + 1} is not base64") from None
        if len(key) != 32:
            raise BadValue(f"key {i + 1} must decode to 32 bytes, got {len(key)}; make one with: "
                       "python -c 'import os,base64; print(base64.b64encode(os.urandom(32)).decode())'")
        keys.append(key)
    return tuple(keys)


def check_webhook_base(value: str) -> str:
    return "" if value == "" else check_http_url(value, what="the webhook base URL").rstrip("/")


def check_webhook_path(value: str) -> str:
    path = value.rstrip("/")
    if not _PLAIN_PATH.fullmatch(path):
        raise BadValue(f"must be an absolute path of plain segments, e.g. /a2a-push, got {value!r}")
    return path


# --- [[routes]] selectors -------------------------------------------------------------------------

_ROUTE_NAME = re.compile(r"^[a-z0-9-]{1,63}$")


def check_route_name(value: str) -> str:
    if not value:
        raise BadValue("is required: 1-63 characters of a-z, 0-9 and '-'")
    if not _ROUTE_NAME.match(value):
        raise BadValue(f"must be 1-63 characters of a-z, 0-9 and '-', got {value!r}")
    return value


def check_path_prefix(value: str) -> str:
    prefix = value.rstrip("/")
    if prefix and not _PLAIN_PATH.fullmatch(prefix):
        raise BadValue(f'must be "" or an absolute path of plain segments, e.g. /agents/billing, got {value!r}')
    return prefix


def check_route_host(value: str) -> str:
    if value and not _HOSTNAME.match(value):
        raise BadValue(f"must be a host name without a port, e.g. billing.example.com, got {value!r}")
    return value.lower()
