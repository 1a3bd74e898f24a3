"""Header rules at the proxy's two edges: hop-by-hop stripping, the headers the gateway owns
(version, extensions, length, encoding), and the X-A2A-Extensions ⇄ A2A-Extensions mirror."""

from __future__ import annotations

from collections.abc import Mapping

from multidict import CIMultiDict, CIMultiDictProxy

from gateway.core.types import Version
from gateway.core.versions import EXTENSIONS_HEADER_FOR, merge_extensions, upstream_version_headers

AnyHeaders = CIMultiDictProxy[str] | CIMultiDict[str]

HOP_BY_HOP = frozenset({
    "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "proxy-connection", "te",
    "trailer", "trailers", "transfer-encoding", "upgrade",
})
# headers the gateway sets itself on each side, never copied across
OWNED = frozenset({"host", "content-length", "content-type", "content-encoding", "accept-encoding",
                   "a2a-version", "a2a-extensions", "x-a2a-extensions"})
_NOT_COPIED = HOP_BY_HOP | OWNED


def _end_to_end(headers: AnyHeaders) -> CIMultiDict[str]:
    connection = headers.getall("Connection", ())
    dropped = _NOT_COPIED.union(h.strip().lower() for v in connection for h in v.split(",")) if connection \
        else _NOT_COPIED
    return CIMultiDict([(k, v) for k, v in headers.items() if k.lower() not in dropped])


def upstream_request_headers(client: AnyHeaders, upstream: Version, *, peer: str | None,
                             extra: Mapping[str, str], content_type: str) -> CIMultiDict[str]:
    """Headers for the agent: the client's end-to-end headers (authorization untouched), the target
    version stated explicitly, extensions under the agent's spelling, no compression."""
    out = _end_to_end(client)
    out.update(extra)
    out["Content-Type"] = content_type
    out["Accept-Encoding"] = "identity"
    out.update(upstream_version_headers(upstream))
    ext = merge_extensions(client.get("X-A2A-Extensions"), client.get("A2A-Extensions"))
    if ext:
        out[EXTENSIONS_HEADER_FOR[upstream]] = ext
    if peer:
        prior = client.get("X-Forwarded-For")
        out["X-Forwarded-For"] = f"{prior}, {peer}" if prior else peer
    return out


def client_response_headers(upstream: AnyHeaders, client: Version) -> CIMultiDict[str]:
    """Headers for the client: the agent's end-to-end headers and its activated extensions under the
    client's spelling; length, type and encoding are the gateway's own."""
    out = _end_to_end(upstream)
    ext = merge_extensions(upstream.get("X-A2A-Extensions"), upstream.get("A2A-Extensions"))
    if ext:
        out[EXTENSIONS_HEADER_FOR[client]] = ext
    return out
