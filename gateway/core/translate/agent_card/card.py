"""AgentCard both ways through the v1.0 hub, written once against a `DialectSpec`, with its provider,
capabilities, skills and requirement slots. No URL rewriting, no served card, no fetching (core/card.py)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from gateway.core.dialects import V03_SPECS, V10_SPEC, DialectSpec
from gateway.core.notes import Cx
from gateway.core.translate.agent_card.interfaces import interfaces_in, interfaces_out
from gateway.core.translate.agent_card.readers import (
    BOOL,
    STRINGS,
    STRUCT,
    TEXT,
    child,
    copy_checked,
    fill,
    members,
    need,
    objects,
    union,
)
from gateway.core.translate.agent_card.security import (
    ReqLists,
    requirements_in,
    schemes_in,
    schemes_to_v03,
    split_schemes,
)
from gateway.core.translate.registry import Family, Table, Translator
from gateway.core.translate.shape import arr
from gateway.core.types import V10, JsonObj, Version

# ---- provider, capabilities, skills, requirement slots -----------------------------------------------

PROVIDER = {"organization": TEXT, "url": TEXT}
EXTENSION = {"uri": TEXT, "description": TEXT, "required": BOOL, "params": STRUCT}
CAPABILITIES = {"streaming": BOOL, "pushNotifications": BOOL}
SKILL = {"id": TEXT, "name": TEXT, "description": TEXT, "tags": STRINGS, "examples": STRINGS,
         "inputModes": STRINGS, "outputModes": STRINGS}

_CAPABILITIES_KNOWN = frozenset({*CAPABILITIES, "extensions", "extendedAgentCard", "stateTransitionHistory"})
_SKILL_KNOWN = frozenset({*SKILL, "security", "securityRequirements"})
_EXTENDED = "supportsAuthenticatedExtendedCard"   # v0.3, top level
_EXTENDED_V10 = "extendedAgentCard"               # v1.0, in capabilities
# J03 required members, with the value ProtoJSON omits them for
_PROVIDER_REQUIRED: dict[str, Callable[[], Any]] = {"organization": str, "url": str}
_EXTENSION_REQUIRED: dict[str, Callable[[], Any]] = {"uri": str}
_SKILL_REQUIRED: dict[str, Callable[[], Any]] = {"id": str, "name": str, "description": str, "tags": list}


def checked(value: Any, checks: dict[str, Callable[[Any, str], Any]], cx: Cx, at: str, spec: DialectSpec,
            required: dict[str, Callable[[], Any]]) -> JsonObj:
    """A flat object of `checks` members, type-checked; in the v0.3 JSON schema's dialect (ProtoJSON
    omits defaults, so nothing is required there) the `required` members must be present."""
    src = members(value, checks, cx, at, spec)
    if not spec.protojson:
        need(src, tuple(required), at)
    out: JsonObj = {}
    copy_checked(src, out, checks, at)
    return out


def provider_in(value: Any, cx: Cx, at: str, spec: DialectSpec) -> JsonObj:
    return checked(value, PROVIDER, cx, at, spec, _PROVIDER_REQUIRED)


def provider_out(provider: JsonObj, cx: Cx, at: str, spec: DialectSpec) -> JsonObj:
    out = dict(provider)
    if not spec.protojson:
        fill(out, _PROVIDER_REQUIRED, cx, at)
    return out


def capabilities_in(card: JsonObj, cx: Cx, at: str, spec: DialectSpec) -> JsonObj | None:
    """Hub capabilities; `stateTransitionHistory` has no v1.0 slot (noted). Absent on v1.0 input stays
    absent; on v0.3 REST input (ProtoJSON omits it) it becomes `{}`, as P10 requires it (noted)."""
    path = child(at, "capabilities")
    src = members(card["capabilities"], _CAPABILITIES_KNOWN, cx, path, spec) \
        if "capabilities" in card else {}
    out: JsonObj = {}
    copy_checked(src, out, CAPABILITIES, path)
    if "extensions" in src:
        ext_path = child(path, "extensions")
        out["extensions"] = [
            checked(item, EXTENSION, cx, f"{ext_path}[{i}]", spec, _EXTENSION_REQUIRED)
            for i, item in enumerate(arr(src["extensions"], ext_path))
        ]
    if "stateTransitionHistory" in src:
        BOOL(src["stateTransitionHistory"], child(path, "stateTransitionHistory"))
        cx.note("state_transition_history_dropped", child(path, "stateTransitionHistory"))
    flag = _extended_in(card, src, cx, at, spec)
    if flag is not None:
        out[_EXTENDED_V10] = flag
    if "capabilities" not in card:
        if spec.version is Version.V10 and not out:
            return None
        cx.note("required_member_defaulted", path)
    return out


def _extended_in(card: JsonObj, caps: JsonObj, cx: Cx, at: str, spec: DialectSpec) -> bool | None:
    """v0.3 `supportsAuthenticatedExtendedCard` ⇄ v1.0 `capabilities.extendedAgentCard` (union-resolved).
    For v0.3 input only `true` is carried over: a `false` is omitted (noted)."""
    top_path, caps_path = child(at, _EXTENDED), child(child(at, "capabilities"), _EXTENDED_V10)

    def from_top(c: Cx) -> bool:
        result: bool = BOOL(card[_EXTENDED], top_path)
        return result

    def from_caps(c: Cx) -> bool:
        result: bool = BOOL(caps[_EXTENDED_V10], caps_path)
        return result

    top = from_top if _EXTENDED in card else None
    nested = from_caps if _EXTENDED_V10 in caps else None
    if spec.version is Version.V10:
        value: bool | None = union(cx, nested, top, [top_path], lambda c: None)
        return value
    value = union(cx, top, nested, [caps_path], lambda c: None)
    if value is False:
        cx.note("default_value_omitted", top_path if top is not None else caps_path)
        return None
    return value


def capabilities_out(caps: JsonObj | None, cx: Cx, at: str, spec: DialectSpec) -> tuple[JsonObj | None, bool]:
    """v0.3 capabilities and the v0.3 top-level extended-card flag (omitted unless true)."""
    path = child(at, "capabilities")
    if caps is None:
        if not spec.protojson:
            cx.note("required_member_defaulted", path)
            return {}, False
        return None, False
    out: JsonObj = {key: caps[key] for key in CAPABILITIES if key in caps}
    if "extensions" in caps:
        ext_path = child(path, "extensions")
        out["extensions"] = []
        for i, ext in enumerate(caps["extensions"]):
            item = copy.deepcopy(ext)
            if not spec.protojson:
                fill(item, _EXTENSION_REQUIRED, cx, f"{ext_path}[{i}]")
            out["extensions"].append(item)
    flag = caps.get(_EXTENDED_V10)
    if flag is False:
        cx.note("default_value_omitted", child(path, _EXTENDED_V10))
    return out, flag is True


def skill_in(value: Any, cx: Cx, at: str, spec: DialectSpec) -> tuple[JsonObj, JsonObj]:
    """(hub skill without its requirements, the skill's members for `requirements_slot`)."""
    src = members(value, _SKILL_KNOWN, cx, at, spec)
    if not spec.protojson:
        need(src, tuple(_SKILL_REQUIRED), at)
    out: JsonObj = {}
    copy_checked(src, out, SKILL, at)
    return out, src


def skill_out(skill: JsonObj, cx: Cx, at: str, spec: DialectSpec) -> JsonObj:
    out: JsonObj = {key: copy.deepcopy(skill[key]) for key in SKILL if key in skill}
    if not spec.protojson:
        fill(out, _SKILL_REQUIRED, cx, at)
    return out


def requirements_slot(src: JsonObj, cx: Cx, at: str, spec: DialectSpec) -> tuple[str, list[JsonObj]] | None:
    """(path, hub requirements) of a card or skill: v0.3 `security` vs v1.0 `securityRequirements`,
    the input version's member preferred; None when neither is present."""
    v10 = spec.version is Version.V10
    own, other = ("securityRequirements", "security") if v10 else ("security", "securityRequirements")

    def reader(key: str) -> Callable[[Cx], list[JsonObj]]:
        return lambda c: requirements_in(src[key], c, child(at, key), spec)

    value: list[JsonObj] | None = union(cx, reader(own) if own in src else None,
                                        reader(other) if other in src else None,
                                        [child(at, other)], lambda c: None)
    if value is None:
        return None
    return child(at, own if own in src else other), value


# ---- the card ----------------------------------------------------------------------------------------

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


def read_card(value: Any, cx: Cx, at: str, spec: DialectSpec) -> JsonObj:
    """A card of `spec` as the hub (v1.0) card. Of a union card's duplicates, the members of the
    input's version win; a ProtoJSON input may spell members as proto field names."""
    src = members(value, _KNOWN, cx, at, spec)
    need(src, ("name",) if spec.protojson else _V03_REQUIRED, at)
    out: JsonObj = {}
    copy_checked(src, out, _HEAD, at)
    out["supportedInterfaces"] = interfaces_in(src, cx, at, spec)
    if "provider" in src:
        out["provider"] = provider_in(src["provider"], cx, child(at, "provider"), spec)
    copy_checked(src, out, _MIDDLE, at)
    caps = capabilities_in(src, cx, at, spec)
    if caps is not None:
        out["capabilities"] = caps
    _read_security(src, out, cx, at, spec)
    copy_checked(src, out, _MODES, at)
    if "signatures" in src:
        objects(src["signatures"], child(at, "signatures"))
        cx.note("card_signature_dropped", child(at, "signatures"))
    copy_checked(src, out, _ICON, at)
    return {key: out[key] for key in _V10_ORDER if key in out}


def _read_security(src: JsonObj, out: JsonObj, cx: Cx, at: str, spec: DialectSpec) -> None:
    """Schemes, card and skill requirements, then the OAuth split over all of them at once."""
    schemes_path = child(at, "securitySchemes")
    schemes = schemes_in(src["securitySchemes"], cx, schemes_path, spec) if "securitySchemes" in src else None
    slots: list[JsonObj] = []
    lists: ReqLists = []
    card_reqs = requirements_slot(src, cx, at, spec)
    if card_reqs is not None:
        slots.append(out)
        lists.append(card_reqs)
    if "skills" in src:
        skills_path = child(at, "skills")
        out["skills"] = []
        for i, item in enumerate(arr(src["skills"], skills_path)):
            skill, skill_src = skill_in(item, cx, f"{skills_path}[{i}]", spec)
            reqs = requirements_slot(skill_src, cx, f"{skills_path}[{i}]", spec)
            if reqs is not None:
                slots.append(skill)
                lists.append(reqs)
            out["skills"].append(skill)
    split, expanded = split_schemes(schemes or {}, lists, cx, schemes_path)
    if schemes is not None:
        out["securitySchemes"] = split
    for slot, reqs_list in zip(slots, expanded, strict=True):
        slot["securityRequirements"] = reqs_list


def write_v03(hub: JsonObj, cx: Cx, at: str, spec: DialectSpec) -> JsonObj:
    """The hub card as a v0.3 card of `spec`: the v0.3 JSON schema's shapes, with its required
    members filled, or ProtoJSON of the v0.3 proto."""
    out: JsonObj = interfaces_out(hub["supportedInterfaces"], cx, at)
    copy_checked(hub, out, _HEAD, at)
    if "provider" in hub:
        out["provider"] = provider_out(hub["provider"], cx, child(at, "provider"), spec)
    copy_checked(hub, out, _MIDDLE, at)
    caps, extended = capabilities_out(hub.get("capabilities"), cx, at, spec)
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
            converted = skill_out(skill, cx, skill_path, spec)
            if "securityRequirements" in skill:
                slots.append(converted)
                lists.append((child(skill_path, "securityRequirements"), skill["securityRequirements"]))
            out["skills"].append(converted)
    schemes, converted_lists = schemes_to_v03(hub.get("securitySchemes", {}), lists, cx,
                                              child(at, "securitySchemes"), spec)
    if "securitySchemes" in hub:
        out["securitySchemes"] = schemes
    for slot, reqs in zip(slots, converted_lists, strict=True):
        slot["security"] = reqs
    copy_checked(hub, out, _MODES, at)
    if extended:
        out["supportsAuthenticatedExtendedCard"] = True
    copy_checked(hub, out, _ICON, at)
    if not spec.protojson:
        fill(out, _V03_DEFAULTS, cx, at)
    return {key: out[key] for key in _V03_ORDER if key in out}


def to_v10(spec: DialectSpec) -> Translator:
    """Real v0.3 REST servers (a2a-python) answer GET /v1/card with the JSON-RPC-shaped card: the
    readers detect each scheme's and requirement's form, so both shapes are accepted there."""
    def convert(value: Any, cx: Cx, at: str) -> JsonObj:
        return read_card(value, cx, at, spec)
    return convert


def from_v10(spec: DialectSpec) -> Translator:
    def convert(value: Any, cx: Cx, at: str) -> JsonObj:
        return write_v03(read_card(value, cx, at, V10_SPEC), cx, at, spec)
    return convert


TRANSLATORS: Table = {Family.AGENT_CARD: {
    **{(spec.dialect, V10): to_v10(spec) for spec in V03_SPECS},
    **{(V10, spec.dialect): from_v10(spec) for spec in V03_SPECS},
}}
