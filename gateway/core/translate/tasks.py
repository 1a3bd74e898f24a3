"""Task, TaskStatus (states through the enum tables, timestamps to RFC 3339 UTC) and Artifact in
every dialect. History and status messages go through `messages`, artifact parts through `parts`."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from gateway.core.errors import TranslationError
from gateway.core.notes import Cx
from gateway.core.translate import enums, messages, parts
from gateway.core.translate.registry import register
from gateway.core.translate.shape import arr, drop_unknown, obj, strings
from gateway.core.types import Dialect, JsonObj

Fn = Callable[[Any, Cx, str], JsonObj]

CANONICAL_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z")  # kept as is
_TIMESTAMP = re.compile(r"(\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d:\d\d)(\.\d+)?([Zz]|[+-]\d\d:?\d\d)?")


def timestamp_to_v10(value: Any, cx: Cx, at: str) -> str:
    """RFC 3339 in UTC with `Z`: naive values are taken as UTC, offsets converted (wire-mapping §4.0)."""
    if type(value) is not str:
        raise TranslationError(at, "expected a timestamp string")
    if CANONICAL_TIMESTAMP.fullmatch(value):
        return value
    m = _TIMESTAMP.fullmatch(value)
    if m is None:
        raise TranslationError(at, f"not an ISO 8601 date-time: {value!r}")
    base, frac, zone = m.group(1), m.group(2) or "", m.group(3)
    if zone == "Z" and base[10] == "T":
        return value
    if zone is None or zone in ("Z", "z"):
        cx.note("timestamp_normalized", at, "naive, taken as UTC" if zone is None else "spelling")
        return f"{base[:10]}T{base[11:]}{frac}Z"
    try:
        local = datetime.fromisoformat(f"{base[:10]}T{base[11:]}{zone}")
    except ValueError:
        raise TranslationError(at, f"not an ISO 8601 date-time: {value!r}") from None
    utc = local.astimezone(UTC) if local.utcoffset() != timedelta(0) else local
    cx.note("timestamp_normalized", at, "offset converted to UTC")
    return f"{utc.strftime('%Y-%m-%dT%H:%M:%S')}{frac}Z"


# ---- TaskStatus -----------------------------------------------------------------------------------

_STATUS_KNOWN = frozenset(("state", "message", "timestamp"))


def _state_to_v10(state: Any, table: dict[str, str], cx: Cx, at: str) -> str:
    if type(state) is int and state in enums.V10_STATE_BY_NUMBER:  # ProtoJSON enum number
        cx.note("state_coerced", at, str(state))
        return enums.V10_STATE_BY_NUMBER[state]
    found = table.get(state) if type(state) is str else None
    if found is not None:
        return found
    if type(state) is not str:
        raise TranslationError(at, "expected a task state string")
    if state in enums.V10_STATE_NUMBER:  # a v1.0 spelling from a lenient v0.3 peer
        cx.note("state_coerced", at, state)
        return state
    cx.note("unknown_state", at, state)
    return "TASK_STATE_UNSPECIFIED"


def _state_from_v10(state: Any, table: dict[str, str], cx: Cx, at: str) -> str:
    if type(state) is int:
        state = enums.V10_STATE_BY_NUMBER.get(state, state)
    found = table.get(state) if type(state) is str else None
    if found is not None:
        return found
    alias = enums.STATE_ALIASES_V10.get(state) if type(state) is str else None
    cx.note("unknown_state" if alias is None else "state_coerced", at, str(state))
    return table[alias or "TASK_STATE_UNSPECIFIED"]


def _status(states: dict[str, str], msg_fn: Fn, to_v10: bool) -> Fn:
    """The TaskStatus translator of one direction and dialect, its tables bound once."""
    state_fn = _state_to_v10 if to_v10 else _state_from_v10

    def convert(status: Any, cx: Cx, at: str) -> JsonObj:
        if type(status) is not dict:
            status = obj(status, at)
        if not _STATUS_KNOWN.issuperset(status):
            drop_unknown(status, _STATUS_KNOWN, cx, at)
        state = status.get("state")
        mapped = states.get(state) if type(state) is str else None
        out: JsonObj = {"state": mapped if mapped is not None else state_fn(state, states, cx, f"{at}.state")}
        message = status.get("message")
        if message is not None:
            out["message"] = msg_fn(message, cx, at + ".message")
        ts = status.get("timestamp")
        if ts is not None:
            if to_v10:
                out["timestamp"] = timestamp_to_v10(ts, cx, at + ".timestamp")
            elif type(ts) is str:
                out["timestamp"] = ts
            else:
                raise TranslationError(f"{at}.timestamp", "expected a timestamp string")
        return out
    return convert


def _ts_passthrough(value: Any, at: str) -> str:
    if type(value) is not str:
        raise TranslationError(at, "expected a timestamp string")
    return value


status_rpc_to_v10 = _status(enums.STATE_TO_V10, messages.rpc_to_v10, True)
status_rpc_from_v10 = _status(enums.STATE_FROM_V10, messages.rpc_from_v10, False)
status_rest_to_v10 = _status(enums.REST_STATE_TO_V10, messages.rest_to_v10, True)
status_rest_from_v10 = _status(enums.REST_STATE_FROM_V10, messages.rest_from_v10, False)


# ---- Artifact -------------------------------------------------------------------------------------

_ARTIFACT_KNOWN = frozenset(("artifactId", "name", "description", "parts", "metadata", "extensions"))


PartsFn = Callable[[Any, Cx, str], list[JsonObj]]   # (parts, cx, the owner's path) -> parts


def _rest_parts(part_fn: Fn) -> PartsFn:
    return lambda items, cx, at: messages.parts_of(items, part_fn, cx, f"{at}.parts")


def _artifact(art: Any, cx: Cx, at: str, parts_fn: PartsFn) -> JsonObj:
    art = obj(art, at)
    drop_unknown(art, _ARTIFACT_KNOWN, cx, at)
    aid = art.get("artifactId")
    if type(aid) is not str:
        raise TranslationError(f"{at}.artifactId", "required string member is missing or not a string")
    out: JsonObj = {"artifactId": aid}
    for key in ("name", "description"):
        if key in art:
            if type(art[key]) is not str:
                raise TranslationError(f"{at}.{key}", "expected a string")
            out[key] = art[key]
    out["parts"] = parts_fn(art.get("parts", []), cx, at)
    if art.get("metadata") is not None:
        out["metadata"] = obj(art["metadata"], f"{at}.metadata")
    if "extensions" in art:
        out["extensions"] = strings(art["extensions"], f"{at}.extensions")
    return out


def _fill_parts(out: JsonObj, cx: Cx, at: str) -> JsonObj:
    """v1.0 requires at least one part; a v0.3 artifact-update that only closes a chunk has none.
    An empty text part keeps the update (and its lastChunk) for strict v1.0 peers."""
    if not out["parts"]:
        cx.note("empty_parts_filled", f"{at}.parts", "v1.0 needs at least one part")
        out["parts"] = [{"text": ""}]
    return out


_REST_PARTS_TO_V10, _REST_PARTS_FROM_V10 = _rest_parts(parts.rest_to_v10), _rest_parts(parts.rest_from_v10)


def artifact_rpc_to_v10(art: Any, cx: Cx, at: str) -> JsonObj:
    return _fill_parts(_artifact(art, cx, at, messages.rpc_parts_to_v10), cx, at)


def artifact_rpc_from_v10(art: Any, cx: Cx, at: str) -> JsonObj:
    return _artifact(art, cx, at, messages.rpc_parts_from_v10)


def artifact_rest_to_v10(art: Any, cx: Cx, at: str) -> JsonObj:
    return _fill_parts(_artifact(art, cx, at, _REST_PARTS_TO_V10), cx, at)


def artifact_rest_from_v10(art: Any, cx: Cx, at: str) -> JsonObj:
    return _artifact(art, cx, at, _REST_PARTS_FROM_V10)


# ---- Task -----------------------------------------------------------------------------------------

_TASK_COMMON = ("id", "contextId", "status", "history", "artifacts", "metadata")
_RPC_TASK_KNOWN = frozenset((*_TASK_COMMON, "kind"))
_TASK_KNOWN = frozenset(_TASK_COMMON)


def _task(task: Any, cx: Cx, at: str, *, known: frozenset[str], status_fn: Fn, msg_fn: Fn,
          art_fn: Fn, to_rpc: bool) -> JsonObj:
    task = obj(task, at)
    drop_unknown(task, known, cx, at)
    tid = task.get("id")
    if type(tid) is not str:
        raise TranslationError(f"{at}.id", "required string member is missing or not a string")
    out: JsonObj = {"kind": "task", "id": tid} if to_rpc else {"id": tid}
    ctx = task.get("contextId")
    if ctx is None:
        if to_rpc:
            cx.note("filled_required", f"{at}.contextId")
            out["contextId"] = ""
    elif type(ctx) is not str:
        raise TranslationError(f"{at}.contextId", "expected a string")
    else:
        out["contextId"] = ctx
    if task.get("status") is None:
        cx.note("filled_required", f"{at}.status")
        out["status"] = {"state": "unknown" if to_rpc else "TASK_STATE_UNSPECIFIED"}
    else:
        out["status"] = status_fn(task["status"], cx, f"{at}.status")
    if "artifacts" in task:
        aat = f"{at}.artifacts"
        out["artifacts"] = [art_fn(a, cx, f"{aat}[{i}]") for i, a in enumerate(arr(task["artifacts"], aat))]
    if "history" in task:
        hat = f"{at}.history"
        out["history"] = [msg_fn(m, cx, f"{hat}[{i}]") for i, m in enumerate(arr(task["history"], hat))]
    if task.get("metadata") is not None:
        out["metadata"] = obj(task["metadata"], f"{at}.metadata")
    return out


def task_rpc_to_v10(task: Any, cx: Cx, at: str) -> JsonObj:
    if type(task) is dict and task.get("kind", "task") != "task":
        raise TranslationError(f"{at}.kind", f"expected 'task', got {task.get('kind')!r}")
    return _task(task, cx, at, known=_RPC_TASK_KNOWN, status_fn=status_rpc_to_v10,
                 msg_fn=messages.rpc_to_v10, art_fn=artifact_rpc_to_v10, to_rpc=False)


def task_rpc_from_v10(task: Any, cx: Cx, at: str) -> JsonObj:
    return _task(task, cx, at, known=_TASK_KNOWN, status_fn=status_rpc_from_v10,
                 msg_fn=messages.rpc_from_v10, art_fn=artifact_rpc_from_v10, to_rpc=True)


def task_rest_to_v10(task: Any, cx: Cx, at: str) -> JsonObj:
    return _task(task, cx, at, known=_TASK_KNOWN, status_fn=status_rest_to_v10,
                 msg_fn=messages.rest_to_v10, art_fn=artifact_rest_to_v10, to_rpc=False)


def task_rest_from_v10(task: Any, cx: Cx, at: str) -> JsonObj:
    return _task(task, cx, at, known=_TASK_KNOWN, status_fn=status_rest_from_v10,
                 msg_fn=messages.rest_from_v10, art_fn=artifact_rest_from_v10, to_rpc=False)


register({
    "task_status": {
        (Dialect.V03RPC, Dialect.V10): status_rpc_to_v10,
        (Dialect.V10, Dialect.V03RPC): status_rpc_from_v10,
        (Dialect.V03REST, Dialect.V10): status_rest_to_v10,
        (Dialect.V10, Dialect.V03REST): status_rest_from_v10,
    },
    "artifact": {
        (Dialect.V03RPC, Dialect.V10): artifact_rpc_to_v10,
        (Dialect.V10, Dialect.V03RPC): artifact_rpc_from_v10,
        (Dialect.V03REST, Dialect.V10): artifact_rest_to_v10,
        (Dialect.V10, Dialect.V03REST): artifact_rest_from_v10,
    },
    "task": {
        (Dialect.V03RPC, Dialect.V10): task_rpc_to_v10,
        (Dialect.V10, Dialect.V03RPC): task_rpc_from_v10,
        (Dialect.V03REST, Dialect.V10): task_rest_to_v10,
        (Dialect.V10, Dialect.V03REST): task_rest_from_v10,
    },
})
