"""Stream items in every dialect: TaskStatusUpdateEvent (with v0.3 `final`), TaskArtifactUpdateEvent,
the v1.0 `StreamResponse` oneof ⇄ the v0.3 kind-tagged result, and the SendMessage result wrapper.
It knows nothing of SSE or of when a stream ends (that is core/stream.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gateway.core.errors import TranslationError
from gateway.core.notes import Cx
from gateway.core.translate import enums, messages, tasks
from gateway.core.translate.registry import register
from gateway.core.translate.shape import drop_unknown, obj
from gateway.core.types import Dialect, JsonObj

Fn = Callable[[Any, Cx, str], JsonObj]

_STATUS_COMMON = ("taskId", "contextId", "status", "metadata")
_ARTIFACT_COMMON = ("taskId", "contextId", "artifact", "append", "lastChunk", "metadata")
_STATUS_V10 = frozenset(_STATUS_COMMON)
_STATUS_RPC = frozenset((*_STATUS_COMMON, "kind", "final"))
_STATUS_REST = frozenset((*_STATUS_COMMON, "final"))
_ARTIFACT_V10 = frozenset(_ARTIFACT_COMMON)
_ARTIFACT_RPC = frozenset((*_ARTIFACT_COMMON, "kind"))


def _ids(src: JsonObj, out: JsonObj, cx: Cx, at: str, *, fill: bool) -> None:
    for key in ("taskId", "contextId"):
        value = src.get(key)
        if value is None:
            if fill:
                cx.note("filled_required", f"{at}.{key}")
                out[key] = ""
            continue
        if type(value) is not str:
            raise TranslationError(f"{at}.{key}", "expected a string")
        out[key] = value


def _flags(src: JsonObj, out: JsonObj, keys: tuple[str, ...], at: str) -> None:
    for key in keys:
        if key in src:
            if type(src[key]) is not bool:
                raise TranslationError(f"{at}.{key}", "expected a boolean")
            out[key] = src[key]


def _metadata(src: JsonObj, out: JsonObj, at: str) -> None:
    if src.get("metadata") is not None:
        out["metadata"] = obj(src["metadata"], f"{at}.metadata")


def is_final_state(v10_state: Any) -> bool:
    """The `final` a v0.3 peer expects from the state alone (the stream layer refines interrupted states)."""
    if type(v10_state) is int:
        v10_state = enums.V10_STATE_BY_NUMBER.get(v10_state)
    return type(v10_state) is str and v10_state in enums.TERMINAL_V10


# ---- TaskStatusUpdateEvent ------------------------------------------------------------------------

def _status_to_v10(known: frozenset[str], status_fn: Fn) -> Fn:
    def convert(ev: Any, cx: Cx, at: str) -> JsonObj:
        if type(ev) is not dict:
            ev = obj(ev, at)
        kind = ev.get("kind")
        if kind is not None and kind != "status-update":  # only the JSON-RPC dialect has it
            raise TranslationError(f"{at}.kind", f"expected 'status-update', got {kind!r}")
        if not known.issuperset(ev):
            drop_unknown(ev, known, cx, at)
        task_id, context_id = ev.get("taskId"), ev.get("contextId")
        if type(task_id) is str and type(context_id) is str:
            out: JsonObj = {"taskId": task_id, "contextId": context_id}
        else:
            out = {}
            _ids(ev, out, cx, at, fill=False)
        status = ev.get("status")
        if status is None:
            raise TranslationError(f"{at}.status", "required member is missing")
        out["status"] = status = status_fn(status, cx, at + ".status")
        if "metadata" in ev:
            _metadata(ev, out, at)
        final = ev.get("final", False)
        if type(final) is not bool:
            raise TranslationError(f"{at}.final", "expected a boolean")
        if final is not (status["state"] in _TERMINAL):
            cx.note("final_dropped", f"{at}.final", "v1.0 ends streams by closing them")
        return out
    return convert


def _status_from_v10(status_fn: Fn, rpc: bool) -> Fn:
    def convert(ev: Any, cx: Cx, at: str) -> JsonObj:
        if type(ev) is not dict:
            ev = obj(ev, at)
        if not _STATUS_V10.issuperset(ev):
            drop_unknown(ev, _STATUS_V10, cx, at)
        task_id, context_id = ev.get("taskId"), ev.get("contextId")
        if type(task_id) is str and type(context_id) is str and (context_id or not rpc):
            out: JsonObj = {"kind": "status-update", "taskId": task_id, "contextId": context_id} if rpc \
                else {"taskId": task_id, "contextId": context_id}
        else:
            out = {"kind": "status-update"} if rpc else {}
            _ids(ev, out, cx, at, fill=rpc)
        status = ev.get("status")
        if type(status) is not dict:
            if status is None:
                raise TranslationError(f"{at}.status", "required member is missing")
            obj(status, f"{at}.status")
        out["status"] = status_fn(status, cx, at + ".status")
        state = status.get("state")
        final = state in _TERMINAL if type(state) is str else is_final_state(state)
        if rpc or final:  # ProtoJSON omits a false bool
            out["final"] = final
        if "metadata" in ev:
            _metadata(ev, out, at)
        return out
    return convert


_TERMINAL = enums.TERMINAL_V10
status_rpc_to_v10 = _status_to_v10(_STATUS_RPC, tasks.status_rpc_to_v10)
status_rpc_from_v10 = _status_from_v10(tasks.status_rpc_from_v10, True)
status_rest_to_v10 = _status_to_v10(_STATUS_REST, tasks.status_rest_to_v10)
status_rest_from_v10 = _status_from_v10(tasks.status_rest_from_v10, False)


# ---- TaskArtifactUpdateEvent ----------------------------------------------------------------------

def _artifact_event(ev: Any, cx: Cx, at: str, *, known: frozenset[str], art_fn: Fn, kind: bool,
                    fill: bool) -> JsonObj:
    ev = obj(ev, at)
    drop_unknown(ev, known, cx, at)
    out: JsonObj = {"kind": "artifact-update"} if kind else {}
    _ids(ev, out, cx, at, fill=fill)
    if ev.get("artifact") is None:
        raise TranslationError(f"{at}.artifact", "required member is missing")
    out["artifact"] = art_fn(ev["artifact"], cx, f"{at}.artifact")
    _flags(ev, out, ("append", "lastChunk"), at)
    _metadata(ev, out, at)
    return out


def artifact_rpc_to_v10(ev: Any, cx: Cx, at: str) -> JsonObj:
    if type(ev) is dict and ev.get("kind", "artifact-update") != "artifact-update":
        raise TranslationError(f"{at}.kind", f"expected 'artifact-update', got {ev.get('kind')!r}")
    return _artifact_event(ev, cx, at, known=_ARTIFACT_RPC,
                           art_fn=tasks.artifact_rpc_to_v10, kind=False, fill=False)


def artifact_rpc_from_v10(ev: Any, cx: Cx, at: str) -> JsonObj:
    return _artifact_event(ev, cx, at, known=_ARTIFACT_V10,
                           art_fn=tasks.artifact_rpc_from_v10, kind=True, fill=True)


def artifact_rest_to_v10(ev: Any, cx: Cx, at: str) -> JsonObj:
    return _artifact_event(ev, cx, at, known=_ARTIFACT_V10,
                           art_fn=tasks.artifact_rest_to_v10, kind=False, fill=False)


def artifact_rest_from_v10(ev: Any, cx: Cx, at: str) -> JsonObj:
    return _artifact_event(ev, cx, at, known=_ARTIFACT_V10,
                           art_fn=tasks.artifact_rest_from_v10, kind=False, fill=False)


# ---- StreamResponse / kind-tagged items -----------------------------------------------------------

# v0.3 `kind` <-> v1.0 StreamResponse member, with the translators of the payload
RPC_KIND_TO_MEMBER = {"task": "task", "message": "message", "status-update": "statusUpdate",
                      "artifact-update": "artifactUpdate"}
MEMBER_TO_RPC_KIND = {v: k for k, v in RPC_KIND_TO_MEMBER.items()}
_RPC_TO_V10: dict[str, Fn] = {
    "task": tasks.task_rpc_to_v10, "message": messages.rpc_to_v10,
    "status-update": status_rpc_to_v10, "artifact-update": artifact_rpc_to_v10,
}
_V10_TO_RPC: dict[str, Fn] = {
    "task": tasks.task_rpc_from_v10, "message": messages.rpc_from_v10,
    "statusUpdate": status_rpc_from_v10, "artifactUpdate": artifact_rpc_from_v10,
}
_REST_TO_V10: dict[str, Fn] = {
    "task": tasks.task_rest_to_v10, "message": messages.rest_to_v10,
    "statusUpdate": status_rest_to_v10, "artifactUpdate": artifact_rest_to_v10,
}
_V10_TO_REST: dict[str, Fn] = {
    "task": tasks.task_rest_from_v10, "message": messages.rest_from_v10,
    "statusUpdate": status_rest_from_v10, "artifactUpdate": artifact_rest_from_v10,
}


def infer_kind(item: JsonObj) -> str | None:
    """The kind of a v0.3 item that lacks `kind` (lenient peers; wire-mapping §5.1)."""
    if "kind" in item:
        kind = item["kind"]
        return kind if type(kind) is str and kind in RPC_KIND_TO_MEMBER else None
    if "artifact" in item and "taskId" in item:
        return "artifact-update"
    if "taskId" in item and ("final" in item or "status" in item) and "id" not in item:
        return "status-update"
    if "messageId" in item:
        return "message"
    if "id" in item and "status" in item:
        return "task"
    return None


def item_rpc_to_v10(item: Any, cx: Cx, at: str) -> JsonObj:
    if type(item) is not dict:
        item = obj(item, at)
    kind = item.get("kind")
    if type(kind) is not str or kind not in _RPC_TO_V10:
        kind = infer_kind(item)
    if kind is None:
        raise TranslationError(at, "not a Task, Message, status-update or artifact-update")
    return {RPC_KIND_TO_MEMBER[kind]: _RPC_TO_V10[kind](item, cx, at)}


def _member(wrapper: Any, allowed: dict[str, Fn], at: str, aliases: dict[str, str]) -> tuple[str, str]:
    wrapper = obj(wrapper, at)
    if len(wrapper) != 1:
        raise TranslationError(at, f"expected exactly one of {', '.join(allowed)}, got {len(wrapper)} members")
    (key,) = wrapper
    member = aliases.get(key, key)
    if member not in allowed:
        raise TranslationError(f"{at}.{key}", f"expected one of {', '.join(allowed)}")
    return key, member


_V10_ALIASES = enums.STREAM_MEMBER_ALIASES_V10
_REST_ALIASES: dict[str, str] = {"msg": "message", **_V10_ALIASES}


_DOT = {key: "." + key for key in _V10_TO_RPC}  # member path suffixes, built once


def item_rpc_from_v10(wrapper: Any, cx: Cx, at: str) -> JsonObj:
    if type(wrapper) is dict and len(wrapper) == 1:  # the common case: one known member
        for key, value in wrapper.items():
            fn = _V10_TO_RPC.get(key)
            if fn is not None:
                return fn(value, cx, at + _DOT[key])
    key, member = _member(wrapper, _V10_TO_RPC, at, _V10_ALIASES)
    return _V10_TO_RPC[member](wrapper[key], cx, f"{at}.{key}")


def item_rest_to_v10(wrapper: Any, cx: Cx, at: str) -> JsonObj:
    key, member = _member(wrapper, _REST_TO_V10, at, _REST_ALIASES)
    return {member: _REST_TO_V10[member](wrapper[key], cx, f"{at}.{key}")}


def item_rest_from_v10(wrapper: Any, cx: Cx, at: str) -> JsonObj:
    key, member = _member(wrapper, _V10_TO_REST, at, _V10_ALIASES)
    return {member: _V10_TO_REST[member](wrapper[key], cx, f"{at}.{key}")}


# ---- SendMessage result: bare Task | Message (v0.3 JSON-RPC) vs {task | message} ------------------

_SEND_KINDS = {"task": "task", "message": "message"}
_SEND_V10: dict[str, Fn] = {"task": _V10_TO_RPC["task"], "message": _V10_TO_RPC["message"]}
_SEND_REST_IN: dict[str, Fn] = {"task": _REST_TO_V10["task"], "message": _REST_TO_V10["message"]}
_SEND_REST_OUT: dict[str, Fn] = {"task": _V10_TO_REST["task"], "message": _V10_TO_REST["message"]}


def send_rpc_to_v10(result: Any, cx: Cx, at: str) -> JsonObj:
    result = obj(result, at)
    kind = infer_kind(result)
    if kind not in _SEND_KINDS:
        raise TranslationError(at, "expected a Task or a Message")
    return {kind: _RPC_TO_V10[kind](result, cx, at)}


def send_rpc_from_v10(wrapper: Any, cx: Cx, at: str) -> JsonObj:
    key, member = _member(wrapper, _SEND_V10, at, {})
    return _SEND_V10[member](wrapper[key], cx, f"{at}.{key}")


def send_rest_to_v10(wrapper: Any, cx: Cx, at: str) -> JsonObj:
    key, member = _member(wrapper, _SEND_REST_IN, at, {"msg": "message"})
    return {member: _SEND_REST_IN[member](wrapper[key], cx, f"{at}.{key}")}


def send_rest_from_v10(wrapper: Any, cx: Cx, at: str) -> JsonObj:
    key, member = _member(wrapper, _SEND_REST_OUT, at, {})
    return {member: _SEND_REST_OUT[member](wrapper[key], cx, f"{at}.{key}")}


register({
    "status_update": {
        (Dialect.V03RPC, Dialect.V10): status_rpc_to_v10,
        (Dialect.V10, Dialect.V03RPC): status_rpc_from_v10,
        (Dialect.V03REST, Dialect.V10): status_rest_to_v10,
        (Dialect.V10, Dialect.V03REST): status_rest_from_v10,
    },
    "artifact_update": {
        (Dialect.V03RPC, Dialect.V10): artifact_rpc_to_v10,
        (Dialect.V10, Dialect.V03RPC): artifact_rpc_from_v10,
        (Dialect.V03REST, Dialect.V10): artifact_rest_to_v10,
        (Dialect.V10, Dialect.V03REST): artifact_rest_from_v10,
    },
    "stream_response": {
        (Dialect.V03RPC, Dialect.V10): item_rpc_to_v10,
        (Dialect.V10, Dialect.V03RPC): item_rpc_from_v10,
        (Dialect.V03REST, Dialect.V10): item_rest_to_v10,
        (Dialect.V10, Dialect.V03REST): item_rest_from_v10,
    },
    "send_result": {
        (Dialect.V03RPC, Dialect.V10): send_rpc_to_v10,
        (Dialect.V10, Dialect.V03RPC): send_rpc_from_v10,
        (Dialect.V03REST, Dialect.V10): send_rest_to_v10,
        (Dialect.V10, Dialect.V03REST): send_rest_from_v10,
    },
})
