"""gRPC metadata of both versions: the keys that carry the protocol version and the extensions, the
transport's own keys (never forwarded), and the rewrites toward the agent and back to the caller.
Pairs in, pairs out (keys lowercase, `-bin` values bytes); the version itself comes from the service."""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping

from gateway.core.errors import UnsupportedVersion
from gateway.core.types import Version
from gateway.core.versions import EXTENSIONS_HEADER_FOR, VERSION_HEADER, merge_extensions, parse_version

Value = str | bytes
Pairs = Iterable[tuple[str, Value]]

VERSION_KEY = VERSION_HEADER.lower()  # `a2a-version`: v1.0 clients send "1.0", the v0.3 compat ones "0.3"
# `x-a2a-extensions` (a2a-sdk 0.3 client and server; its server answers the activated ones as a
# trailer) and `a2a-extensions` (v1.0): the same comma-separated URI list
EXTENSIONS_KEYS: Mapping[Version, str] = {v: name.lower() for v, name in EXTENSIONS_HEADER_FOR.items()}
BINARY_SUFFIX = "-bin"  # values of such keys are bytes (base64 on HTTP/1 and HTTP/2 header lines alike)

# Keys each hop sets for itself: HTTP/2 and gRPC transport headers (every `grpc-` key is reserved to
# gRPC: deadline, encodings, status, retries). Authentication (`authorization`, API-key keys),
# `traceparent` and everything else an application sends travels on untouched.
HOP_BY_HOP = frozenset({
    "te", "content-type", "content-length", "user-agent", "host", "connection", "keep-alive",
    "proxy-connection", "proxy-authorization", "transfer-encoding", "upgrade",
})
_RESERVED_PREFIXES = ("grpc-", ":")
# HTTP response headers with no meaning on a gRPC call
_HTTP_ONLY = frozenset({"date", "server", "vary", "content-encoding", "cache-control", "x-accel-buffering"})
# What the gateway sets itself on a hop (the version, the extensions in the peer's spelling).
_REWRITTEN = frozenset({VERSION_KEY, *EXTENSIONS_KEYS.values()})


def is_hop_by_hop(key: str) -> bool:
    key = key.lower()
    return key in HOP_BY_HOP or key.startswith(_RESERVED_PREFIXES)


def declared_version(metadata: Pairs) -> Version | None:
    """The `a2a-version` a caller sent (None when absent); UnsupportedVersion for an unknown major.
    On gRPC the service path already names the version; this is for a strict cross-check."""
    for key, value in metadata:
        if key.lower() == VERSION_KEY and isinstance(value, str) and value.strip():
            return parse_version(value)
    return None


def check_version(service: Version, metadata: Pairs, *, strict: bool) -> Version:
    """The service decides (a2a-sdk 1.x's gRPC server does not look at `a2a-version` at all); strict
    mode rejects a declared version that contradicts it, as the HTTP doors do for method spellings."""
    declared = declared_version(metadata)
    if strict and declared is not None and declared is not service:
        raise UnsupportedVersion(f"a2a-version {declared.value} contradicts the {service.value} gRPC service")
    return service


def extensions(metadata: Pairs) -> str | None:
    """The extensions a peer named under either key, merged (first order kept, duplicates dropped)."""
    keys = set(EXTENSIONS_KEYS.values())
    return merge_extensions(*(value for key, value in metadata
                              if key.lower() in keys and isinstance(value, str)))


def toward_agent(metadata: Pairs, agent: Version) -> list[tuple[str, Value]]:
    """A caller's metadata as sent to an agent of version `agent`: the transport's keys dropped, the
    version stated explicitly (never the caller's), the extensions under the agent's key."""
    pairs = list(metadata)
    out = [(key.lower(), value) for key, value in pairs
           if not is_hop_by_hop(key) and key.lower() not in _REWRITTEN]
    out.append((VERSION_KEY, agent.value))
    wanted = extensions(pairs)
    if wanted:
        out.append((EXTENSIONS_KEYS[agent], wanted))
    return out


def toward_caller(metadata: Pairs, caller: Version) -> list[tuple[str, Value]]:
    """An agent's initial or trailing metadata as sent back to a caller of version `caller`: the
    transport's keys dropped, the activated extensions under the caller's key."""
    pairs = list(metadata)
    out = [(key.lower(), value) for key, value in pairs
           if not is_hop_by_hop(key) and key.lower() not in _REWRITTEN]
    activated = extensions(pairs)
    if activated:
        out.append((EXTENSIONS_KEYS[caller], activated))
    return out


def to_headers(metadata: Pairs) -> list[tuple[str, str]]:
    """Metadata as HTTP headers (toward a JSON-RPC or HTTP+JSON agent): binary values base64, as gRPC
    itself puts them on the wire; the transport's keys dropped."""
    out = []
    for key, value in metadata:
        if is_hop_by_hop(key):
            continue
        if isinstance(value, bytes):
            value = base64.b64encode(value).decode("ascii").rstrip("=")
        out.append((key.lower(), value))
    return out


def from_headers(headers: Pairs) -> list[tuple[str, Value]]:
    """HTTP headers as metadata (an HTTP agent's reply headers toward a gRPC caller): `-bin` keys
    decoded from base64; hop-by-hop and transport headers dropped."""
    out: list[tuple[str, Value]] = []
    for key, value in headers:
        key = key.lower()
        if is_hop_by_hop(key) or key in _HTTP_ONLY:
            continue
        text = value.decode("latin-1") if isinstance(value, bytes) else value
        if key.endswith(BINARY_SUFFIX):
            try:
                out.append((key, base64.b64decode(text + "=" * (-len(text) % 4), validate=True)))
            except ValueError:
                continue
        else:
            out.append((key, text))
    return out
