"""The compact form of an A2UI surface log: its last `createSurface`, one `updateComponents`
merged by component id and one root `updateDataModel`; any log it cannot fold exactly is kept as it is."""

from __future__ import annotations

import itertools
from typing import Any

import gateway.core.jsoncodec as jsoncodec
from gateway.core.agui.a2ui import CREATE_OP, DELETE_OP, op_of
from gateway.core.types import JsonObj

COMPONENTS_OP = "updateComponents"
DATA_OP = "updateDataModel"
# message `version` → whether `value: null` deletes (v1.0) or an absent `value` does (v0.9, v0.10); messages
# without a version (None) are folded only when neither question arises
_NULL_DELETES: dict[str | None, bool | None] = {"v0.9": False, "v0.10": False, "v1.0": True, None: None}
_BODY_KEYS = {COMPONENTS_OP: frozenset({"surfaceId", "components"}),
              DATA_OP: frozenset({"surfaceId", "path", "value"})}
_NUMBER_START = tuple("0123456789+-.\ufeff")   # with whitespace: how strings JavaScript's Number() reads start
_MISSING = object()


class _Unsafe(Exception):
    """The log holds something the fold cannot reproduce exactly."""


# One SSE event stays below this: @ag-ui/client rejects events over 10 MiB, and with them the whole run.
MAX_SNAPSHOT_BYTES = 8 * 1024 * 1024


def for_snapshot(ops: list[JsonObj], mode: str, above_bytes: int,
                 limit: int = MAX_SNAPSHOT_BYTES) -> list[JsonObj] | None:
    """The operations a surface snapshot carries: compact in `compact` mode or when the log's JSON is
    larger than `above_bytes`, else the log; None when even that is larger than `limit`."""
    if mode != "compact" and len(jsoncodec.dumpb(ops)) <= min(above_bytes, limit):
        return ops
    folded = fold(ops)
    return folded if len(jsoncodec.dumpb(folded)) <= limit else None


def fold(ops: list[JsonObj]) -> list[JsonObj]:
    """The compact form of one surface's log: the last `createSurface` (v1.0: without its `components`
    and `dataModel`, folded into the rest), then, when there are any, its components merged by `id`
    (a later definition replaces an earlier one where that first stood) and its data model built
    by applying each `updateDataModel` in order at `path: "/"`, every message with the log's `version`.
    Returned as it is: a log ending with `deleteSurface`, v0.8 logs, and anything not foldable
    exactly (unknown or extra members, mixed versions or surfaces, no `createSurface`, bad paths,
    array holes, deletes the version does not define)."""
    if not ops or op_of(ops[-1]) == DELETE_OP:
        return ops
    try:
        return _fold(ops)
    except (_Unsafe, RecursionError):
        return ops


def _fold(ops: list[JsonObj]) -> list[JsonObj]:
    start = max((i for i, m in enumerate(ops) if op_of(m) == CREATE_OP), default=None)
    if start is None:
        raise _Unsafe("no createSurface: the data model before the log is unknown")
    version = _version(ops[start])
    if version not in _NULL_DELETES:
        raise _Unsafe(f"unknown message version {version!r}")
    null_deletes = _NULL_DELETES[version]
    if set(ops[start]) - {"version", CREATE_OP}:
        raise _Unsafe("extra members beside createSurface")
    create = dict(ops[start][CREATE_OP])
    sid = create.get("surfaceId")
    if type(sid) is not str:
        raise _Unsafe("createSurface without a surfaceId")
    components: dict[str, JsonObj] = {}
    model: Any = {}
    touched = False
    if version == "v1.0":
        if "components" in create:
            _merge(components, create.pop("components"))
        if "dataModel" in create:
            model, touched = _copy(create.pop("dataModel")), True
            if type(model) is not dict:
                raise _Unsafe("createSurface.dataModel is not an object")
    elif "components" in create or "dataModel" in create:
        raise _Unsafe("components or dataModel in a pre-v1.0 createSurface")
    for message in ops[start + 1:]:
        op = op_of(message)
        if op not in _BODY_KEYS or _version(message) != version or set(message) - {"version", op}:
            raise _Unsafe(f"cannot fold {message!r}")
        body = message[op]
        if body.get("surfaceId") != sid or set(body) - _BODY_KEYS[op]:
            raise _Unsafe(f"cannot fold {message!r}")
        if op == COMPONENTS_OP:
            _merge(components, body.get("components"))
        else:
            model, touched = _update(model, body, null_deletes), True
    out = [_message(version, CREATE_OP, create)]
    if components:
        out.append(_message(version, COMPONENTS_OP, {"surfaceId": sid, "components": list(components.values())}))
    if touched:
        out.append(_message(version, DATA_OP, {"surfaceId": sid, "path": "/", "value": model}))
    return out


