"""Agent cards at the gateway's edges: read the upstream card (v0.3, v1.0 or a union of both) into
the v1.0 hub plus its interface list, and build the card served to a client of either version with
every interface pointing at the gateway. It never fetches; the shell does."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

from gateway.core.errors import TranslationError
from gateway.core.notes import Cx
from gateway.core.operations import Operation
from gateway.core.signing import SIGNATURES
from gateway.core.translate import translate
from gateway.core.translate.shape import obj
from gateway.core.types import Binding, Dialect, JsonObj, Version
from gateway.core.versions import parse_version

CARD_PATHS = ("/.well-known/agent-card.json", "/.well-known/agent.json")
_BINDINGS = {b.value: b for b in Binding}
_V03_ONLY_MEMBERS = ("url", "preferredTransport", "additionalInterfaces", "protocolVersion",
                     "supportsAuthenticatedExtendedCard", "security")


@dataclass(frozen=True, slots=True)
class Interface:
    """One way to reach the upstream agent: its protocol version, binding, URL and tenant."""

    version: Version
    binding: Binding
    url: str
    tenant: str = ""

    def at(self, path: str) -> str:
        """The URL of a request to this (HTTP) interface: its base URL, and the operation's path under it."""
        return self.url if not path else self.url.rstrip("/") + path


@dataclass(frozen=True, slots=True)
class UpstreamCard:
    card: JsonObj                        # the card in the v1.0 dialect
    interfaces: tuple[Interface, ...]    # every interface the gateway can use, in the card's order

    def pick(self, version: Version, binding: Binding = Binding.JSONRPC) -> Interface | None:
        return next((i for i in self.interfaces if i.version is version and i.binding is binding), None)

    def candidates(self, client: Version, binding: Binding, op: Operation | None = None) -> list[Interface]:
        """The agent's interfaces in the order a call of `client` over `binding` should try them:
        same version and binding (a pass-through), same version on another binding, then the other
        version, JSON-RPC first: when translating anyway, the binding every v0.3 SDK implements
        completely. gRPC is taken for another binding's caller only when nothing else is left (a
        gRPC-only agent). Interfaces known to lack `op` (its row's `v03_rest_gap`) come last."""
        gaps = op is not None and op.v03_rest_gap

        def rank(i: Interface) -> tuple[bool, bool, bool, bool]:
            gap = gaps and i.version is Version.V03 and i.binding is Binding.REST
            same = i.version is client
            grpc_last = i.binding is Binding.GRPC and binding is not Binding.GRPC
            return gap, grpc_last, not same, i.binding is not (binding if same else Binding.JSONRPC)
        return sorted(self.interfaces, key=rank)

    def choose(self, client: Version, binding: Binding = Binding.JSONRPC) -> Interface:
        found = self.candidates(client, binding)
        if not found:
            raise TranslationError("$.supportedInterfaces", "the agent offers no interface the gateway speaks")
        return found[0]


def _version_of(raw: Any) -> Version | None:
    try:
        return parse_version(raw if type(raw) is str else None)
    except Exception:  # an unknown version: not an interface we can speak
        return None


def _v10_interfaces(card: JsonObj) -> list[Interface]:
    out = []
    for item in card.get("supportedInterfaces", []):
        binding = _BINDINGS.get(item.get("protocolBinding", ""))
        version = _version_of(item.get("protocolVersion") or "1.0")
        if binding and version and type(item.get("url")) is str:
            out.append(Interface(version, binding, item["url"], item.get("tenant", "")))
    return out


def _v03_interfaces(card: JsonObj) -> list[Interface]:
    out = []
    if type(card.get("url")) is str:
        binding = _BINDINGS.get(card.get("preferredTransport") or "JSONRPC")
        if binding:
            out.append(Interface(Version.V03, binding, card["url"]))
    for item in card.get("additionalInterfaces") or []:
        binding = _BINDINGS.get(item.get("transport", "")) if type(item) is dict else None
        if binding and type(item.get("url")) is str:
            iface = Interface(Version.V03, binding, item["url"])
            if iface not in out:
                out.append(iface)
    return out


