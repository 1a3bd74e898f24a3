"""Header rules at the proxy's two edges: hop-by-hop stripping, the headers the gateway owns
(version, extensions, length, encoding), and the X-A2A-Extensions ⇄ A2A-Extensions mirror."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, MutableMapping
from typing import Any

from multidict import CIMultiDict, CIMultiDictProxy

from gateway.core.types import Version
from gateway.core.versions import EXTENSIONS_HEADER_FOR, merge_extensions, upstream_version_headers

AnyHeaders = CIMultiDictProxy[str] | CIMultiDict[str]
RawHeaders = tuple[tuple[bytes, bytes], ...]   # a request's headers as its parser read them (request.raw_headers)

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


def upstream_request_headers(client: AnyHeaders | RawHeaders, upstream: Version, *, peer: str | None,
                             extra: Mapping[str, str], content_type: str) -> RequestHeaders:
    """Headers for the agent: the client's end-to-end headers (authorization untouched), the configured
    extras over them, the target version stated explicitly, extensions under the agent's spelling, no
    compression, the peer added to X-Forwarded-For. The client's headers as its parser read them
    (`RawHeaders`) are taken apart in one pass and kept as the lines they came as; decoded ones (or raw
    ones whose Connection header names more headers to drop) by the general rule."""
    raw = _raw_end_to_end(client, forwarded_for=not peer) if type(client) is tuple else None
    if raw is None:
        decoded = _decoded(client) if type(client) is tuple else client
        assert not isinstance(decoded, tuple)
        kept = _end_to_end(decoded)
        if peer:   # the gateway writes its own
            kept.popall("X-Forwarded-For", None)
        lines = [_line(name, value) for name, value in kept.items()]
        read = {role: value for role, name in _READ.items() if (value := decoded.get(name)) is not None}
    else:
        lines, read = raw
    block = [_line("Content-Type", content_type), _IDENTITY, *_VERSION_LINES[upstream]]
    ext = merge_extensions(read.get(_X_EXTENSIONS), read.get(_EXTENSIONS))
    if ext:
        block.append(_line(EXTENSIONS_HEADER_FOR[upstream], ext))
    if peer:
        prior = read.get(_FORWARDED_FOR)
        block.append(_line("X-Forwarded-For", f"{prior}, {peer}" if prior else peer))
    out = RequestHeaders(lines, block)
    if extra:   # the configured ones: over the client's, under the gateway's own
        written = {line.partition(b":")[0].decode().lower() for line in block}
        for name, value in extra.items():
            if name.lower() not in written:
                out[name] = value
    return out


def _line(name: str, value: str) -> bytes:
    return f"{name}: {value}\r\n".encode("utf-8", "surrogateescape")


_IDENTITY = _line("Accept-Encoding", "identity")   # no compression: the gateway reads what it relays
# the version header toward each version's agents, as lines
_VERSION_LINES = {version: [_line(name, value) for name, value in upstream_version_headers(version).items()]
                  for version in Version}


class RequestHeaders(MutableMapping[str, str]):
    """A request's headers for the agent in three parts, each name in one of them: `lines`, the client's
    end-to-end headers as the wire lines they came in ("Name: value\r\n", in their order, a name there as
    often as the client sent it); `block`, the gateway's own (type, encoding, version, extensions,
    X-Forwarded-For) written once as lines; `own`, any set afterwards (a name set here leaves the other two).
    The stream link writes the lines and the block as they are: no second pass over the client's headers,
    no decoding and encoding them again."""

    __slots__ = ("block", "lines", "own")

    def __init__(self, lines: list[bytes], block: list[bytes]) -> None:
        self.lines, self.block = lines, block
        self.own: CIMultiDict[str] = CIMultiDict()

    def pairs(self) -> list[tuple[str, str]]:
        """Every header, in the order they are sent, as many times as each is."""
        written = (line.decode("utf-8", "surrogateescape").partition(":") for line in [*self.lines, *self.block])
        return [*((name, value.strip()) for name, _, value in written), *self.own.items()]

    def __getitem__(self, name: str) -> str:
        lower = name.lower()
        for pair, value in self.pairs():
            if pair.lower() == lower:
                return value   # the first, as a CIMultiDict's
        raise KeyError(name)

    def __setitem__(self, name: str, value: str) -> None:
        self._forget(name)
        self.own[name] = value

    def __delitem__(self, name: str) -> None:
        if name not in self:
            raise KeyError(name)
        self._forget(name)
        self.own.pop(name, None)

    def _forget(self, name: str) -> None:
        """`name` out of the lines and the block."""
        prefix = name.lower().encode("utf-8", "surrogateescape") + b":"
        self.lines = [line for line in self.lines if not line.lower().startswith(prefix)]
        self.block = [line for line in self.block if not line.lower().startswith(prefix)]

    def __iter__(self) -> Iterator[str]:
        seen: set[str] = set()
        for name, _ in self.pairs():
            if name.lower() not in seen:
                seen.add(name.lower())
                yield name

    def __len__(self) -> int:
        return sum(1 for _ in self)


# What the one pass over a message's headers does with each name, by the name as peers spell it (the few
# spellings there are, each decided once; raw or decoded): copy it, drop it, give up (Connection names more
# headers to drop), or read its value (the first X-Forwarded-For, copied only where the gateway adds none,
# and either extensions spelling)
_COPY, _DROP, _CONNECTION, _FORWARDED_FOR, _X_EXTENSIONS, _EXTENSIONS = range(6)
_ROLE_OF = {"connection": _CONNECTION, "x-forwarded-for": _FORWARDED_FOR, "x-a2a-extensions": _X_EXTENSIONS,
            "a2a-extensions": _EXTENSIONS}
_READ = {_X_EXTENSIONS: "X-A2A-Extensions", _EXTENSIONS: "A2A-Extensions", _FORWARDED_FOR: "X-Forwarded-For"}
_ROLES: dict[bytes, int] = {}          # by raw name
_NAMED_ROLES: dict[str, int] = {}      # by decoded name
_SPELLINGS = 512   # spellings remembered at most, in each


def _role(name: bytes | str, roles: dict[Any, int]) -> int:
    """The role of a spelling not seen yet, remembered in `roles` (the raw or the decoded names')."""
    lower = (name.decode("utf-8", "surrogateescape") if type(name) is bytes else str(name)).lower()
    role = _ROLE_OF.get(lower, _DROP if lower in _NOT_COPIED else _COPY)
    if len(roles) < _SPELLINGS:
        roles[name] = role
    return role


def _raw_end_to_end(raw: RawHeaders, *, forwarded_for: bool) -> tuple[list[bytes], dict[int, str]] | None:
    """The end-to-end lines of `raw` (its X-Forwarded-For lines too when `forwarded_for`, after the others:
    the gateway sets its own otherwise) and the first value of each name read (by role; decoded as aiohttp
    decodes them); None when it holds a Connection header."""
    lines: list[bytes] = []
    read: dict[int, str] = {}
    forwarded: list[bytes] = []
    roles = _ROLES
    for name, value in raw:
        role = roles.get(name)
        if role is None:
            role = _role(name, roles)
        if role == _COPY:
            lines.append(b"%s: %s\r\n" % (name, value))
        elif role == _CONNECTION:
            return None
        elif role != _DROP:
            if role == _FORWARDED_FOR:
                forwarded.append(b"%s: %s\r\n" % (name, value))
            if role not in read:
                read[role] = value.decode("utf-8", "surrogateescape")
    if forwarded and forwarded_for:
        lines += forwarded
    return lines, read


def _decoded(raw: RawHeaders) -> CIMultiDict[str]:
    return CIMultiDict((name.decode("utf-8", "surrogateescape"), value.decode("utf-8", "surrogateescape"))
                       for name, value in raw)


def client_response_headers(upstream: AnyHeaders, client: Version) -> CIMultiDict[str]:
    """Headers for the client: the agent's end-to-end headers and its activated extensions under the
    client's spelling; length, type and encoding are the gateway's own. One pass over the agent's headers
    (the general rule when a Connection header names more to drop)."""
    kept: list[tuple[str, str]] = []
    read: dict[int, str] = {}
    roles = _NAMED_ROLES
    for name, value in upstream.items():
        role = roles.get(name)
        if role is None:
            role = _role(name, roles)
        if role in (_COPY, _FORWARDED_FOR):
            kept.append((name, value))
        elif role == _CONNECTION:
            out, x_extensions, extensions = _end_to_end(upstream), upstream.get("X-A2A-Extensions"), \
                upstream.get("A2A-Extensions")
            break
        elif role != _DROP and role not in read:
            read[role] = value
    else:
        out, x_extensions, extensions = CIMultiDict(kept), read.get(_X_EXTENSIONS), read.get(_EXTENSIONS)
    ext = merge_extensions(x_extensions, extensions)
    if ext:
        out[EXTENSIONS_HEADER_FOR[client]] = ext
    return out
