"""Message in every dialect: the `kind` tag, roles through the enum tables, parts through
`parts`, `content` (v0.3 REST) vs `parts`. It does not reach into Task or its status."""

from __future__ import annotations

from typing import Any

from gateway.core.errors import TranslationError
from gateway.core.notes import Cx
from gateway.core.translate import enums, parts
from gateway.core.translate.registry import register
from gateway.core.translate.shape import arr, drop_unknown, obj, strings
from gateway.core.types import Dialect, JsonObj

_COMMON = ("messageId", "contextId", "taskId", "role", "metadata", "extensions")
_RPC_KNOWN = frozenset((*_COMMON, "kind", "parts", "referenceTaskIds"))
_REST_KNOWN = frozenset((*_COMMON, "content"))
_V10_KNOWN = frozenset((*_COMMON, "parts", "referenceTaskIds"))

PartFn = Any


def parts_of(items: Any, fn: PartFn, cx: Cx, at: str) -> list[JsonObj]:
    if type(items) is not list:
        arr(items, at)
    return [fn(p, cx, f"{at}[{i}]") for i, p in enumerate(items)]


# Text parts are most parts (of messages and artifacts): a plain one is rewritten inline, anything else
# takes the full path (tests/core/test_fastpath.py holds both equal).
def rpc_parts_to_v10(items: Any, cx: Cx, at: str) -> list[JsonObj]:
    """`at` is the owner's path (message or artifact); a part's own is built only when it takes the full path."""
    if type(items) is not list:
        arr(items, f"{at}.parts")
    return [{"text": p["text"]} if type(p) is dict and len(p) == 2 and p.get("kind") == "text"
            and type(p.get("text")) is str else parts.rpc_to_v10(p, cx, f"{at}.parts[{i}]")
            for i, p in enumerate(items)]


def rpc_parts_from_v10(items: Any, cx: Cx, at: str) -> list[JsonObj]:
    """`at` is the owner's path (message or artifact); a part's own is built only when it takes the full path."""
    if type(items) is not list:
        arr(items, f"{at}.parts")
    return [{"kind": "text", "text": p["text"]} if type(p) is dict and len(p) == 1 and type(p.get("text")) is str
            else parts.rpc_from_v10(p, cx, f"{at}.parts[{i}]") for i, p in enumerate(items)]


def _copy_ids(src: JsonObj, out: JsonObj, at: str, *, drop_empty: bool) -> None:
    for key in ("contextId", "taskId"):
        value = src.get(key)
        if type(value) is str:
            if value or not drop_empty:
                out[key] = value
        elif value is not None:
            raise TranslationError(f"{at}.{key}", "expected a string")


def _copy_tail(src: JsonObj, out: JsonObj, at: str, keys: tuple[str, ...]) -> None:
    md = src.get("metadata")
    if md is not None:
        out["metadata"] = md if type(md) is dict else obj(md, f"{at}.metadata")
    for key in keys:
        if key in src:
            out[key] = strings(src[key], f"{at}.{key}")


def _message_id(msg: JsonObj, at: str) -> str:
    mid = msg.get("messageId")
    if type(mid) is not str:
        raise TranslationError(f"{at}.messageId", "required string member is missing or not a string")
    return mid


def _role_to_v10(msg: JsonObj, table: dict[str, str], at: str) -> str:
    role = msg.get("role")
    found = table.get(role) if type(role) is str else None
    if found is not None:
        return found
    raise TranslationError(f"{at}.role", f"unknown role {role!r}")


def _role_from_v10(msg: JsonObj, table: dict[str, str], cx: Cx, at: str) -> str:
    role = msg.get("role")
    if type(role) is int:
        role = enums.V10_ROLE_BY_NUMBER.get(role, role)
    found = table.get(role) if type(role) is str else None
    if found is None:
        if role is not None and role != "ROLE_UNSPECIFIED":
            raise TranslationError(f"{at}.role", f"unknown role {role!r}")
        cx.note("role_defaulted", f"{at}.role", "agent")
        return table["ROLE_AGENT"]
    return found


def _v10_parts(msg: JsonObj, cx: Cx, at: str) -> Any:
    if "parts" not in msg:
        cx.note("filled_required", f"{at}.parts")
        return []
    return msg["parts"]


# ---- v0.3 JSON-RPC --------------------------------------------------------------------------------

def _optional(msg: JsonObj, out: JsonObj, at: str, more: int) -> None:
    """Copy the optional members (ids, metadata, string lists) with their type checks; `more` is how
    many members the message has beyond the required ones (a lone contextId, the usual one, is quick)."""
    context_id = msg.get("contextId")
    if more == 1 and type(context_id) is str:
        out["contextId"] = context_id
        return
    for key, kind in _OPTIONAL:
        value = msg.get(key)
        if value is None:
            continue
        if type(value) is not kind:
            raise TranslationError(f"{at}.{key}", f"expected {'a string' if kind is str else kind.__name__}")
        out[key] = value if kind is not list else strings(value, f"{at}.{key}")


_OPTIONAL = (("contextId", str), ("taskId", str), ("metadata", dict), ("extensions", list),
             ("referenceTaskIds", list))


