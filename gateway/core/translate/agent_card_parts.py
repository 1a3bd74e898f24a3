"""Owns the card's provider, capabilities (extensions, extended-card flag), skills and requirement slots.
Must not touch interfaces or schemes, nor expand requirement lists (agent_card.py with security_split.py)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from gateway.core.notes import Cx
from gateway.core.translate.agent_card_shape import (
    BOOL,
    STRINGS,
    STRUCT,
    TEXT,
    child,
    copy_checked,
    fill,
    members,
    need,
    union,
)
from gateway.core.translate.security_requirements import requirements_in
from gateway.core.translate.shape import arr
from gateway.core.types import JsonObj

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


def checked(value: Any, spec: dict[str, Callable[[Any, str], Any]], cx: Cx, at: str, *,
            proto: bool, required: dict[str, Callable[[], Any]] | None = None) -> JsonObj:
    """A flat object of `spec` members, type-checked; `required` enforced when given (strict v0.3 input)."""
    src = members(value, spec, cx, at, proto=proto)
    if required is not None:
        need(src, tuple(required), at)
    out: JsonObj = {}
    copy_checked(src, out, spec, at)
    return out


def provider_in(value: Any, cx: Cx, at: str, *, strict: bool, proto: bool) -> JsonObj:
    return checked(value, PROVIDER, cx, at, proto=proto, required=_PROVIDER_REQUIRED if strict else None)


def provider_out(provider: JsonObj, cx: Cx, at: str, *, rpc: bool) -> JsonObj:
    out = dict(provider)
    if rpc:
        fill(out, _PROVIDER_REQUIRED, cx, at)
    return out


def capabilities_in(card: JsonObj, cx: Cx, at: str, *, v10: bool, proto: bool,
                    strict: bool) -> JsonObj | None:
    """Hub capabilities; `stateTransitionHistory` has no v1.0 slot (noted). Absent on v1.0 input stays
    absent; on v0.3 REST input (ProtoJSON omits it) it becomes `{}`, as P10 requires it (noted)."""
    path = child(at, "capabilities")
    src = members(card["capabilities"], _CAPABILITIES_KNOWN, cx, path, proto=proto) \
        if "capabilities" in card else {}
    out: JsonObj = {}
    copy_checked(src, out, CAPABILITIES, path)
    if "extensions" in src:
        ext_path = child(path, "extensions")
        out["extensions"] = [
            checked(item, EXTENSION, cx, f"{ext_path}[{i}]", proto=proto,
                    required=_EXTENSION_REQUIRED if strict else None)
            for i, item in enumerate(arr(src["extensions"], ext_path))
        ]
    if "stateTransitionHistory" in src:
        BOOL(src["stateTransitionHistory"], child(path, "stateTransitionHistory"))
        cx.note("state_transition_history_dropped", child(path, "stateTransitionHistory"))
    flag = _extended_in(card, src, cx, at, v10=v10)
    if flag is not None:
        out[_EXTENDED_V10] = flag
    if "capabilities" not in card:
        if v10 and not out:
            return None
        cx.note("required_member_defaulted", path)
    return out


def _extended_in(card: JsonObj, caps: JsonObj, cx: Cx, at: str, *, v10: bool) -> bool | None:
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
    if v10:
        value: bool | None = union(cx, nested, top, [top_path], lambda c: None)
        return value
    value = union(cx, top, nested, [caps_path], lambda c: None)
    if value is False:
        cx.note("default_value_omitted", top_path if top is not None else caps_path)
        return None
    return value


def capabilities_out(caps: JsonObj | None, cx: Cx, at: str, *, rpc: bool) -> tuple[JsonObj | None, bool]:
    """v0.3 capabilities and the v0.3 top-level extended-card flag (omitted unless true)."""
    path = child(at, "capabilities")
    if caps is None:
        if rpc:
            cx.note("required_member_defaulted", path)
            return {}, False
        return None, False
    out: JsonObj = {key: caps[key] for key in CAPABILITIES if key in caps}
    if "extensions" in caps:
        ext_path = child(path, "extensions")
        out["extensions"] = []
        for i, ext in enumerate(caps["extensions"]):
            item = copy.deepcopy(ext)
            if rpc:
                fill(item, _EXTENSION_REQUIRED, cx, f"{ext_path}[{i}]")
            out["extensions"].append(item)
    flag = caps.get(_EXTENDED_V10)
    if flag is False:
        cx.note("default_value_omitted", child(path, _EXTENDED_V10))
    return out, flag is True


def skill_in(value: Any, cx: Cx, at: str, *, strict: bool, proto: bool) -> tuple[JsonObj, JsonObj]:
    """(hub skill without its requirements, the skill's members for `requirements_slot`)."""
    src = members(value, _SKILL_KNOWN, cx, at, proto=proto)
    if strict:
        need(src, tuple(_SKILL_REQUIRED), at)
    out: JsonObj = {}
    copy_checked(src, out, SKILL, at)
    return out, src


def skill_out(skill: JsonObj, cx: Cx, at: str, *, rpc: bool) -> JsonObj:
    out: JsonObj = {key: copy.deepcopy(skill[key]) for key in SKILL if key in skill}
    if rpc:
        fill(out, _SKILL_REQUIRED, cx, at)
    return out


def requirements_slot(src: JsonObj, cx: Cx, at: str, *, v10: bool,
                      proto: bool) -> tuple[str, list[JsonObj]] | None:
    """(path, hub requirements) of a card or skill: v0.3 `security` vs v1.0 `securityRequirements`,
    the input version's member preferred (§1.4); None when neither is present."""
    own, other = ("securityRequirements", "security") if v10 else ("security", "securityRequirements")

    def reader(key: str) -> Callable[[Cx], list[JsonObj]]:
        return lambda c: requirements_in(src[key], c, child(at, key), proto=proto)

    value: list[JsonObj] | None = union(cx, reader(own) if own in src else None,
                                        reader(other) if other in src else None,
                                        [child(at, other)], lambda c: None)
    if value is None:
        return None
    return child(at, own if own in src else other), value
