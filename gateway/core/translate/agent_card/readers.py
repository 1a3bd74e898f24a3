"""The object readers of the agent card modules: member filtering (with the spec's ProtoJSON leniency),
typed copies, required members, unions. It knows no A2A member name or mapping rule."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from gateway.core.dialects import DialectSpec
from gateway.core.errors import TranslationError
from gateway.core.notes import Cx
from gateway.core.translate.shape import arr, expect, obj, strings, text
from gateway.core.types import JsonObj

Check = Callable[[Any, str], Any]
Reader = Callable[[Cx], Any]

_PLAIN = re.compile(r"[A-Za-z_$][A-Za-z0-9_$#-]*\Z")
_SNAKE = re.compile(r"_([a-z0-9])")


def child(at: str, key: str) -> str:
    """JSON path of member `key` of the object at `at` (bracket form for unusual names)."""
    return f"{at}.{key}" if _PLAIN.match(key) else f"{at}[{json.dumps(key)}]"


def boolean(value: Any, at: str) -> bool:
    result: bool = expect(value, bool, at)
    return result


def struct(value: Any, at: str) -> JsonObj:
    """A free-form JSON object (copied; never round-tripped through protobuf Struct)."""
    return copy.deepcopy(obj(value, at))


def str_map(value: Any, at: str) -> dict[str, str]:
    """A map<string,string> such as OAuth scopes (copied)."""
    src = obj(value, at)
    return {key: text(item, child(at, key)) for key, item in src.items()}


def objects(value: Any, at: str) -> list[JsonObj]:
    items = arr(value, at)
    return [obj(item, f"{at}[{i}]") for i, item in enumerate(items)]


TEXT: Check = text
BOOL: Check = boolean
STRINGS: Check = strings
STRUCT: Check = struct
STR_MAP: Check = str_map


def members(value: Any, known: Collection[str], cx: Cx, at: str, spec: DialectSpec) -> JsonObj:
    """`value` as an object holding only `known` members (a shallow copy). Unknown members are dropped
    with a note; `null` means unset (ProtoJSON; leniency for v0.3 peers that dump `None`) and in a
    ProtoJSON dialect proto field names are read as their JSON names (both noted: the round trip cannot
    restore them)."""
    src = obj(value, at)
    proto = spec.protojson
    out: JsonObj = {}
    for key, item in src.items():
        name = key
        if proto and key not in known and "_" in key:
            camel = _SNAKE.sub(lambda m: m.group(1).upper(), key)
            if camel in known and camel not in src:
                cx.note("proto_field_name_read", child(at, key))
                name = camel
        if name not in known:
            cx.note("dropped_unknown_member", child(at, key))
        elif item is None:
            cx.note("null_member_dropped", child(at, key))
        else:
            out[name] = item
    return out


def need(src: JsonObj, keys: Sequence[str], at: str) -> None:
    for key in keys:
        if key not in src:
            raise TranslationError(child(at, key), "required member is missing")


def copy_checked(src: JsonObj, dst: JsonObj, spec: Mapping[str, Check], at: str,
                 rename: Mapping[str, str] | None = None) -> None:
    """Copy every present member named in `spec` after its type check, renamed by `rename`."""
    for key, check in spec.items():
        if key in src:
            dst[(rename or {}).get(key, key)] = check(src[key], child(at, key))


def fill(dst: JsonObj, defaults: Mapping[str, Callable[[], Any]], cx: Cx, at: str) -> None:
    """Give members the v0.3 JSON schema requires their ProtoJSON default value (noted)."""
    for key, make in defaults.items():
        if key not in dst:
            cx.note("required_member_defaulted", child(at, key))
            dst[key] = make()


_DISAGREE = object()


def union(cx: Cx, own: Reader | None, other: Reader | None, other_paths: Sequence[str],
          default: Reader) -> Any:
    """Resolve one slot of a union ("hybrid") card, which carries the members of both versions (as
    a2a-python serves it): the input version's members (`own`) win; the other version's duplicates are
    noted only when they say something else. When only the other version's members are present they
    are used (noted)."""
    if own is not None:
        value = own(cx)
        if other is not None and _shadow(other, cx) != value:
            for path in other_paths:
                cx.note("union_member_ignored", path)
        return value
    if other is not None:
        for path in other_paths:
            cx.note("union_member_used", path)
        return other(cx)
    return default(cx)


def _shadow(read: Reader, cx: Cx) -> Any:
    """The value an ignored member would have had, with its own notes discarded; a member that does
    not even parse simply disagrees."""
    try:
        return read(Cx(quirks=cx.quirks, tenant=cx.tenant))
    except TranslationError:
        return _DISAGREE
