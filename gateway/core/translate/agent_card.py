"""Owns AgentCard in all four directions through the v1.0 hub (wire-mapping §4.7–4.9, §1.4, §8 rows 15-19).
Translates faithfully: must not rewrite URLs, build the served superset card or fetch (core/card.py does)."""

from __future__ import annotations

from typing import Any

from gateway.core.notes import Cx
from gateway.core.translate.agent_card_interfaces import interfaces_in, interfaces_out
from gateway.core.translate.agent_card_parts import (
    capabilities_in,
    capabilities_out,
    provider_in,
    provider_out,
    requirements_slot,
    skill_in,
    skill_out,
)
from gateway.core.translate.agent_card_shape import (
    STRINGS,
    TEXT,
    child,
    copy_checked,
    fill,
    members,
    need,
    objects,
)
from gateway.core.translate.registry import register
from gateway.core.translate.security import schemes_in
from gateway.core.translate.security_split import ReqLists, schemes_to_v03, split_schemes
from gateway.core.translate.shape import arr
from gateway.core.types import Dialect, JsonObj

_V03_ONLY = ("protocolVersion", "url", "preferredTransport", "additionalInterfaces", "security",
             "supportsAuthenticatedExtendedCard")
_V10_ONLY = ("supportedInterfaces", "securityRequirements")
_SHARED = ("name", "description", "provider", "version", "documentationUrl", "capabilities",
           "securitySchemes", "defaultInputModes", "defaultOutputModes", "skills", "signatures", "iconUrl")
_KNOWN = frozenset(_V03_ONLY + _V10_ONLY + _SHARED)   # union cards carry both vocabularies

_HEAD = {"name": TEXT, "description": TEXT}
_MIDDLE = {"version": TEXT, "documentationUrl": TEXT}
_MODES = {"defaultInputModes": STRINGS, "defaultOutputModes": STRINGS}
_ICON = {"iconUrl": TEXT}
_V03_REQUIRED = ("name", "description", "version", "capabilities", "defaultInputModes", "defaultOutputModes",
                 "skills")  # J03, besides `url` (interfaces) and `protocolVersion` (has a default)
_V03_DEFAULTS = {"description": str, "version": str, "capabilities": dict, "defaultInputModes": list,
                 "defaultOutputModes": list, "skills": list}
_V10_ORDER = ("name", "description", "supportedInterfaces", "provider", "version", "documentationUrl",
              "capabilities", "securitySchemes", "securityRequirements", "defaultInputModes",
              "defaultOutputModes", "skills", "iconUrl")
_V03_ORDER = ("protocolVersion", "name", "description", "url", "preferredTransport", "additionalInterfaces",
              "provider", "version", "documentationUrl", "capabilities", "securitySchemes", "security",
              "defaultInputModes", "defaultOutputModes", "skills", "supportsAuthenticatedExtendedCard",
              "iconUrl")


def read_card(value: Any, cx: Cx, at: str, *, v10: bool, proto: bool) -> JsonObj:
    """A card of any dialect as the hub (v1.0) card. `v10`: the input is a v1.0 card, so its v1.0
    members win over union duplicates; `proto`: the input is ProtoJSON (v1.0 or v0.3 REST)."""
    src = members(value, _KNOWN, cx, at, proto=proto)
    strict = not v10 and not proto   # the v0.3 JSON-RPC card has J03's required members
    need(src, _V03_REQUIRED if strict else ("name",), at)
    out: JsonObj = {}
    copy_checked(src, out, _HEAD, at)
    out["supportedInterfaces"] = interfaces_in(src, cx, at, v10=v10, proto=proto)
    if "provider" in src:
        out["provider"] = provider_in(src["provider"], cx, child(at, "provider"), strict=strict, proto=proto)
    copy_checked(src, out, _MIDDLE, at)
    caps = capabilities_in(src, cx, at, v10=v10, proto=proto, strict=strict)
    if caps is not None:
        out["capabilities"] = caps
    _read_security(src, out, cx, at, v10=v10, proto=proto, strict=strict)
    copy_checked(src, out, _MODES, at)
    if "signatures" in src:
        objects(src["signatures"], child(at, "signatures"))
        cx.note("card_signature_dropped", child(at, "signatures"))
    copy_checked(src, out, _ICON, at)
    return {key: out[key] for key in _V10_ORDER if key in out}