def rpc_to_v10(msg: Any, cx: Cx, at: str) -> JsonObj:
    """The common valid shape is rewritten inline (members read by index: a miss is an exception, free
    in 3.11 until raised); anything else takes `_rpc_to_v10_full`, which alone notes and raises."""
    try:
        mid, role, items = msg["messageId"], _ROLE_TO_V10[msg["role"]], msg["parts"]
    except (KeyError, TypeError):  # not an object, a member missing, an unknown or unhashable role
        return _rpc_to_v10_full(msg, cx, at)
    more = len(msg) - 3  # members beyond messageId, role, parts
    if "kind" in msg:
        if msg["kind"] != "message":
            return _rpc_to_v10_full(msg, cx, at)
        more -= 1
    if type(mid) is not str or type(items) is not list or (more and not _RPC_KNOWN.issuperset(msg)):
        return _rpc_to_v10_full(msg, cx, at)
    if len(items) == 1 and type(p := items[0]) is dict and len(p) == 2 and p.get("kind") == "text" \
            and type(text := p.get("text")) is str:
        out: JsonObj = {"messageId": mid, "role": role, "parts": [{"text": text}]}
    else:
        out = {"messageId": mid, "role": role, "parts": rpc_parts_to_v10(items, cx, at)}
    if more:
        _optional(msg, out, at, more)
    return out


def _rpc_to_v10_full(msg: Any, cx: Cx, at: str) -> JsonObj:
    msg = obj(msg, at)
    kind = msg.get("kind", "message")
    if kind != "message":
        raise TranslationError(f"{at}.kind", f"expected 'message', got {kind!r}")
    drop_unknown(msg, _RPC_KNOWN, cx, at)
    mid = _message_id(msg, at)
    role = _role_to_v10(msg, enums.ROLE_TO_V10, at)
    if "parts" not in msg:
        raise TranslationError(f"{at}.parts", "required member is missing")
    out: JsonObj = {"messageId": mid, "role": role, "parts": rpc_parts_to_v10(msg["parts"], cx, at)}
    _optional(msg, out, at, len(msg))
    return out


def rpc_from_v10(msg: Any, cx: Cx, at: str) -> JsonObj:
    """As `rpc_to_v10`: the common valid shape inline, anything else through `_rpc_from_v10_full`."""
    try:
        mid, role, items = msg["messageId"], _ROLE_FROM_V10[msg["role"]], msg["parts"]
    except (KeyError, TypeError):
        return _rpc_from_v10_full(msg, cx, at)
    more = len(msg) - 3  # members beyond messageId, role, parts
    if type(mid) is not str or type(items) is not list or (more and not _V10_KNOWN.issuperset(msg)):
        return _rpc_from_v10_full(msg, cx, at)
    if len(items) == 1 and type(p := items[0]) is dict and len(p) == 1 and type(text := p.get("text")) is str:
        out: JsonObj = {"kind": "message", "messageId": mid, "role": role, "parts": [{"kind": "text", "text": text}]}
    else:
        out = {"kind": "message", "messageId": mid, "role": role, "parts": rpc_parts_from_v10(items, cx, at)}
    if more:
        _optional(msg, out, at, more)
    return out


def _rpc_from_v10_full(msg: Any, cx: Cx, at: str) -> JsonObj:
    msg = obj(msg, at)
    drop_unknown(msg, _V10_KNOWN, cx, at)
    out: JsonObj = {
        "kind": "message",
        "messageId": _message_id(msg, at),
        "role": _role_from_v10(msg, enums.ROLE_FROM_V10, cx, at),
        "parts": rpc_parts_from_v10(_v10_parts(msg, cx, at), cx, at),
    }
    _optional(msg, out, at, len(msg))
    return out


_ROLE_TO_V10, _ROLE_FROM_V10 = enums.ROLE_TO_V10, enums.ROLE_FROM_V10


# ---- v0.3 REST ------------------------------------------------------------------------------------

_REST_ROLE_TO_V10 = {"ROLE_USER": "ROLE_USER", "ROLE_AGENT": "ROLE_AGENT"}
_REST_ROLE_FROM_V10 = _REST_ROLE_TO_V10


def rest_to_v10(msg: Any, cx: Cx, at: str) -> JsonObj:
    msg = obj(msg, at)
    drop_unknown(msg, _REST_KNOWN, cx, at)
    role = msg.get("role")
    if type(role) is int:
        role = enums.V10_ROLE_BY_NUMBER.get(role, role)
    out: JsonObj = {"messageId": _message_id(msg, at),
                    "role": _role_to_v10({"role": role}, _REST_ROLE_TO_V10, at)}
    out["parts"] = parts_of(msg.get("content", []), parts.rest_to_v10, cx, f"{at}.content")
    _copy_ids(msg, out, at, drop_empty=True)
    _copy_tail(msg, out, at, ("extensions",))
    return out


def rest_from_v10(msg: Any, cx: Cx, at: str) -> JsonObj:
    msg = obj(msg, at)
    drop_unknown(msg, _V10_KNOWN, cx, at)
    out: JsonObj = {
        "messageId": _message_id(msg, at),
        "role": _role_from_v10(msg, _REST_ROLE_FROM_V10, cx, at),
    }
    if "parts" in msg:
        out["content"] = parts_of(msg["parts"], parts.rest_from_v10, cx, f"{at}.parts")
    _copy_ids(msg, out, at, drop_empty=True)
    if "referenceTaskIds" in msg:
        cx.note("field_dropped", f"{at}.referenceTaskIds", "no slot in the v0.3 proto")
    _copy_tail(msg, out, at, ("extensions",))
    return out


register({"message": {
    (Dialect.V03RPC, Dialect.V10): rpc_to_v10,
    (Dialect.V10, Dialect.V03RPC): rpc_from_v10,
    (Dialect.V03REST, Dialect.V10): rest_to_v10,
    (Dialect.V10, Dialect.V03REST): rest_from_v10,
}})
