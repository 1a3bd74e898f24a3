"""Fast paths for the hottest shapes — status and artifact updates in streams, in the JSON-RPC dialects:
exact-shape checks, then one flat rewrite; any other input takes the full translator, which alone notes
and raises. tests/core/test_fastpath.py holds both paths equal, byte for byte and note for note."""

from __future__ import annotations

from typing import Any

from gateway.core.notes import Cx
from gateway.core.translate import enums, events, messages, tasks
from gateway.core.translate.registry import register_fast
from gateway.core.types import Dialect, JsonObj

# How the fast paths stay exact: every member they read is type-checked, and `len()` of each object
# equals the number of members read, so nothing unknown (a note in the full path) can hide. Nested
# objects with their own fast paths (messages, timestamps) go through their translators, which are
# called only once no fallback can follow (a fallback after them would note twice).

_STATE_TO_V10, _STATE_FROM_V10, _TERMINAL = enums.STATE_TO_V10, enums.STATE_FROM_V10, enums.TERMINAL_V10
_CANONICAL_TS = tasks.CANONICAL_TIMESTAMP.fullmatch
_msg_to_v10, _msg_from_v10, _ts_to_v10 = messages.rpc_to_v10, messages.rpc_from_v10, tasks.timestamp_to_v10
_art_to_v10, _art_from_v10 = tasks.artifact_rpc_to_v10, tasks.artifact_rpc_from_v10
_full_item_to_v10, _full_item_from_v10 = events.item_rpc_to_v10, events.item_rpc_from_v10


def _artifact_flags(ev: JsonObj) -> tuple[Any, Any, Any, int] | None:
    """append, lastChunk, metadata of an artifact update and how many of them it has; None when one
    has the wrong type (the full path raises)."""
    append, last, metadata = ev.get("append"), ev.get("lastChunk"), ev.get("metadata")
    if (append is not None and type(append) is not bool) or (last is not None and type(last) is not bool) \
            or (metadata is not None and type(metadata) is not dict):
        return None
    return append, last, metadata, (append is not None) + (last is not None) + (metadata is not None)


def _artifact_tail(out: JsonObj, append: Any, last: Any, metadata: Any) -> JsonObj:
    if append is not None:
        out["append"] = append
    if last is not None:
        out["lastChunk"] = last
    if metadata is not None:
        out["metadata"] = metadata
    return out


def item_rpc_to_v10(item: Any, cx: Cx, at: str) -> JsonObj:
    """A v0.3 `status-update` or `artifact-update` of the common shape, else the full translator."""
    kind = item.get("kind") if type(item) is dict else None
    if kind == "artifact-update":
        task_id, context_id, artifact = item.get("taskId"), item.get("contextId"), item.get("artifact")
        flags = _artifact_flags(item)
        if flags is not None and type(task_id) is str and type(context_id) is str and type(artifact) is dict \
                and len(item) == 4 + flags[3]:
            out: JsonObj = {"taskId": task_id, "contextId": context_id,
                            "artifact": _art_to_v10(artifact, cx, f"{at}.artifact")}
            return {"artifactUpdate": _artifact_tail(out, *flags[:3])}
    elif kind == "status-update":
        task_id, context_id, status = item.get("taskId"), item.get("contextId"), item.get("status")
        final, metadata = item.get("final", False), item.get("metadata")
        if type(task_id) is str and type(context_id) is str and type(status) is dict and type(final) is bool \
                and len(item) == 4 + ("final" in item) + (type(metadata) is dict):
            state = status.get("state")
            mapped = _STATE_TO_V10.get(state) if type(state) is str else None
            message, ts = status.get("message"), status.get("timestamp")
            if mapped is not None and final is (mapped in _TERMINAL) \
                    and len(status) == 1 + (type(message) is dict) + (type(ts) is str):
                out_status: JsonObj = {"state": mapped}
                if message is not None:
                    out_status["message"] = _msg_to_v10(message, cx, f"{at}.status.message")
                if ts is not None:
                    out_status["timestamp"] = ts if _CANONICAL_TS(ts) else _ts_to_v10(ts, cx, f"{at}.status.timestamp")
                out = {"taskId": task_id, "contextId": context_id, "status": out_status}
                if metadata is not None:
                    out["metadata"] = metadata
                return {"statusUpdate": out}
    return _full_item_to_v10(item, cx, at)


def item_rpc_from_v10(wrapper: Any, cx: Cx, at: str) -> JsonObj:
    """A v1.0 `statusUpdate` or `artifactUpdate` of the common shape, else the full translator."""
    one = type(wrapper) is dict and len(wrapper) == 1
    ev = wrapper.get("artifactUpdate") if one else None
    if type(ev) is dict:
        task_id, context_id, artifact = ev.get("taskId"), ev.get("contextId"), ev.get("artifact")
        flags = _artifact_flags(ev)
        if flags is not None and type(task_id) is str and type(context_id) is str and type(artifact) is dict \
                and len(ev) == 3 + flags[3]:
            out: JsonObj = {"kind": "artifact-update", "taskId": task_id, "contextId": context_id,
                            "artifact": _art_from_v10(artifact, cx, f"{at}.artifactUpdate.artifact")}
            return _artifact_tail(out, *flags[:3])
    ev = wrapper.get("statusUpdate") if one else None
    if type(ev) is dict:
        task_id, context_id, status, metadata = ev.get("taskId"), ev.get("contextId"), ev.get("status"), \
            ev.get("metadata")
        if type(task_id) is str and type(context_id) is str and type(status) is dict \
                and len(ev) == 3 + (type(metadata) is dict):
            state = status.get("state")
            mapped = _STATE_FROM_V10.get(state) if type(state) is str else None
            message, ts = status.get("message"), status.get("timestamp")
            if mapped is not None and len(status) == 1 + (type(message) is dict) + (type(ts) is str):
                out_status: JsonObj = {"state": mapped}
                if message is not None:
                    out_status["message"] = _msg_from_v10(message, cx, f"{at}.statusUpdate.status.message")
                if ts is not None:
                    out_status["timestamp"] = ts
                out = {"kind": "status-update", "taskId": task_id, "contextId": context_id,
                       "status": out_status, "final": state in _TERMINAL}
                if metadata is not None:
                    out["metadata"] = metadata
                return out
    return _full_item_from_v10(wrapper, cx, at)


register_fast({"stream_response": {
    (Dialect.V03RPC, Dialect.V10): item_rpc_to_v10,
    (Dialect.V10, Dialect.V03RPC): item_rpc_from_v10,
}})
