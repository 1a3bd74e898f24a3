"""Security in the agent card: one scheme (type form ⇄ oneof wrappers), OAuth flows, requirement lists,
and the OAuth split per flow (→ v1.0) with its exact re-merge (→ v0.3 JSON-RPC) over all of them."""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from gateway.core.dialects import V03RPC_SPEC, DialectSpec
from gateway.core.errors import TranslationError
from gateway.core.notes import Cx
from gateway.core.tables import bijection, lookup
from gateway.core.translate.agent_card.readers import (
    BOOL,
    STR_MAP,
    TEXT,
    Check,
    child,
    copy_checked,
    fill,
    members,
    need,
    union,
)
from gateway.core.translate.shape import arr, obj, strings
from gateway.core.types import JsonObj, Version

# ---- OAuth flows ------------------------------------------------------------------------------------

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


# A scheme comes in one of two forms: v0.3's `{"type": …}` (the v0.3 JSON schema's, with its required
# members) or the oneof wrapper of the protos (v1.0, and the v0.3 proto's for a v0.3 REST card).
SchemeForm = Literal["type", "wrapper"]
_V03_FLOW_MEMBERS = {flow: {k: check for k, check in spec.items() if k not in V10_ONLY_MEMBERS}
                     for flow, spec in FLOWS.items()}


def flows_in(value: Any, cx: Cx, at: str, spec: DialectSpec, form: SchemeForm) -> JsonObj:
    """A flows object of a scheme in `form`, in a card of `spec`, as `{flow: members}` in input order.
    v1.0 flows (wrapper form of a v1.0 card) are a oneof; the type form enforces J03's required members."""
    v10 = form == "wrapper" and spec.version is Version.V10
    src = members(value, FLOWS if v10 else V03_FLOWS, cx, at, spec)
    if v10 and len(src) > 1:
        raise TranslationError(at, "oneof `flow` has more than one member")
    out: JsonObj = {}
    for flow, item in src.items():
        path = child(at, flow)
        checks = FLOWS[flow] if v10 else _V03_FLOW_MEMBERS[flow]
        body = members(item, checks, cx, path, spec)
        if form == "type":
            need(body, V03_REQUIRED[flow], path)
        dst: JsonObj = {}
        copy_checked(body, dst, checks, path)
        out[flow] = dst
    return out


def flows_out(flows: JsonObj, cx: Cx, at: str, spec: DialectSpec) -> JsonObj:
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
        if not spec.protojson:
            fill(dst, {key: _DEFAULTS[key] for key in V03_REQUIRED[flow]}, cx, path)
        out[flow] = dst
    return out


# ---- one scheme -------------------------------------------------------------------------------------

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


def schemes_in(value: Any, cx: Cx, at: str, spec: DialectSpec) -> dict[str, JsonObj]:
    """A securitySchemes map of a card of `spec` as hub schemes (v0.3 OAuth schemes may still hold
    several flows)."""
    return {name: scheme_in(item, cx, child(at, name), spec) for name, item in obj(value, at).items()}


def scheme_in(value: Any, cx: Cx, at: str, spec: DialectSpec) -> JsonObj:
    """One scheme in the type form, the wrapper form or both (a union card carries both): the input
    version's form wins (`type` for v0.3 input, the wrapper for v1.0 input). The v0.3 proto (REST card)
    uses the wrappers itself, but a2a-python serves the JSON-RPC card there too, so v0.3 REST input
    takes both."""
    v10 = spec.version is Version.V10
    src = members(value, _SCHEME, cx, at, spec)
    wrapped = [key for key in src if key in TYPE_OF]
    typed = {key: item for key, item in src.items() if key not in TYPE_OF}
    if "type" not in typed:
        for key in typed:
            cx.note("dropped_unknown_member", child(at, key))
        if not wrapped:
            raise TranslationError(at, "security scheme has neither `type` nor a scheme member")

    def from_type(c: Cx) -> JsonObj:
        return _from_type_form(typed, c, at, spec)

    def from_wrapper(c: Cx) -> JsonObj:
        return _from_wrapper(src, wrapped, c, at, spec)

    type_reader = from_type if "type" in typed else None
    wrapper_reader = from_wrapper if wrapped else None
    if spec.protojson and not v10 and type_reader is None:
        return from_wrapper(cx)  # the v0.3 proto's own form (the REST card)
    result: JsonObj
    if v10:
        result = union(cx, wrapper_reader, type_reader, [child(at, "type")], from_type)
    else:
        result = union(cx, type_reader, wrapper_reader, [child(at, k) for k in wrapped], from_wrapper)
    return result


