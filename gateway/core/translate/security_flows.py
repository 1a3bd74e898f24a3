"""Owns OAuth flows: the flow member tables, reading v0.3 (any subset) or v1.0 (oneof) flows, writing v0.3.
Must not touch scheme names, scheme members other than `flows`, or security requirements."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from gateway.core.errors import TranslationError
from gateway.core.notes import Cx
from gateway.core.translate.agent_card_shape import (
    BOOL,
    STR_MAP,
    TEXT,
    Check,
    child,
    copy_checked,
    fill,
    members,
    need,
)
from gateway.core.types import JsonObj

# flow -> its members (v1.0, P10); the v0.3 flow objects are these minus the v1.0-only ones below
FLOWS: dict[str, dict[str, Check]] = {
    "authorizationCode": {"authorizationUrl": TEXT, "tokenUrl": TEXT, "refreshUrl": TEXT,
                          "scopes": STR_MAP, "pkceRequired": BOOL},
    "clientCredentials": {"tokenUrl": TEXT, "refreshUrl": TEXT, "scopes": STR_MAP},
    "implicit": {"authorizationUrl": TEXT, "refreshUrl": TEXT, "scopes": STR_MAP},
    "password": {"tokenUrl": TEXT, "refreshUrl": TEXT, "scopes": STR_MAP},
    "deviceCode": {"deviceAuthorizationUrl": TEXT, "tokenUrl": TEXT, "refreshUrl": TEXT, "scopes": STR_MAP},
}
V10_ONLY_FLOWS = frozenset({"deviceCode"})
V10_ONLY_MEMBERS = frozenset({"pkceRequired"})
V03_FLOWS = tuple(name for name in FLOWS if name not in V10_ONLY_FLOWS)

# v0.3 JSON schema (J03) required members per flow
V03_REQUIRED: dict[str, tuple[str, ...]] = {
    "authorizationCode": ("authorizationUrl", "tokenUrl", "scopes"),
    "clientCredentials": ("tokenUrl", "scopes"),
    "implicit": ("authorizationUrl", "scopes"),
    "password": ("tokenUrl", "scopes"),
}
_DEFAULTS: dict[str, Callable[[], Any]] = {"authorizationUrl": str, "tokenUrl": str, "scopes": dict}


def _spec(flow: str, *, v10: bool) -> dict[str, Check]:
    spec = FLOWS[flow]
    return spec if v10 else {k: check for k, check in spec.items() if k not in V10_ONLY_MEMBERS}


def flows_in(value: Any, cx: Cx, at: str, *, v10: bool, proto: bool, require: bool) -> JsonObj:
    """A flows object as `{flow: members}` in input order. v1.0 input may set at most one flow (oneof);
    `require` enforces J03's required flow members (type-form v0.3 schemes)."""
    src = members(value, FLOWS if v10 else V03_FLOWS, cx, at, proto=proto)
    if v10 and len(src) > 1:
        raise TranslationError(at, "oneof `flow` has more than one member")
    out: JsonObj = {}
    for flow, item in src.items():
        path = child(at, flow)
        spec = _spec(flow, v10=v10)
        body = members(item, spec, cx, path, proto=proto)
        if require:
            need(body, V03_REQUIRED[flow], path)
        dst: JsonObj = {}
        copy_checked(body, dst, spec, path)
        out[flow] = dst
    return out


def flows_out(flows: JsonObj, cx: Cx, at: str, *, rpc: bool) -> JsonObj:
    """Hub flows as v0.3 flows: `deviceCode` and `pkceRequired` have no v0.3 slot (noted); the JSON-RPC
    dialect also gets J03's required members (ProtoJSON may have omitted them as defaults)."""
    out: JsonObj = {}
    for flow, body in flows.items():
        path = child(at, flow)
        if flow in V10_ONLY_FLOWS:
            cx.note("oauth_flow_dropped", path)
            continue
        dst: JsonObj = {}
        for key, item in body.items():
            if key in V10_ONLY_MEMBERS:
                cx.note("pkce_required_dropped", child(path, key))
            else:
                dst[key] = copy.deepcopy(item)
        if rpc:
            fill(dst, {key: _DEFAULTS[key] for key in V03_REQUIRED[flow]}, cx, path)
        out[flow] = dst
    return out
