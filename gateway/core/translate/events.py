"""Stream items against a v0.3 `DialectSpec`: status updates (v0.3 `final`), artifact updates, the
StreamResponse and SendMessage result wrappers, and their fast paths. No SSE, no stream end."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gateway.core.timestamps as timestamps
import gateway.core.translate.messages as messages
import gateway.core.translate.tasks as tasks
from gateway.core.dialects import (
    TERMINAL_V10,
    V03_SPECS,
    V03RPC_SPEC,
    V10_SPEC,
    V10_STATE_BY_NUMBER,
    DialectSpec,
)
from gateway.core.errors import TranslationError
from gateway.core.notes import Cx
from gateway.core.translate.registry import Family, FastPath, Table, Translator
from gateway.core.translate.shape import absent, drop_unknown, obj
from gateway.core.types import V03RPC, V10, Dialect, JsonObj

_STATUS_COMMON = ("taskId", "contextId", "status", "metadata")
_ARTIFACT_COMMON = ("taskId", "contextId", "artifact", "append", "lastChunk", "metadata")
_STATUS_V10 = frozenset(_STATUS_COMMON)
_ARTIFACT_V10 = frozenset(_ARTIFACT_COMMON)
_TERMINAL = TERMINAL_V10


def _ids(src: JsonObj, out: JsonObj, cx: Cx, at: str, fill: bool) -> None:
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


def _flags(src: JsonObj, out: JsonObj, at: str) -> None:
    for key in ("append", "lastChunk"):
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
        v10_state = V10_STATE_BY_NUMBER.get(v10_state)
    return type(v10_state) is str and v10_state in _TERMINAL


def _kind(ev: JsonObj, expected: str, at: str) -> None:
    kind = ev.get("kind", expected)
    if kind != expected:
        raise TranslationError(f"{at}.kind", f"expected {expected!r}, got {kind!r}")


# ---- TaskStatusUpdateEvent ------------------------------------------------------------------------

def status_to_v10(spec: DialectSpec) -> Translator:
    """v1.0 ends a stream by closing it: a v0.3 `final` that the state does not imply is noted."""
    kind_tags, status_fn = spec.kind_tags, tasks.STATUS_TO_V10[spec.dialect]
    known = frozenset((*_STATUS_COMMON, "final", *(("kind",) if kind_tags else ())))

    def convert(ev: Any, cx: Cx, at: str) -> JsonObj:
        if type(ev) is not dict:
            ev = obj(ev, at)
        kind = ev.get("kind") if kind_tags else None
        if kind is not None and kind != "status-update":
            raise TranslationError(f"{at}.kind", f"expected 'status-update', got {kind!r}")
        if not known.issuperset(ev):
            drop_unknown(ev, known, cx, at)
        task_id, context_id = ev.get("taskId"), ev.get("contextId")
        if type(task_id) is str and type(context_id) is str:
            out: JsonObj = {"taskId": task_id, "contextId": context_id}
        else:
            out = {}
            _ids(ev, out, cx, at, False)
        status = ev.get("status")
        if status is None:
            absent(cx, f"{at}.status")
        else:
            out["status"] = status = status_fn(status, cx, at + ".status")
        if "metadata" in ev:
            _metadata(ev, out, at)
        final = ev.get("final", False)
        if type(final) is not bool:
            raise TranslationError(f"{at}.final", "expected a boolean")
        if status is not None and final is not (status["state"] in _TERMINAL):
            cx.note("final_dropped", f"{at}.final", "v1.0 ends streams by closing them")
        return out

    return convert


def status_from_v10(spec: DialectSpec) -> Translator:
    """`final` comes from the state; the v0.3 JSON schema requires the ids and `final` itself, while
    ProtoJSON omits a false bool."""
    tag, fill, status_fn = spec.kind_tags, not spec.protojson, tasks.STATUS_FROM_V10[spec.dialect]

    def convert(ev: Any, cx: Cx, at: str) -> JsonObj:
        if type(ev) is not dict:
            ev = obj(ev, at)
        if not _STATUS_V10.issuperset(ev):
            drop_unknown(ev, _STATUS_V10, cx, at)
        task_id, context_id = ev.get("taskId"), ev.get("contextId")
        if type(task_id) is str and type(context_id) is str:
            out: JsonObj = {"kind": "status-update", "taskId": task_id, "contextId": context_id} if tag \
                else {"taskId": task_id, "contextId": context_id}
        else:
            out = {"kind": "status-update"} if tag else {}
            _ids(ev, out, cx, at, fill)
        status = ev.get("status")
        if type(status) is not dict:
            if status is None and cx.lenient:   # v0.3 requires one: what the SDKs' converters give
                cx.note("required_member_defaulted", f"{at}.status", "state unknown")
                status = {"state": "TASK_STATE_UNSPECIFIED"}
            elif status is None:
                raise TranslationError(f"{at}.status", "required member is missing")
            obj(status, f"{at}.status")
        out["status"] = status_fn(status, cx, at + ".status")
        state = status.get("state")
        final = state in _TERMINAL if type(state) is str else is_final_state(state)
        if fill or final:
            out["final"] = final
        if "metadata" in ev:
            _metadata(ev, out, at)
        return out

    return convert


# ---- TaskArtifactUpdateEvent ----------------------------------------------------------------------

def artifact_to_v10(spec: DialectSpec) -> Translator:
    kind_tags, art_fn = spec.kind_tags, tasks.ARTIFACT_TO_V10[spec.dialect]
    known = _ARTIFACT_V10 | {"kind"} if kind_tags else _ARTIFACT_V10

    def convert(ev: Any, cx: Cx, at: str) -> JsonObj:
        if kind_tags and type(ev) is dict:
            _kind(ev, "artifact-update", at)
        ev = obj(ev, at)
        drop_unknown(ev, known, cx, at)
        out: JsonObj = {}
        _ids(ev, out, cx, at, False)
        if ev.get("artifact") is None:
            absent(cx, f"{at}.artifact")
        else:
            out["artifact"] = art_fn(ev["artifact"], cx, f"{at}.artifact")
        _flags(ev, out, at)
        _metadata(ev, out, at)
        return out

    return convert


def artifact_from_v10(spec: DialectSpec) -> Translator:
    tag, fill, art_fn = spec.kind_tags, not spec.protojson, tasks.ARTIFACT_FROM_V10[spec.dialect]

    def convert(ev: Any, cx: Cx, at: str) -> JsonObj:
        ev = obj(ev, at)
        drop_unknown(ev, _ARTIFACT_V10, cx, at)
        out: JsonObj = {"kind": "artifact-update"} if tag else {}
        _ids(ev, out, cx, at, fill)
        if ev.get("artifact") is None:
            raise TranslationError(f"{at}.artifact", "required member is missing")
        out["artifact"] = art_fn(ev["artifact"], cx, f"{at}.artifact")
        _flags(ev, out, at)
        _metadata(ev, out, at)
        return out

    return convert


STATUS_TO_V10: dict[Dialect, Translator] = {spec.dialect: status_to_v10(spec) for spec in V03_SPECS}
STATUS_FROM_V10: dict[Dialect, Translator] = {spec.dialect: status_from_v10(spec) for spec in V03_SPECS}
ARTIFACT_TO_V10: dict[Dialect, Translator] = {spec.dialect: artifact_to_v10(spec) for spec in V03_SPECS}
ARTIFACT_FROM_V10: dict[Dialect, Translator] = {spec.dialect: artifact_from_v10(spec) for spec in V03_SPECS}


# ---- StreamResponse and SendMessageResponse ----------------------------------------------------------
# v1.0 wraps the payload in a oneof member (so does the v0.3 proto); v0.3 JSON-RPC sends it bare,
# tagged by `kind`.

KIND_TO_MEMBER = {"task": "task", "message": "message", "status-update": "statusUpdate",
                  "artifact-update": "artifactUpdate"}
MEMBER_TO_KIND = {member: kind for kind, member in KIND_TO_MEMBER.items()}


def infer_kind(item: JsonObj) -> str | None:
    """The kind of a v0.3 item, read from `kind` or, when a lenient peer left it out, from its members."""
    if "kind" in item:
        kind = item["kind"]
        return kind if type(kind) is str and kind in KIND_TO_MEMBER else None
    if "artifact" in item and "taskId" in item:
        return "artifact-update"
    if "taskId" in item and ("final" in item or "status" in item) and "id" not in item:
        return "status-update"
    if "messageId" in item:
        return "message"
    if "id" in item and "status" in item:
        return "task"
    return None


def _member(wrapper: Any, allowed: Mapping[str, Translator], at: str, aliases: Mapping[str, str]) -> tuple[str, str]:
    """(the key, the member it names) of a oneof wrapper with exactly one member."""
    wrapper = obj(wrapper, at)
    if len(wrapper) != 1:
        raise TranslationError(at, f"expected exactly one of {', '.join(allowed)}, got {len(wrapper)} members")
    (key,) = wrapper
    member = aliases.get(key, key)
    if member not in allowed:
        raise TranslationError(f"{at}.{key}", f"expected one of {', '.join(allowed)}")
    return key, member


def _payloads_to_v10(d: Dialect) -> dict[str, Translator]:
    """v1.0 member -> the translator of its payload from dialect `d`."""
    return {"task": tasks.TASK_TO_V10[d], "message": messages.TO_V10[d], "statusUpdate": STATUS_TO_V10[d],
            "artifactUpdate": ARTIFACT_TO_V10[d]}


def _payloads_from_v10(d: Dialect) -> dict[str, Translator]:
    return {"task": tasks.TASK_FROM_V10[d], "message": messages.FROM_V10[d], "statusUpdate": STATUS_FROM_V10[d],
            "artifactUpdate": ARTIFACT_FROM_V10[d]}


def item_to_v10(spec: DialectSpec, members: tuple[str, ...], none_of_them: str) -> Translator:
    """A v0.3 item of `spec` with one of `members` as the v1.0 wrapper; `none_of_them` says what a
    bare item that is none of them is not."""
    fns = {member: fn for member, fn in _payloads_to_v10(spec.dialect).items() if member in members}
    by_kind = {MEMBER_TO_KIND[member]: fn for member, fn in fns.items()}
    aliases = spec.member_aliases

    def bare(item: Any, cx: Cx, at: str) -> JsonObj:
        if type(item) is not dict:
            item = obj(item, at)
        kind = item.get("kind")
        if type(kind) is not str or kind not in by_kind:
            kind = infer_kind(item)
        if kind not in by_kind:
            raise TranslationError(at, none_of_them)
        return {KIND_TO_MEMBER[kind]: by_kind[kind](item, cx, at)}

    def wrapped(wrapper: Any, cx: Cx, at: str) -> JsonObj:
        key, member = _member(wrapper, fns, at, aliases)
        return {member: fns[member](wrapper[key], cx, f"{at}.{key}")}

    return bare if spec.kind_tags else wrapped


def item_from_v10(spec: DialectSpec, members: tuple[str, ...]) -> Translator:
    """The v1.0 wrapper with one of `members` (or a proto field name for one) as a v0.3 item of `spec`."""
    fns = {member: fn for member, fn in _payloads_from_v10(spec.dialect).items() if member in members}
    dot = {key: "." + key for key in fns}  # member path suffixes, built once
    bare, aliases = spec.kind_tags, V10_SPEC.member_aliases

    def convert(wrapper: Any, cx: Cx, at: str) -> JsonObj:
        if type(wrapper) is dict and len(wrapper) == 1:  # the common case: one known member
            for key, value in wrapper.items():
                fn = fns.get(key)
                if fn is not None:
                    return fn(value, cx, at + dot[key]) if bare else {key: fn(value, cx, at + dot[key])}
        key, member = _member(wrapper, fns, at, aliases)
        out = fns[member](wrapper[key], cx, f"{at}.{key}")
        return out if bare else {member: out}

    return convert


_STREAM = ("task", "message", "statusUpdate", "artifactUpdate")
_SEND = ("task", "message")
_FULL: dict[str, dict[tuple[Dialect, Dialect], Translator]] = {
    Family.STATUS_UPDATE: {**{(d, V10): fn for d, fn in STATUS_TO_V10.items()},
                           **{(V10, d): fn for d, fn in STATUS_FROM_V10.items()}},
    Family.ARTIFACT_UPDATE: {**{(d, V10): fn for d, fn in ARTIFACT_TO_V10.items()},
                             **{(V10, d): fn for d, fn in ARTIFACT_FROM_V10.items()}},
    Family.STREAM_RESPONSE: {
        **{(s.dialect, V10): item_to_v10(s, _STREAM, "not a Task, Message, status-update or artifact-update")
           for s in V03_SPECS},
        **{(V10, s.dialect): item_from_v10(s, _STREAM) for s in V03_SPECS},
    },
    Family.SEND_RESULT: {
        **{(s.dialect, V10): item_to_v10(s, _SEND, "expected a Task or a Message") for s in V03_SPECS},
        **{(V10, s.dialect): item_from_v10(s, _SEND) for s in V03_SPECS},
    },
}


# ---- the fast paths: v0.3 JSON-RPC status and artifact updates ---------------------------------------
# How they stay exact: every member they read is type-checked, and `len()` of each object equals the
# number of members read, so nothing unknown (a note in the full path) can hide. Nested objects with
# their own fast paths (messages, timestamps) go through their translators, which are called only once
# no fallback can follow (a fallback after them would note twice).

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


def _fast_item_to_v10(spec: DialectSpec, full: Translator) -> Translator:
    """A v0.3 `status-update` or `artifact-update` of the common shape, else the full translator."""
    states, msg_fn, ts_fn = spec.states_to_v10, messages.TO_V10[spec.dialect], tasks.timestamp_to_v10
    art_fn, canonical = tasks.ARTIFACT_TO_V10[spec.dialect], timestamps.CANONICAL.fullmatch

    def convert(item: Any, cx: Cx, at: str) -> Any:
        kind = item.get("kind") if type(item) is dict else None
        if kind == "artifact-update":
            task_id, context_id, artifact = item.get("taskId"), item.get("contextId"), item.get("artifact")
            flags = _artifact_flags(item)
            if flags is not None and type(task_id) is str and type(context_id) is str \
                    and type(artifact) is dict and len(item) == 4 + flags[3]:
                out: JsonObj = {"taskId": task_id, "contextId": context_id,
                                "artifact": art_fn(artifact, cx, f"{at}.artifact")}
                return {"artifactUpdate": _artifact_tail(out, *flags[:3])}
        elif kind == "status-update":
            task_id, context_id, status = item.get("taskId"), item.get("contextId"), item.get("status")
            final, metadata = item.get("final", False), item.get("metadata")
            if type(task_id) is str and type(context_id) is str and type(status) is dict and type(final) is bool \
                    and len(item) == 4 + ("final" in item) + (type(metadata) is dict):
                state = status.get("state")
                mapped = states.get(state) if type(state) is str else None
                message, ts = status.get("message"), status.get("timestamp")
                if mapped is not None and final is (mapped in _TERMINAL) \
                        and len(status) == 1 + (type(message) is dict) + (type(ts) is str):
                    out_status: JsonObj = {"state": mapped}
                    if message is not None:
                        out_status["message"] = msg_fn(message, cx, f"{at}.status.message")
                    if ts is not None:
                        out_status["timestamp"] = ts if canonical(ts) else ts_fn(ts, cx, f"{at}.status.timestamp")
                    out = {"taskId": task_id, "contextId": context_id, "status": out_status}
                    if metadata is not None:
                        out["metadata"] = metadata
                    return {"statusUpdate": out}
        return full(item, cx, at)

    return convert


def _fast_item_from_v10(spec: DialectSpec, full: Translator) -> Translator:
    """A v1.0 `statusUpdate` or `artifactUpdate` of the common shape, else the full translator."""
    d = spec.dialect
    states, msg_fn, art_fn = spec.states_from_v10, messages.FROM_V10[d], tasks.ARTIFACT_FROM_V10[d]
    accepted, ts_fn = timestamps.ACCEPTED.fullmatch, tasks.timestamp_from_v10

    def convert(wrapper: Any, cx: Cx, at: str) -> Any:
        one = type(wrapper) is dict and len(wrapper) == 1
        ev = wrapper.get("artifactUpdate") if one else None
        if type(ev) is dict:
            task_id, context_id, artifact = ev.get("taskId"), ev.get("contextId"), ev.get("artifact")
            flags = _artifact_flags(ev)
            if flags is not None and type(task_id) is str and type(context_id) is str \
                    and type(artifact) is dict and len(ev) == 3 + flags[3]:
                out: JsonObj = {"kind": "artifact-update", "taskId": task_id, "contextId": context_id,
                                "artifact": art_fn(artifact, cx, f"{at}.artifactUpdate.artifact")}
                return _artifact_tail(out, *flags[:3])
        ev = wrapper.get("statusUpdate") if one else None
        if type(ev) is dict:
            task_id, context_id, status, metadata = ev.get("taskId"), ev.get("contextId"), ev.get("status"), \
                ev.get("metadata")
            if type(task_id) is str and type(context_id) is str and type(status) is dict \
                    and len(ev) == 3 + (type(metadata) is dict):
                state = status.get("state")
                mapped = states.get(state) if type(state) is str else None
                message, ts = status.get("message"), status.get("timestamp")
                if mapped is not None and len(status) == 1 + (type(message) is dict) + (type(ts) is str):
                    out_status: JsonObj = {"state": mapped}
                    if message is not None:
                        out_status["message"] = msg_fn(message, cx, f"{at}.statusUpdate.status.message")
                    if ts is not None:
                        out_status["timestamp"] = ts if accepted(ts) else \
                            ts_fn(ts, cx, f"{at}.statusUpdate.status.timestamp")
                    out = {"kind": "status-update", "taskId": task_id, "contextId": context_id,
                           "status": out_status, "final": state in _TERMINAL}
                    if metadata is not None:
                        out["metadata"] = metadata
                    return out
        return full(wrapper, cx, at)

    return convert


_STREAM_FULL = _FULL[Family.STREAM_RESPONSE]
FAST_PATHS = (
    FastPath(Family.STREAM_RESPONSE, V03RPC, V10, _fast_item_to_v10(V03RPC_SPEC, _STREAM_FULL[(V03RPC, V10)]),
             _STREAM_FULL[(V03RPC, V10)]),
    FastPath(Family.STREAM_RESPONSE, V10, V03RPC, _fast_item_from_v10(V03RPC_SPEC, _STREAM_FULL[(V10, V03RPC)]),
             _STREAM_FULL[(V10, V03RPC)]),
)
TRANSLATORS: Table = _FULL