def _from_type_form(typed: JsonObj, cx: Cx, at: str, spec: DialectSpec) -> JsonObj:
    kind = typed["type"]
    wrapper = lookup(WRAPPER_OF, kind, at=child(at, "type"))
    names = MEMBERS[kind]
    src = members(typed, {"type", *names}, cx, at, V03RPC_SPEC)   # the type form is the JSON schema's
    need(src, tuple(REQUIRED[kind]), at)
    body: JsonObj = {}
    for v03, v10 in names.items():
        if v03 in src:
            body[v10] = _member(src[v03], v03, cx, child(at, v03), spec, "type")
    return {wrapper: body}


def _from_wrapper(src: JsonObj, wrapped: list[str], cx: Cx, at: str, spec: DialectSpec) -> JsonObj:
    if len(wrapped) > 1:
        raise TranslationError(at, "oneof `scheme` has more than one member")
    wrapper = wrapped[0]
    path = child(at, wrapper)
    names = set(MEMBERS[TYPE_OF[wrapper]].values())
    legacy_in = {"in"} if wrapper == WRAPPER_OF["apiKey"] else set()
    body_src = members(src[wrapper], names | legacy_in, cx, path, spec)
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
            body[name] = _member(body_src[name], name, cx, child(path, name), spec, "wrapper")
    return {wrapper: body}


def _member(value: Any, name: str, cx: Cx, at: str, spec: DialectSpec, form: SchemeForm) -> Any:
    if name == "flows":
        return flows_in(value, cx, at, spec, form)
    return TEXT(value, at)


def scheme_out(scheme: JsonObj, cx: Cx, at: str, spec: DialectSpec) -> JsonObj | None:
    """A hub scheme as a v0.3 one of `spec` (the JSON schema's type form, or the proto's wrapper form);
    None when its only flows had no v0.3 slot, so the scheme is gone (noted)."""
    ((wrapper, body),) = scheme.items()
    path = child(at, wrapper)
    out_body: JsonObj = dict(body)
    if "flows" in body:
        flows = flows_out(body["flows"], cx, child(path, "flows"), spec)
        if body["flows"] and not flows:
            cx.note("security_scheme_removed", at)
            return None
        out_body["flows"] = flows
    if spec.protojson:
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


# ---- requirements ----------------------------------------------------------------------------------

# scheme name -> the names a split scheme became, itself first
Alternatives = Mapping[str, Sequence[str]]


def requirements_in(value: Any, cx: Cx, at: str, spec: DialectSpec) -> list[JsonObj]:
    """A requirement list of either form, `[{name: [scopes]}]` (the v0.3 JSON schema's) or
    `[{"schemes": {name: {"list": [scopes]}}}]` (the protos'), as hub requirements."""
    return [requirement_in(item, cx, f"{at}[{i}]", spec) for i, item in enumerate(arr(value, at))]


def requirement_in(value: Any, cx: Cx, at: str, spec: DialectSpec) -> JsonObj:
    src = obj(value, at)
    if type(src.get("schemes")) is dict or (spec.protojson and not src):
        body = members(src, ("schemes",), cx, at, spec)
        if "schemes" not in body:
            return {}  # ProtoJSON omits an empty map
        path = child(at, "schemes")
        out: JsonObj = {}
        for name, item in obj(body["schemes"], path).items():
            entry_path = child(path, name)
            entry = members(item, ("list",), cx, entry_path, spec)
            out[name] = {"list": strings(entry["list"], child(entry_path, "list"))} if "list" in entry else {}
        return {"schemes": out}
    return {"schemes": {name: {"list": strings(scopes, child(at, name))} for name, scopes in src.items()}}


