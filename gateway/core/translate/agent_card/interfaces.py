"""The card's interfaces: v0.3 `url`/`preferredTransport`/`additionalInterfaces`/`protocolVersion` ⇄ v1.0
`supportedInterfaces`. No other card member, and no URL rewriting (core/card.py points them at the gateway)."""

from __future__ import annotations

import re

from gateway.core.dialects import DialectSpec
from gateway.core.errors import TranslationError
from gateway.core.notes import Cx
from gateway.core.translate.agent_card.readers import TEXT, child, copy_checked, members, need, union
from gateway.core.translate.shape import arr, text
from gateway.core.types import JsonObj, Version

V03_MEMBERS = ("url", "protocolVersion", "preferredTransport", "additionalInterfaces")
V10_MEMBERS = ("supportedInterfaces",)
DEFAULT_TRANSPORT = "JSONRPC"   # J03 default; S03 calls the member required
V03_CARD_VERSION = "0.3.0"      # J03 default, what the v0.3 card says
V03_INTERFACE_VERSION = "0.3"   # S10: v1.0 interfaces say Major.Minor

_V03_INTERFACE = {"url": TEXT, "transport": TEXT}
_V10_INTERFACE = {"url": TEXT, "protocolBinding": TEXT, "tenant": TEXT, "protocolVersion": TEXT}
_MAJOR_MINOR = re.compile(r"\s*(\d+)\.(\d+)")


def interfaces_in(card: JsonObj, cx: Cx, at: str, spec: DialectSpec) -> list[JsonObj]:
    """The hub `supportedInterfaces` of a card of `spec` (a union card's two versions resolved)."""
    v03_present = "url" in card
    v10_present = bool(card.get("supportedInterfaces"))
    v10 = spec.version is Version.V10

    def from_v03(c: Cx) -> list[JsonObj]:
        return _from_v03(card, c, at, spec)

    def from_v10(c: Cx) -> list[JsonObj]:
        return _from_v10(card, c, at, spec)

    v03_paths = [child(at, k) for k in V03_MEMBERS if k in card]
    v10_paths = [child(at, k) for k in V10_MEMBERS if k in card]
    v03_reader = from_v03 if v03_present else None
    v10_reader = from_v10 if v10_present else None
    if v10:
        own, other, default, own_paths, other_paths = v10_reader, v03_reader, from_v10, v10_paths, v03_paths
    else:
        own, other, default, own_paths, other_paths = v03_reader, v10_reader, from_v03, v03_paths, v10_paths
    if own is None and other is not None:
        for path in own_paths:  # the own version's remnants give way to the other version's interfaces
            cx.note("union_member_ignored", path)
    if other is None:
        for path in other_paths:  # the other version's remnants describe no interface at all
            cx.note("union_member_ignored", path)
    result: list[JsonObj] = union(cx, own, other, other_paths, default)
    return result


def _from_v03(card: JsonObj, cx: Cx, at: str, spec: DialectSpec) -> list[JsonObj]:
    need(card, ("url",), at)
    url = text(card["url"], child(at, "url"))
    version = _card_version(card, cx, at)
    path = child(at, "preferredTransport")
    transport = text(card.get("preferredTransport", ""), path)
    if not transport:  # absent, or the proto3 default spelled out
        cx.note("preferred_transport_defaulted", path)
        transport = DEFAULT_TRANSPORT
    out = [{"url": url, "protocolBinding": transport, "protocolVersion": version}]
    if "additionalInterfaces" not in card:
        return out
    path = child(at, "additionalInterfaces")
    items = arr(card["additionalInterfaces"], path)
    if not items:
        cx.note("default_value_omitted", path)
    for i, item in enumerate(items):
        item_path = f"{path}[{i}]"
        src = members(item, _V03_INTERFACE, cx, item_path, spec)
        need(src, ("url", "transport"), item_path)
        pair = (text(src["url"], child(item_path, "url")),
                text(src["transport"], child(item_path, "transport")))
        if pair == (url, transport):
            cx.note("duplicate_interface_dropped", item_path)
            continue
        out.append({"url": pair[0], "protocolBinding": pair[1], "protocolVersion": version})
    return out


def _card_version(card: JsonObj, cx: Cx, at: str) -> str:
    path = child(at, "protocolVersion")
    raw = text(card.get("protocolVersion", ""), path)
    if not raw:
        cx.note("protocol_version_defaulted", path)
        return V03_INTERFACE_VERSION
    if raw != V03_CARD_VERSION:
        cx.note("protocol_version_normalized", path)
    match = _MAJOR_MINOR.match(raw)
    return f"{match[1]}.{match[2]}" if match else raw


def _from_v10(card: JsonObj, cx: Cx, at: str, spec: DialectSpec) -> list[JsonObj]:
    path = child(at, "supportedInterfaces")
    items = arr(card.get("supportedInterfaces", []), path)
    if not items:
        raise TranslationError(path, "a card needs at least one interface")
    out = []
    for i, item in enumerate(items):
        item_path = f"{path}[{i}]"
        src = members(item, _V10_INTERFACE, cx, item_path, spec)
        need(src, ("url", "protocolBinding"), item_path)
        iface: JsonObj = {}
        copy_checked(src, iface, _V10_INTERFACE, item_path)
        out.append(iface)
    return out


def _legacy(version: str) -> tuple[bool, bool]:
    """(usable as the v0.3 card's own interface: empty or in [0.3, 1.0), a 0.x interface at all)."""
    if not version:
        return True, True
    match = _MAJOR_MINOR.match(version)
    if match is None:
        return False, False
    major, minor = int(match[1]), int(match[2])
    return major == 0 and minor >= 3, major == 0


def interfaces_out(ifaces: list[JsonObj], cx: Cx, at: str) -> JsonObj:
    """`protocolVersion`, `url`, `preferredTransport` and `additionalInterfaces` of a v0.3 card."""
    path = child(at, "supportedInterfaces")
    kinds = [_legacy(iface.get("protocolVersion", "")) for iface in ifaces]
    primary = next((i for i, (usable, _) in enumerate(kinds) if usable), None)
    if primary is None:
        cx.note("no_v03_interface", path)
        primary = 0
    kept = [i for i, (_, zero) in enumerate(kinds) if zero and i != primary]
    for i, iface in enumerate(ifaces):
        item_path = f"{path}[{i}]"
        if i != primary and i not in kept:
            cx.note("interface_dropped", item_path, iface.get("protocolVersion", ""))
            continue
        if i == primary and kept and kept[0] < primary:
            cx.note("interface_reordered", item_path)
        if iface.get("protocolVersion") != V03_INTERFACE_VERSION:
            cx.note("protocol_version_normalized", child(item_path, "protocolVersion"))
        if "tenant" in iface:
            cx.note("tenant_dropped", child(item_path, "tenant"))
    main = ifaces[primary]
    out: JsonObj = {"protocolVersion": V03_CARD_VERSION, "url": main["url"],
                    "preferredTransport": main["protocolBinding"]}
    if kept:
        out["additionalInterfaces"] = [{"url": ifaces[i]["url"], "transport": ifaces[i]["protocolBinding"]}
                                       for i in kept]
    return out