def _read_security(src: JsonObj, out: JsonObj, cx: Cx, at: str, *, v10: bool, proto: bool,
                   strict: bool) -> None:
    """Schemes, card and skill requirements, then the OAuth split over all of them at once."""
    schemes_path = child(at, "securitySchemes")
    schemes = schemes_in(src["securitySchemes"], cx, schemes_path, v10=v10, proto=proto) \
        if "securitySchemes" in src else None
    slots: list[JsonObj] = []
    lists: ReqLists = []
    card_reqs = requirements_slot(src, cx, at, v10=v10, proto=proto)
    if card_reqs is not None:
        slots.append(out)
        lists.append(card_reqs)
    if "skills" in src:
        skills_path = child(at, "skills")
        out["skills"] = []
        for i, item in enumerate(arr(src["skills"], skills_path)):
            skill, skill_src = skill_in(item, cx, f"{skills_path}[{i}]", strict=strict, proto=proto)
            reqs = requirements_slot(skill_src, cx, f"{skills_path}[{i}]", v10=v10, proto=proto)
            if reqs is not None:
                slots.append(skill)
                lists.append(reqs)
            out["skills"].append(skill)
    split, expanded = split_schemes(schemes or {}, lists, cx, schemes_path)
    if schemes is not None:
        out["securitySchemes"] = split
    for slot, reqs_list in zip(slots, expanded, strict=True):
        slot["securityRequirements"] = reqs_list


def write_v03(hub: JsonObj, cx: Cx, at: str, *, rpc: bool) -> JsonObj:
    """The hub card as a v0.3 card: JSON-RPC shapes (`rpc`) or ProtoJSON of the v0.3 proto."""
    out: JsonObj = interfaces_out(hub["supportedInterfaces"], cx, at)
    copy_checked(hub, out, _HEAD, at)
    if "provider" in hub:
        out["provider"] = provider_out(hub["provider"], cx, child(at, "provider"), rpc=rpc)
    copy_checked(hub, out, _MIDDLE, at)
    caps, extended = capabilities_out(hub.get("capabilities"), cx, at, rpc=rpc)
    if caps is not None:
        out["capabilities"] = caps
    slots: list[JsonObj] = []
    lists: ReqLists = []
    if "securityRequirements" in hub:
        slots.append(out)
        lists.append((child(at, "securityRequirements"), hub["securityRequirements"]))
    if "skills" in hub:
        out["skills"] = []
        for i, skill in enumerate(hub["skills"]):
            skill_path = f"{child(at, 'skills')}[{i}]"
            converted = skill_out(skill, cx, skill_path, rpc=rpc)
            if "securityRequirements" in skill:
                slots.append(converted)
                lists.append((child(skill_path, "securityRequirements"), skill["securityRequirements"]))
            out["skills"].append(converted)
    schemes, converted_lists = schemes_to_v03(hub.get("securitySchemes", {}), lists, cx,
                                              child(at, "securitySchemes"), rpc=rpc)
    if "securitySchemes" in hub:
        out["securitySchemes"] = schemes
    for slot, reqs in zip(slots, converted_lists, strict=True):
        slot["security"] = reqs
    copy_checked(hub, out, _MODES, at)
    if extended:
        out["supportsAuthenticatedExtendedCard"] = True
    copy_checked(hub, out, _ICON, at)
    if rpc:
        fill(out, _V03_DEFAULTS, cx, at)
    return {key: out[key] for key in _V03_ORDER if key in out}


def _v03rpc_to_v10(value: Any, cx: Cx, at: str) -> JsonObj:
    return read_card(value, cx, at, v10=False, proto=False)


def _v03rest_to_v10(value: Any, cx: Cx, at: str) -> JsonObj:
    # real v0.3 REST servers (a2a-python) answer GET /v1/card with the JSON-RPC-shaped card: the readers
    # detect each scheme's and requirement's form, so both shapes are accepted
    return read_card(value, cx, at, v10=False, proto=True)


def _v10_to_v03rpc(value: Any, cx: Cx, at: str) -> JsonObj:
    return write_v03(read_card(value, cx, at, v10=True, proto=True), cx, at, rpc=True)


def _v10_to_v03rest(value: Any, cx: Cx, at: str) -> JsonObj:
    return write_v03(read_card(value, cx, at, v10=True, proto=True), cx, at, rpc=False)


TRANSLATORS = {
    (Dialect.V03RPC, Dialect.V10): _v03rpc_to_v10,
    (Dialect.V10, Dialect.V03RPC): _v10_to_v03rpc,
    (Dialect.V03REST, Dialect.V10): _v03rest_to_v10,
    (Dialect.V10, Dialect.V03REST): _v10_to_v03rest,
}
register({"agent_card": TRANSLATORS})