def requirement_out(req: JsonObj, cx: Cx, at: str, spec: DialectSpec) -> JsonObj:
    """A hub requirement in the v0.3 JSON schema's form, or copied for a ProtoJSON dialect. ProtoJSON's
    omitted members become explicit values (noted: the round trip spells them out)."""
    if spec.protojson:
        return copy.deepcopy(req)
    if "schemes" not in req:
        cx.note("required_member_defaulted", child(at, "schemes"))
        return {}
    out: JsonObj = {}
    path = child(at, "schemes")
    for name, entry in req["schemes"].items():
        if "list" not in entry:
            cx.note("required_member_defaulted", child(child(path, name), "list"))
        out[name] = list(entry.get("list", []))
    return out


def expand(names: Mapping[str, Any], alternatives: Alternatives) -> list[JsonObj]:
    """One AND of schemes with every split scheme replaced by each of its parts in turn (an OR)."""
    choices = [alternatives.get(name, (name,)) for name in names]
    values = list(names.values())
    return [{name: copy.deepcopy(value) for name, value in zip(combo, values, strict=True)}
            for combo in itertools.product(*choices)]


def expand_list(reqs: list[JsonObj], alternatives: Alternatives, cx: Cx, at: str) -> list[JsonObj]:
    """Hub requirements with the split schemes expanded (each expanded requirement noted)."""
    out: list[JsonObj] = []
    for i, req in enumerate(reqs):
        schemes = req.get("schemes", {})
        if not any(name in alternatives and len(alternatives[name]) > 1 for name in schemes):
            out.append(req)
            continue
        cx.note("security_requirement_expanded", f"{at}[{i}]")
        out.extend({"schemes": alt} for alt in expand(schemes, alternatives))
    return out


def collapse(reqs: list[JsonObj],
             alternatives: Alternatives) -> tuple[list[JsonObj] | None, set[str], list[int]]:
    """The inverse of `expand` over a v0.3 JSON-RPC requirement list: (collapsed list, set(), indexes of the
    collapsed runs) when every run of alternatives is exactly an expansion, else (None, the split schemes
    that got in the way, [])."""
    base_of = {part: base for base, parts in alternatives.items() for part in parts}
    out: list[JsonObj] = []
    runs: list[int] = []
    i = 0
    while i < len(reqs):
        based: JsonObj = {}
        involved: set[str] = set()
        for name, scopes in reqs[i].items():
            base = base_of.get(name, name)
            if name in base_of:
                involved.add(base)
            if base in based:
                return None, involved | {base}, []
            based[base] = scopes
        run = expand(based, alternatives)
        if reqs[i:i + len(run)] != run:
            return None, involved, []
        if involved:
            runs.append(i)
        out.append(based)
        i += len(run)
    return out, set(), runs


# ---- the schemes map with all requirement lists: the OAuth split and merge ---------------------------
# v1.0 OAuth schemes hold one flow (a oneof), v0.3 ones several: a v0.3 scheme with several flows becomes
# one v1.0 scheme per flow (`name`, `name#flow`…), every requirement naming it expanded to match.

# (JSON path of a requirement list, its requirements) for the card and each skill
ReqLists = list[tuple[str, list[JsonObj]]]


def split_schemes(schemes: dict[str, JsonObj], reqs: ReqLists, cx: Cx,
                  at: str) -> tuple[dict[str, JsonObj], list[list[JsonObj]]]:
    """Hub schemes with one flow each, and the requirement lists expanded to match."""
    taken = set(schemes) | {name for _, lst in reqs for req in lst for name in req.get("schemes", {})}
    out: dict[str, JsonObj] = {}
    alternatives: dict[str, list[str]] = {}
    for name, scheme in schemes.items():
        body = scheme.get(OAUTH2)
        flows = body.get("flows", {}) if body is not None else {}
        if body is None or len(flows) < 2:
            out[name] = scheme
            continue
        path = child(at, name)
        cx.note("oauth_flows_split", path)
        parts: list[str] = []
        for flow, flow_body in flows.items():
            part = f"{name}#{flow}" if parts else name
            if parts and part in taken:
                cx.note("oauth_flow_dropped", child(child(path, "flows"), flow))
                continue
            out[part] = {OAUTH2: {**body, "flows": {flow: flow_body}}}
            parts.append(part)
        alternatives[name] = parts
    return out, [expand_list(lst, alternatives, cx, path) for path, lst in reqs]