def _version(message: JsonObj) -> str | None:
    if "version" in message and type(message["version"]) is not str:
        raise _Unsafe("version is not a string")
    return message.get("version")


def _message(version: str | None, op: str, body: JsonObj) -> JsonObj:
    return {op: body} if version is None else {"version": version, op: body}


def _merge(components: dict[str, JsonObj], new: Any) -> None:
    if type(new) is not list or not new:
        raise _Unsafe("components is not a non-empty list")
    for component in new:
        if type(component) is not dict or type(component.get("id")) is not str:
            raise _Unsafe("a component without a string id")
        components[component["id"]] = component


# ---- the data model: A2UI JSON Pointer rules (a2ui renderer guide: auto-vivification, deletes) ----------

def _update(model: Any, body: JsonObj, null_deletes: bool | None) -> Any:
    """`model` after one `updateDataModel` body; `value` is copied so later updates never reach into the log."""
    tokens = _pointer(body.get("path", "/"))
    present = "value" in body
    if null_deletes is None and (not present or body["value"] is None):
        raise _Unsafe("a delete, or a null value, in a message without a version")
    if null_deletes and not present:
        raise _Unsafe("v1.0 updateDataModel without value")
    delete = body["value"] is None if null_deletes else not present
    if not tokens:
        if delete:
            raise _Unsafe("deleting the whole data model")
        return _copy(body["value"])
    node = model
    for token, following in itertools.pairwise(tokens):
        node = _child(node, token, following, create=not delete)
    if delete:
        if type(node) is not dict:
            raise _Unsafe("deleting from an array leaves a hole")
        node.pop(tokens[-1], None)
    else:
        _put(node, tokens[-1], _copy(body["value"]))
    return model


def _pointer(path: Any) -> list[str]:
    if type(path) is not str or not path.startswith("/"):
        raise _Unsafe(f"path {path!r} is not an absolute JSON Pointer")
    if path == "/":
        return []
    tokens = path[1:].split("/")
    for token in tokens:
        if not token or "~" in token.replace("~0", "").replace("~1", ""):
            raise _Unsafe(f"path {path!r} has an empty or badly escaped segment")
    return [t.replace("~1", "/").replace("~0", "~") for t in tokens]


def _index(token: str, size: int) -> int:
    """A list position that is an element or the end (append); anything else is a hole or not an index."""
    if not (token.isascii() and token.isdigit()) or len(token) > len(str(size)) or token != str(int(token)):
        raise _Unsafe(f"{token!r} is not an array index")
    if int(token) > size:
        raise _Unsafe(f"index {token} leaves a hole")
    return int(token)


def _child(node: Any, token: str, following: str, *, create: bool) -> Any:
    """The container at `token` in `node`; a missing one is made when `create` (an array when the next
    segment is an index, else an object), never when deleting (renderers differ on that)."""
    if type(node) is dict:
        child = node.get(token, _MISSING)
    elif type(node) is list:
        index = _index(token, len(node))
        child = node[index] if index < len(node) else _MISSING
    else:
        raise _Unsafe(f"path goes through a {type(node).__name__}")
    if child is not _MISSING:
        if type(child) not in (dict, list):
            raise _Unsafe(f"path goes through a {type(child).__name__}")
        return child
    if not create:
        raise _Unsafe("deleting below something missing")
    if following.isascii() and following.isdigit():
        fresh: Any = []
    elif following.startswith(_NUMBER_START) or following[0].isspace() or following == "Infinity":
        raise _Unsafe(f"{following!r} reads as a number to some renderers")
    else:
        fresh = {}
    _put(node, token, fresh)
    return fresh


def _put(node: Any, token: str, value: Any) -> None:
    if type(node) is dict:
        node[token] = value
    elif type(node) is list:
        index = _index(token, len(node))
        if index == len(node):
            node.append(value)
        else:
            node[index] = value
    else:
        raise _Unsafe(f"path goes through a {type(node).__name__}")


def _copy(value: Any) -> Any:
    if type(value) is dict:
        return {k: _copy(v) for k, v in value.items()}
    if type(value) is list:
        return [_copy(v) for v in value]
    return value
