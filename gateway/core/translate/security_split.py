"""Owns the schemes map with all requirement lists: OAuth split per flow (→1.0), exact re-merge (→0.3 RPC).
Must not touch single-scheme shapes (security.py) or any other card member."""

from __future__ import annotations

from gateway.core.notes import Cx
from gateway.core.translate.agent_card_shape import child
from gateway.core.translate.security import OAUTH2, scheme_out
from gateway.core.translate.security_flows import V03_FLOWS
from gateway.core.translate.security_requirements import collapse, expand_list, requirement_out
from gateway.core.types import JsonObj

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
        for flow, spec in flows.items():
            part = f"{name}#{flow}" if parts else name
            if parts and part in taken:
                cx.note("oauth_flow_dropped", child(child(path, "flows"), flow))
                continue
            out[part] = {OAUTH2: {**body, "flows": {flow: spec}}}
            parts.append(part)
        alternatives[name] = parts
    return out, [expand_list(lst, alternatives, cx, path) for path, lst in reqs]


def schemes_to_v03(schemes: dict[str, JsonObj], reqs: ReqLists, cx: Cx, at: str,
                   *, rpc: bool) -> tuple[dict[str, JsonObj], list[list[JsonObj]]]:
    """v0.3 schemes and requirement lists from the hub ones."""
    out: dict[str, JsonObj] = {}
    for name, scheme in schemes.items():
        converted = scheme_out(scheme, cx, child(at, name), rpc=rpc)
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
                kept.append(requirement_out(req, cx, f"{path}[{i}]", rpc=rpc))
                kept_paths.append(f"{path}[{i}]")
        lists.append(kept)
        origins.append(kept_paths)
    return _merge(out, lists, origins, cx, at) if rpc else (out, lists)


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
    parts = {part for members in groups.values() for part in members[1:]}
    return {base: members for base, members in groups.items() if base not in parts}


def _one_flow(scheme: JsonObj) -> bool:
    flows = scheme.get("flows")
    return scheme.get("type") == "oauth2" and isinstance(flows, dict) and len(flows) == 1


def _rest(scheme: JsonObj) -> JsonObj:
    return {key: value for key, value in scheme.items() if key != "flows"}
