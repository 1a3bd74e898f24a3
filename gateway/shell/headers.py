"""Header rules at the proxy's two edges: hop-by-hop stripping, the headers the gateway owns
(version, extensions, length, encoding), and the X-A2A-Extensions ⇄ A2A-Extensions mirror."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, MutableMapping
from typing import overload

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
# the version header toward each version's agents, as the lines RequestHeaders' block holds
_VERSION_LINES = {version: "".join(f"{name}: {value}\r\n" for name, value in upstream_version_headers(version).items())
                  for version in Version}


def _end_to_end(headers: AnyHeaders) -> CIMultiDict[str]:
    connection = headers.getall("Connection", ())
    dropped = _NOT_COPIED.union(h.strip().lower() for v in connection for h in v.split(",")) if connection \
        else _NOT_COPIED
    return CIMultiDict([(k, v) for k, v in headers.items() if k.lower() not in dropped])


@overload
def upstream_request_headers(client: AnyHeaders, upstream: Version, *, peer: str | None,
                             extra: Mapping[str, str], content_type: str) -> CIMultiDict[str]: ...


@overload
def upstream_request_headers(client: RawHeaders | AnyHeaders, upstream: Version, *, peer: str | None,
                             extra: Mapping[str, str], content_type: str) -> CIMultiDict[str] | RequestHeaders: ...


def upstream_request_headers(client: AnyHeaders | RawHeaders, upstream: Version, *, peer: str | None,
                             extra: Mapping[str, str], content_type: str) -> CIMultiDict[str] | RequestHeaders:
    """Headers for the agent: the client's end-to-end headers (authorization untouched), the target
    version stated explicitly, extensions under the agent's spelling, no compression. The client's headers
    as its parser read them (`RawHeaders`) come out as RequestHeaders, in one pass (the general rule when
    a Connection header names more headers to drop)."""
    if type(client) is tuple:
        raw = _raw_end_to_end(client, forwarded_for=not peer)
        if raw is not None:
            return _raw_request_headers(*raw, upstream, peer=peer, extra=extra, content_type=content_type)
        client = _decoded(client)
    assert not isinstance(client, tuple)
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


def _raw_request_headers(lines: list[bytes], read: dict[int, str], upstream: Version, *, peer: str | None,
                         extra: Mapping[str, str], content_type: str) -> RequestHeaders:
    """upstream_request_headers' rule for the client's raw lines: the gateway's own headers as one block."""
    ext = merge_extensions(read.get(_X_EXTENSIONS), read.get(_EXTENSIONS))
    prior = read.get(_FORWARDED_FOR)
    block = "".join([f"Content-Type: {content_type}\r\nAccept-Encoding: identity\r\n",
                     _VERSION_LINES[upstream],
                     f"{EXTENSIONS_HEADER_FOR[upstream]}: {ext}\r\n" if ext else "",
                     (f"X-Forwarded-For: {prior}, {peer}\r\n" if prior else f"X-Forwarded-For: {peer}\r\n") if peer
                     else ""])
    out = RequestHeaders(lines, block.encode("utf-8", "surrogateescape"))
    if extra:   # the configured ones: over the client's and the gateway's own
        out.update(extra)
    return out


class RequestHeaders(MutableMapping[str, str]):
    """A request's headers for the agent in three parts: `lines`, the client's end-to-end headers as the wire
    lines they came in ("Name: value\r\n", in their order, a name there as often as the client sent it);
    `block`, the gateway's own (type, encoding, version, extensions, X-Forwarded-For) written once as lines;
    `own`, any set afterwards (a name set here leaves the other two). The stream link writes the lines and
    the block as they are: no second pass over the client's headers, no decoding and encoding them again."""

    __slots__ = ("block", "lines", "own")

    def __init__(self, lines: list[bytes], block: bytes) -> None:
        self.lines, self.block = lines, block
        self.own: CIMultiDict[str] = CIMultiDict()

    def pairs(self) -> list[tuple[str, str]]:
        """Every header, in the order they are sent, as many times as each is."""
        written = (line.decode("utf-8", "surrogateescape").partition(":")
                   for line in [*self.lines, *self.block.splitlines(keepends=True)])
        return [*((name, value.strip()) for name, _, value in written), *self.own.items()]

    def __getitem__(self, name: str) -> str:
        lower = name.lower()   # (a name is in one part only: setting it elsewhere took it out)
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
        prefix = name.lower().encode("utf-8", "surrogateescape") + b":"
        if self.lines and name.lower() not in _NOT_COPIED:   # (those never are among the client's lines)
            self.lines = [line for line in self.lines if not line.lower().startswith(prefix)]
        if prefix in self.block.lower():
            self.block = b"".join(line for line in self.block.splitlines(keepends=True)
                                  if not line.lower().startswith(prefix))

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
_ROLES: dict[bytes, int] = {}          # by raw name
_NAMED_ROLES: dict[str, int] = {}      # by decoded name
_SPELLINGS = 512   # spellings remembered at most, in each


def _role_of(lower: str) -> int:
    return _ROLE_OF.get(lower, _DROP if lower in _NOT_COPIED else _COPY)


def _role(name: bytes) -> int:
    role = _role_of(name.decode("utf-8", "surrogateescape").lower())
    if len(_ROLES) < _SPELLINGS:
        _ROLES[name] = role
    return role


def _named_role(name: str) -> int:
    role = _role_of(name.lower())
    if len(_NAMED_ROLES) < _SPELLINGS:
        _NAMED_ROLES[name] = role
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
            role = _role(name)
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
            role = _named_role(name)
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
