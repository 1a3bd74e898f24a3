"""Version negotiation: `A2A-Version` detection, the method-spelling cross-check,
passthrough and extension headers. It reads header values and method names only, never a body."""

from __future__ import annotations

import re
from typing import Literal

from gateway.core.errors import UnknownOperation, UnsupportedVersion
from gateway.core.operations import by_method
from gateway.core.types import Binding, Version

VERSION_HEADER = "A2A-Version"
VERSION_QUERY_PARAM = "A2A-Version"  # S10 §3.6.1
EXTENSIONS_HEADER = "A2A-Extensions"  # v1.0
LEGACY_EXTENSIONS_HEADER = "X-A2A-Extensions"  # v0.3
VARY_HEADER = "Vary"

# The extension header each version speaks: v0.3 SDKs read and write X-A2A-Extensions, v1.0 A2A-Extensions
EXTENSIONS_HEADER_FOR: dict[Version, str] = {
    Version.V03: LEGACY_EXTENSIONS_HEADER,
    Version.V10: EXTENSIONS_HEADER,
}

VersionMode = Literal["lenient", "strict"]

# Major-only comparison, as a2a-python's `validate_version` does: 0.2/0.9 read as 0.3, 1.7 as 1.0
_BY_MAJOR: dict[int, Version] = {0: Version.V03, 1: Version.V10}
_VERSION_RE = re.compile(r"(\d{1,9})(?:\.\d{1,9}){0,2}", re.ASCII)
SUPPORTED = ", ".join(v.value for v in Version)


_SPELLED = {v.value: v for v in Version}   # what clients send ("0.3", "1.0"), read without the pattern


def parse_version(raw: str | None) -> Version:
    """`Major.Minor[.patch]` → Version; None, empty or blank means 0.3 (S10 §3.6.2)."""
    known = _SPELLED.get(raw) if raw is not None else None
    if known is not None:
        return known
    text = (raw or "").strip()
    if not text:
        return Version.V03
    match = _VERSION_RE.fullmatch(text)
    version = _BY_MAJOR.get(int(match.group(1))) if match else None
    if version is None:
        raise UnsupportedVersion(
            f"A2A protocol version {text[:40]!r} is not supported; supported versions: {SUPPORTED}")
    return version


def version_declared(header: str | None, query: str | None) -> bool:
    """Whether the client stated a version at all (header or query parameter, non-blank)."""
    return bool((header or "").strip() or (query or "").strip())


def client_version(header: str | None, query: str | None) -> Version:
    """The client's declared version: a non-blank header wins, then the query parameter, else 0.3."""
    return parse_version(header if (header or "").strip() else query)


def method_version(method: str) -> Version:
    """The version a JSON-RPC method's spelling belongs to. Unknown names follow the a2a-js rule
    (PascalCase without `/` is v1.0, anything else v0.3) so a -32601 is answered in kind."""
    try:
        return by_method(method)[1]
    except UnknownOperation:
        pass
    looks_v10 = method[:1].isupper() and "/" not in method
    return Version.V10 if looks_v10 else Version.V03


def check_method_version(method_version: Version, declared: Version, declared_explicitly: bool,
                         mode: VersionMode) -> Version:
    """The method spelling decides the dialect of the params (it cannot lie about their shape, a header
    can). Lenient mode follows it; strict mode
    rejects a declared version (absent counts as 0.3) that contradicts it with -32009."""
    if mode == "strict" and declared is not method_version:
        said = (f"A2A-Version {declared.value}" if declared_explicitly
                else "no A2A-Version (read as 0.3)")
        raise UnsupportedVersion(
            f"{said} contradicts a version {method_version.value} method; supported versions: {SUPPORTED}")
    return method_version


def is_passthrough(client: Version, upstream: Version, client_binding: Binding,
                   upstream_binding: Binding) -> bool:
    """Equal versions and bindings: relay bytes untouched (design decision 2)."""
    return client is upstream and client_binding is upstream_binding


def upstream_version_headers(upstream: Version) -> dict[str, str]:
    """The version header toward an agent, never the caller's copied: `A2A-Version: 1.0` for a v1.0 agent
    (a2a-python 1.x refuses a v1.0 method without it, -32009); none for a v0.3 agent, which no v0.3
    client sends it to (an absent header means 0.3, also to a server that speaks both versions)."""
    return {VERSION_HEADER: upstream.value} if upstream is Version.V10 else {}


def merge_extensions(*values: str | None) -> str | None:
    """Merge extension header values: comma-split, strip, drop empties, dedupe keeping first order."""
    if not any(values):   # the common case: no extensions on either spelling
        return None
    seen: dict[str, None] = {}
    for value in values:
        for item in (value or "").split(","):
            uri = item.strip()
            if uri:
                seen.setdefault(uri, None)
    return ",".join(seen) if seen else None