def read_upstream_card(raw: Any, cx: Cx) -> UpstreamCard:
    """The upstream's card in v1.0 form with all its interfaces, whatever dialect it was served in.
    A union card contributes the interfaces of both vocabularies (v1.0 ones first)."""
    raw = obj(raw, "$")
    if "supportedInterfaces" in raw:
        interfaces = _v10_interfaces(raw) + [i for i in _v03_interfaces(raw)
                                             if not any(i.url == j.url for j in _v10_interfaces(raw))]
        v10 = {k: v for k, v in raw.items() if k not in _V03_ONLY_MEMBERS}
        card = translate("agent_card", v10, src=Dialect.V10, dst=Dialect.V10, cx=cx)
    else:
        interfaces = _v03_interfaces(raw)
        card = translate("agent_card", raw, src=Dialect.V03RPC, dst=Dialect.V10, cx=cx)
    return UpstreamCard(card, tuple(interfaces))


def gateway_interfaces(base_url: str, bindings: tuple[Binding, ...], grpc_target: str = "") -> list[JsonObj]:
    """The interfaces the gateway serves: every binding, v1.0 first, then v0.3, all at `base_url`; gRPC
    (when the listener is on) at `grpc_target`, the `host:port` both SDK lines dial."""
    base = base_url.rstrip("/")
    urls = {Binding.JSONRPC: base + "/", Binding.REST: base, Binding.GRPC: grpc_target}
    return [{"url": urls[b], "protocolBinding": b.value, "protocolVersion": v}
            for v in ("1.0", "0.3") for b in bindings if urls[b]]


def served_card(upstream: UpstreamCard, *, client: Version, base_url: str,
                bindings: tuple[Binding, ...], cx: Cx, grpc_target: str = "") -> JsonObj:
    """The card a client of `client` version gets from the gateway (`Vary: A2A-Version`), unsigned: the
    agent's signatures were made over the card before the gateway rewrote it, so none holds (noted)."""
    interfaces = gateway_interfaces(base_url, bindings, grpc_target)
    if SIGNATURES in upstream.card:
        cx.note("card_signature_dropped", "$." + SIGNATURES, "made over the agent's card, not the one served")
    card = {k: v for k, v in upstream.card.items() if k != SIGNATURES} | {"supportedInterfaces": interfaces}
    if client is Version.V10:
        return card
    v03_only = [i for i in interfaces if i["protocolVersion"] == "0.3"]
    v03: JsonObj = translate("agent_card", {**card, "supportedInterfaces": v03_only}, src=Dialect.V10,
                    dst=Dialect.V03RPC, cx=cx)
    v03 = dict(v03)
    v03["protocolVersion"] = "0.3.0"
    # a superset: v1.0 tools that send no A2A-Version header still find `supportedInterfaces`
    v03["supportedInterfaces"] = interfaces
    return v03


def card_etag(body: bytes) -> str:
    """The strong ETag of one served card variant: a digest of its bytes (the same bytes, the same tag)."""
    return '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def not_modified(etag: str, last_modified: float, if_none_match: str | None, if_modified_since: str | None) -> bool:
    """Whether a conditional GET is answered 304 (RFC 9110 §13.1.2, §13.1.3): If-None-Match decides when it is
    present (a weak comparison, `*` matching any); else If-Modified-Since, when the card is not newer."""
    if if_none_match is not None:
        tags = [t.strip() for t in if_none_match.split(",")]
        return "*" in tags or any(t.removeprefix("W/") == etag for t in tags)
    if not if_modified_since:
        return False
    try:
        since = parsedate_to_datetime(if_modified_since)
    except (TypeError, ValueError):
        return False
    if since.tzinfo is None:
        return False
    return int(last_modified) <= since.timestamp()
