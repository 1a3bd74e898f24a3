"""Owns security requirements: `[{name: [scopes]}]` ⇄ `[{"schemes": {name: {"list": …}}}]`, and expansion.
Must not touch the schemes themselves nor decide which schemes are split (security_split.py does)."""

from __future__ import annotations

import copy
import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from gateway.core.notes import Cx
from gateway.core.translate.agent_card_shape import child, members
from gateway.core.translate.shape import arr, obj, strings
from gateway.core.types import JsonObj

# scheme name -> the names a split scheme became, itself first
Alternatives = Mapping[str, Sequence[str]]


def requirements_in(value: Any, cx: Cx, at: str, *, proto: bool) -> list[JsonObj]:
    """A requirement list of either form as hub requirements."""
    return [requirement_in(item, cx, f"{at}[{i}]", proto=proto) for i, item in enumerate(arr(value, at))]


def requirement_in(value: Any, cx: Cx, at: str, *, proto: bool) -> JsonObj:
    src = obj(value, at)
    if type(src.get("schemes")) is dict or (proto and not src):
        body = members(src, ("schemes",), cx, at, proto=proto)
        if "schemes" not in body:
            return {}  # ProtoJSON omits an empty map
        path = child(at, "schemes")
        out: JsonObj = {}
        for name, item in obj(body["schemes"], path).items():
            entry_path = child(path, name)
            entry = members(item, ("list",), cx, entry_path, proto=proto)
            out[name] = {"list": strings(entry["list"], child(entry_path, "list"))} if "list" in entry else {}
        return {"schemes": out}
    return {"schemes": {name: {"list": strings(scopes, child(at, name))} for name, scopes in src.items()}}


def requirement_out(req: JsonObj, cx: Cx, at: str, *, rpc: bool) -> JsonObj:
    """A hub requirement in the v0.3 JSON-RPC form, or copied for the ProtoJSON form. ProtoJSON's
    omitted members become explicit values (noted: the round trip spells them out)."""
    if not rpc:
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