def schemes_to_v03(schemes: dict[str, JsonObj], reqs: ReqLists, cx: Cx, at: str,
                   spec: DialectSpec) -> tuple[dict[str, JsonObj], list[list[JsonObj]]]:
    """v0.3 schemes and requirement lists of `spec` from the hub ones; the v0.3 JSON schema's form
    also gets the OAuth split undone where it can be exactly."""
    out: dict[str, JsonObj] = {}
    for name, scheme in schemes.items():
        converted = scheme_out(scheme, cx, child(at, name), spec)
        if converted is not None:
            out[name] = converted
    removed = set(schemes) - set(out)
    lists: list[list[JsonObj]] = []
    origins: list[list[str]] = []   # the input path of every kept requirement
    for path, lst in reqs:
        kept: list[JsonObj] = []
        kept_paths: list[str] = []
        for i, req in enumerate(lst):
            if removed.intersection(req.get("schemes", {})):
                cx.note("security_requirement_removed", f"{path}[{i}]")
            else:
                kept.append(requirement_out(req, cx, f"{path}[{i}]", spec))
                kept_paths.append(f"{path}[{i}]")
        lists.append(kept)
        origins.append(kept_paths)
    return (out, lists) if spec.protojson else _merge(out, lists, origins, cx, at)


def _merge(schemes: dict[str, JsonObj], lists: list[list[JsonObj]], origins: list[list[str]], cx: Cx,
           at: str) -> tuple[dict[str, JsonObj], list[list[JsonObj]]]:
    """Undo `split_schemes` on v0.3 JSON-RPC output wherever every requirement list collapses exactly:
    each `name#flow` sibling merges back into `name`. Noted, as a v0.3 card that really had such names
    would not come back the same."""
    groups = _groups(schemes)
    while groups:
        collapsed: list[list[JsonObj]] = []
        runs: list[list[int]] = []
        failed: set[str] = set()
        for lst in lists:
            result, bad, starts = collapse(lst, groups)
            failed |= bad
            collapsed.append(result or [])
            runs.append(starts)
        if not failed:
            break
        groups = {base: parts for base, parts in groups.items() if base not in failed}
    if not groups:
        return schemes, lists
    for base in groups:
        cx.note("oauth_flows_merged", child(at, base))
    for paths, starts in zip(origins, runs, strict=True):
        for start in starts:
            cx.note("security_requirement_collapsed", paths[start])
    aliases = {part for parts in groups.values() for part in parts[1:]}
    merged: dict[str, JsonObj] = {}
    for name, scheme in schemes.items():
        if name in groups:
            flows: JsonObj = {}
            for part in groups[name]:
                flows.update(schemes[part]["flows"])
            merged[name] = {**scheme, "flows": flows}
        elif name not in aliases:
            merged[name] = scheme
    return merged, collapsed


def _groups(schemes: dict[str, JsonObj]) -> dict[str, list[str]]:
    """base -> [base, `base#flow`…] for one-flow OAuth siblings that differ from the base only in
    their (distinct) flow; a name may not be a base and a part at once."""
    groups: dict[str, list[str]] = {}
    for name, scheme in schemes.items():
        base, sep, flow = name.rpartition("#")
        head = schemes.get(base)
        if not sep or flow not in V03_FLOWS or head is None:
            continue
        if not (_one_flow(head) and _one_flow(scheme)) or list(scheme["flows"]) != [flow]:
            continue
        if flow in head["flows"] or _rest(head) != _rest(scheme):
            continue
        groups.setdefault(base, [base]).append(name)
    parts = {part for names in groups.values() for part in names[1:]}
    return {base: names for base, names in groups.items() if base not in parts}


def _one_flow(scheme: JsonObj) -> bool:
    flows = scheme.get("flows")
    return scheme.get("type") == "oauth2" and isinstance(flows, dict) and len(flows) == 1


def _rest(scheme: JsonObj) -> JsonObj:
    return {key: value for key, value in scheme.items() if key != "flows"}
