"""Message, written once against a v0.3 `DialectSpec` (kind tag, role tables, the parts member, empty
ids), with the fast paths of v0.3 JSON-RPC messages. It does not reach into Task or its status."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import gateway.core.translate.parts as parts
from gateway.core.dialects import V03_SPECS, V03RPC_SPEC, V10_ROLE_BY_NUMBER, DialectSpec
from gateway.core.errors import TranslationError
from gateway.core.notes import Cx
from gateway.core.translate.registry import Family, FastPath, Table, Translator
from gateway.core.translate.shape import drop_unknown, obj, strings
from gateway.core.types import V03RPC, V10, Dialect, JsonObj

Copier = Callable[[JsonObj, JsonObj, str], None]

_COMMON = ("messageId", "contextId", "taskId", "role", "metadata", "extensions")
_V10_KNOWN = frozenset((*_COMMON, "parts", "referenceTaskIds"))
# the optional members, with their JSON type
_OPTIONAL = (("contextId", str), ("taskId", str), ("metadata", dict), ("extensions", list),
             ("referenceTaskIds", list))


def _message_id(msg: JsonObj, at: str) -> str:
    mid = msg.get("messageId")
    if type(mid) is not str:
        raise TranslationError(f"{at}.messageId", "required string member is missing or not a string")
    return mid


def _copier(spec: DialectSpec) -> Copier:
    """Copies the optional members a v0.3 message of `spec` shares with v1.0, type-checked."""
    keys = tuple((key, kind) for key, kind in _OPTIONAL if key not in spec.message_gaps)
    drops_empty = spec.drops_empty_ids

    def copy_optional(msg: JsonObj, out: JsonObj, at: str) -> None:
        for key, kind in keys:
            value = msg.get(key)
            if value is None:
                continue
            if kind is str:
                if type(value) is not str:
                    raise TranslationError(f"{at}.{key}", "expected a string")
                if drops_empty and not value:   # the proto3 default: unset
                    continue
            elif kind is list:
                value = strings(value, f"{at}.{key}")
            elif type(value) is not dict:
                obj(value, f"{at}.{key}")
            out[key] = value
    return copy_optional


def to_v10(spec: DialectSpec, parts_fn: parts.PartsFn, copy_optional: Copier) -> Translator:
    """A v0.3 message of `spec` as a v1.0 message (the full path: every check, every note)."""
    kind_tags, member, roles, enum_numbers = spec.kind_tags, spec.message_parts, spec.roles_to_v10, spec.protojson
    known = frozenset((*_COMMON, member, *(k for k in ("referenceTaskIds",) if k not in spec.message_gaps),
                       *(("kind",) if kind_tags else ())))
    parts_required = not spec.protojson   # ProtoJSON omits an empty list

    def convert(msg: Any, cx: Cx, at: str) -> JsonObj:
        msg = obj(msg, at)
        if kind_tags:
            kind = msg.get("kind", "message")
            if kind != "message":
                raise TranslationError(f"{at}.kind", f"expected 'message', got {kind!r}")
        drop_unknown(msg, known, cx, at)
        mid = _message_id(msg, at)
        role = msg.get("role")
        if enum_numbers and type(role) is int:
            role = V10_ROLE_BY_NUMBER.get(role, role)
        found = roles.get(role) if type(role) is str else None
        if found is None and role is None and cx.lenient:   # as the SDKs' converters read it
            cx.note("role_defaulted", f"{at}.role", "ROLE_UNSPECIFIED")
            found = "ROLE_UNSPECIFIED"
        if found is None:
            raise TranslationError(f"{at}.role", f"unknown role {role!r}")
        if member in msg:
            items = msg[member]
        elif parts_required:
            raise TranslationError(f"{at}.{member}", "required member is missing")
        else:
            items = []
        out: JsonObj = {"messageId": mid, "role": found, "parts": parts_fn(items, cx, at)}
        if not out["parts"]:   # v1.0 requires at least one part: an empty text part keeps the message valid
            cx.note("empty_parts_filled", f"{at}.{member}", "v1.0 needs at least one part")
            out["parts"] = [{"text": ""}]
        copy_optional(msg, out, at)
        return out

    return convert


def from_v10(spec: DialectSpec, parts_fn: parts.PartsFn, copy_optional: Copier) -> Translator:
    """A v1.0 message as a v0.3 message of `spec` (the full path)."""
    tag, member, roles, gaps = spec.kind_tags, spec.message_parts, spec.roles_from_v10, spec.message_gaps
    fill_parts = not spec.protojson   # the v0.3 JSON schema requires `parts`

    def convert(msg: Any, cx: Cx, at: str) -> JsonObj:
        msg = obj(msg, at)
        drop_unknown(msg, _V10_KNOWN, cx, at)
        out: JsonObj = {"kind": "message"} if tag else {}
        out["messageId"] = _message_id(msg, at)
        out["role"] = _role_from_v10(msg, roles, cx, at)
        if "parts" in msg:
            out[member] = parts_fn(msg["parts"], cx, at)
        elif fill_parts:
            cx.note("filled_required", f"{at}.parts")
            out[member] = []
        copy_optional(msg, out, at)
        for key in gaps:
            if key in msg:
                cx.note("field_dropped", f"{at}.{key}", "no slot in the v0.3 proto")
        return out

    return convert


def _role_from_v10(msg: JsonObj, table: Mapping[str, str], cx: Cx, at: str) -> str:
    role = msg.get("role")
    if type(role) is int:
        role = V10_ROLE_BY_NUMBER.get(role, role)
    found = table.get(role) if type(role) is str else None
    if found is None:
        if role is not None and role != "ROLE_UNSPECIFIED":
            raise TranslationError(f"{at}.role", f"unknown role {role!r}")
        cx.note("role_defaulted", f"{at}.role", "agent")
        return table["ROLE_AGENT"]
    return found


# ---- the fast paths: v0.3 JSON-RPC messages of the common valid shape ----------------------------------
# The common valid shape is rewritten inline (members read by index: a miss is an exception, free in
# 3.11 until raised); anything else takes the full translator, which alone notes and raises. A lone
# plain text part is rewritten here too: calling the parts-list fast path for it costs ~5% of a
# message/send translation (instruction counts).

def _fast_to_v10(spec: DialectSpec, full: Translator, parts_fn: parts.PartsFn, copy_optional: Copier) -> Translator:
    roles = spec.roles_to_v10
    known = frozenset((*_COMMON, "kind", "parts", "referenceTaskIds"))

    def convert(msg: Any, cx: Cx, at: str) -> Any:
        try:
            mid, role, items = msg["messageId"], roles[msg["role"]], msg["parts"]
        except (KeyError, TypeError):  # not an object, a member missing, an unknown or unhashable role
            return full(msg, cx, at)
        more = len(msg) - 3  # members beyond messageId, role, parts
        if "kind" in msg:
            if msg["kind"] != "message":
                return full(msg, cx, at)
            more -= 1
        if type(mid) is not str or type(items) is not list or not items or (more and not known.issuperset(msg)):
            return full(msg, cx, at)
        if len(items) == 1 and type(p := items[0]) is dict and len(p) == 2 and p.get("kind") == "text" \
                and type(text := p.get("text")) is str:
            out: JsonObj = {"messageId": mid, "role": role, "parts": [{"text": text}]}
        else:
            out = {"messageId": mid, "role": role, "parts": parts_fn(items, cx, at)}
        if more:
            _optional(msg, out, at, more, copy_optional)
        return out

    return convert


def _fast_from_v10(spec: DialectSpec, full: Translator, parts_fn: parts.PartsFn, copy_optional: Copier) -> Translator:
    roles = spec.roles_from_v10

    def convert(msg: Any, cx: Cx, at: str) -> Any:
        try:
            mid, role, items = msg["messageId"], roles[msg["role"]], msg["parts"]
        except (KeyError, TypeError):
            return full(msg, cx, at)
        more = len(msg) - 3  # members beyond messageId, role, parts
        if type(mid) is not str or type(items) is not list or (more and not _V10_KNOWN.issuperset(msg)):
            return full(msg, cx, at)
        if len(items) == 1 and type(p := items[0]) is dict and len(p) == 1 and type(text := p.get("text")) is str:
            out: JsonObj = {"kind": "message", "messageId": mid, "role": role,
                            "parts": [{"kind": "text", "text": text}]}
        else:
            out = {"kind": "message", "messageId": mid, "role": role, "parts": parts_fn(items, cx, at)}
        if more:
            _optional(msg, out, at, more, copy_optional)
        return out

    return convert


def _optional(msg: JsonObj, out: JsonObj, at: str, more: int, copy_optional: Copier) -> None:
    """`more` is how many members the message has beyond the required ones: a lone contextId, the
    usual one, is copied at once."""
    context_id = msg.get("contextId")
    if more == 1 and type(context_id) is str:
        out["contextId"] = context_id
    else:
        copy_optional(msg, out, at)


def _build() -> tuple[dict[tuple[Dialect, Dialect], Translator], tuple[FastPath, ...]]:
    full: dict[tuple[Dialect, Dialect], Translator] = {}
    for spec in V03_SPECS:
        copy_optional = _copier(spec)
        full[(spec.dialect, V10)] = to_v10(spec, parts.parts_to_v10(spec.dialect, spec.message_parts), copy_optional)
        full[(V10, spec.dialect)] = from_v10(spec, parts.parts_from_v10(spec.dialect), copy_optional)
    rpc, copy_rpc = V03RPC_SPEC, _copier(V03RPC_SPEC)
    fast = (
        FastPath(Family.MESSAGE, V03RPC, V10, _fast_to_v10(rpc, full[(V03RPC, V10)], parts.parts_to_v10(V03RPC),
                                                           copy_rpc), full[(V03RPC, V10)]),
        FastPath(Family.MESSAGE, V10, V03RPC, _fast_from_v10(rpc, full[(V10, V03RPC)], parts.parts_from_v10(V03RPC),
                                                             copy_rpc), full[(V10, V03RPC)]),
    )
    return full, fast


_FULL, FAST_PATHS = _build()
TRANSLATORS: Table = {Family.MESSAGE: _FULL}
# what the other families call: the fast path where one stands in front of the full translator
_ENTRY = {**_FULL, **{(path.src, path.dst): path.fast for path in FAST_PATHS}}
TO_V10: dict[Dialect, Translator] = {spec.dialect: _ENTRY[(spec.dialect, V10)] for spec in V03_SPECS}
FROM_V10: dict[Dialect, Translator] = {spec.dialect: _ENTRY[(V10, spec.dialect)] for spec in V03_SPECS}
