"""Owns one security scheme: v0.3 `{"type": …}` ⇄ the oneof wrappers (v1.0, v0.3 proto), `in` ⇄ `location`.
Must not touch requirements or scheme names (the OAuth flow split and merge live in security_split.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gateway.core.errors import TranslationError
from gateway.core.notes import Cx
from gateway.core.tables import bijection, lookup
from gateway.core.translate.agent_card_shape import TEXT, child, members, need, union
from gateway.core.translate.security_flows import flows_in, flows_out
from gateway.core.translate.shape import obj
from gateway.core.types import JsonObj

# v0.3 `type` <-> v1.0 / v0.3-proto oneof member
WRAPPER_OF, TYPE_OF = bijection({
    "apiKey": "apiKeySecurityScheme",
    "http": "httpAuthSecurityScheme",
    "oauth2": "oauth2SecurityScheme",
    "openIdConnect": "openIdConnectSecurityScheme",
    "mutualTLS": "mtlsSecurityScheme",
})
OAUTH2 = WRAPPER_OF["oauth2"]

# per v0.3 type: v0.3 member -> wrapper member (every one a string except `flows`)
MEMBERS: dict[str, dict[str, str]] = {
    "apiKey": {"description": "description", "in": "location", "name": "name"},
    "http": {"description": "description", "scheme": "scheme", "bearerFormat": "bearerFormat"},
    "oauth2": {"description": "description", "flows": "flows", "oauth2MetadataUrl": "oauth2MetadataUrl"},
    "openIdConnect": {"description": "description", "openIdConnectUrl": "openIdConnectUrl"},
    "mutualTLS": {"description": "description"},
}
# J03 required members per type, with the value ProtoJSON omits them for
REQUIRED: dict[str, dict[str, Callable[[], Any]]] = {
    "apiKey": {"in": lambda: "header", "name": str},
    "http": {"scheme": str},
    "oauth2": {"flows": dict},
    "openIdConnect": {"openIdConnectUrl": str},
    "mutualTLS": {},
}
API_KEY_LOCATIONS = frozenset({"cookie", "header", "query"})  # J03 enum for `in`; free string in the protos

_TYPE_FORM = frozenset({"type"}.union(*MEMBERS.values()))
_SCHEME = _TYPE_FORM | frozenset(TYPE_OF)


def schemes_in(value: Any, cx: Cx, at: str, *, v10: bool, proto: bool) -> dict[str, JsonObj]:
    """A securitySchemes map of any input as hub schemes (v0.3 OAuth schemes may still hold several flows)."""
    return {name: scheme_in(item, cx, child(at, name), v10=v10, proto=proto)
            for name, item in obj(value, at).items()}


def scheme_in(value: Any, cx: Cx, at: str, *, v10: bool, proto: bool) -> JsonObj:
    """One scheme in the type form, the wrapper form or both (union card, §1.4): the input version's
    form wins (`type` for v0.3 input, the wrapper for v1.0 input). The v0.3 proto (REST card) uses the
    wrappers itself, but a2a-python serves the JSON-RPC card there too, so v0.3 REST input takes both."""
    src = members(value, _SCHEME, cx, at, proto=proto)
    wrapped = [key for key in src if key in TYPE_OF]
    typed = {key: item for key, item in src.items() if key not in TYPE_OF}
    if "type" not in typed:
        for key in typed:
            cx.note("dropped_unknown_member", child(at, key))
        if not wrapped:
            raise TranslationError(at, "security scheme has neither `type` nor a scheme member")

    def from_type(c: Cx) -> JsonObj:
        return _from_type_form(typed, c, at, proto=proto)

    def from_wrapper(c: Cx) -> JsonObj:
        return _from_wrapper(src, wrapped, c, at, v10=v10, proto=proto)

    type_reader = from_type if "type" in typed else None
    wrapper_reader = from_wrapper if wrapped else None
    if proto and not v10 and type_reader is None:
        return from_wrapper(cx)  # the v0.3 proto's own form (the REST card)
    result: JsonObj
    if v10:
        result = union(cx, wrapper_reader, type_reader, [child(at, "type")], from_type)
    else:
        result = union(cx, type_reader, wrapper_reader, [child(at, k) for k in wrapped], from_wrapper)
    return result


def _from_type_form(typed: JsonObj, cx: Cx, at: str, *, proto: bool) -> JsonObj:
    kind = typed["type"]
    wrapper = lookup(WRAPPER_OF, kind, at=child(at, "type"))
    names = MEMBERS[kind]
    src = members(typed, {"type", *names}, cx, at, proto=False)
    need(src, tuple(REQUIRED[kind]), at)
    body: JsonObj = {}
    for v03, v10 in names.items():
        if v03 in src:
            body[v10] = _member(src[v03], v03, cx, child(at, v03), v10=False, proto=proto, require=True)
    return {wrapper: body}


def _from_wrapper(src: JsonObj, wrapped: list[str], cx: Cx, at: str, *, v10: bool, proto: bool) -> JsonObj:
    if len(wrapped) > 1:
        raise TranslationError(at, "oneof `scheme` has more than one member")
    wrapper = wrapped[0]
    path = child(at, wrapper)
    names = set(MEMBERS[TYPE_OF[wrapper]].values())
    legacy_in = {"in"} if wrapper == WRAPPER_OF["apiKey"] else set()
    body_src = members(src[wrapper], names | legacy_in, cx, path, proto=proto)
    if "in" in body_src:  # a2a-elixir writes v0.3's `in` inside the v1.0 wrapper
        legacy = body_src.pop("in")
        if "location" in body_src:
            cx.note("dropped_unknown_member", child(path, "in"))
        else:
            cx.note("api_key_in_read_as_location", child(path, "in"))
            body_src["location"] = legacy
    body: JsonObj = {}
    for name in MEMBERS[TYPE_OF[wrapper]].values():
        if name in body_src:
            body[name] = _member(body_src[name], name, cx, child(path, name), v10=v10, proto=proto,
                                 require=False)
    return {wrapper: body}


def _member(value: Any, name: str, cx: Cx, at: str, *, v10: bool, proto: bool, require: bool) -> Any:
    if name == "flows":
        return flows_in(value, cx, at, v10=v10, proto=proto, require=require)
    return TEXT(value, at)


def scheme_out(scheme: JsonObj, cx: Cx, at: str, *, rpc: bool) -> JsonObj | None:
    """A hub scheme as v0.3 (type form for JSON-RPC, wrapper form for REST); None when its only flows
    had no v0.3 slot, so the scheme is gone (noted)."""
    ((wrapper, body),) = scheme.items()
    path = child(at, wrapper)
    out_body: JsonObj = dict(body)
    if "flows" in body:
        flows = flows_out(body["flows"], cx, child(path, "flows"), rpc=rpc)
        if body["flows"] and not flows:
            cx.note("security_scheme_removed", at)
            return None
        out_body["flows"] = flows
    if not rpc:
        return {wrapper: out_body}
    kind = TYPE_OF[wrapper]
    out: JsonObj = {"type": kind}
    for v03, v10 in MEMBERS[kind].items():
        if v10 in out_body:
            out[v03] = out_body[v10]
    for v03, make in REQUIRED[kind].items():
        if v03 not in out:
            cx.note("required_member_defaulted", child(path, MEMBERS[kind][v03]))
            out[v03] = make()
    if out.get("in", "header") not in API_KEY_LOCATIONS:
        cx.note("api_key_location_coerced", child(path, "location"))
        lowered = out["in"].lower()
        out["in"] = lowered if lowered in API_KEY_LOCATIONS else "header"
    return out
