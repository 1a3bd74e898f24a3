"""Task, TaskStatus (states through the spec's tables, timestamps to RFC 3339 UTC) and Artifact, each
written once against a v0.3 `DialectSpec`; messages go through `messages`, parts through `parts`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gateway.core.timestamps as timestamps
import gateway.core.translate.messages as messages
import gateway.core.translate.parts as parts
from gateway.core.dialects import STATE_ALIASES_V10, V03_SPECS, V10_STATE_BY_NUMBER, V10_STATE_NUMBER, DialectSpec
from gateway.core.errors import TranslationError
from gateway.core.notes import Cx
from gateway.core.translate.registry import Family, Table, Translator
from gateway.core.translate.shape import arr, drop_unknown, obj, strings
from gateway.core.types import V10, Dialect, JsonObj

_UNSPECIFIED = "TASK_STATE_UNSPECIFIED"
_accepted = timestamps.ACCEPTED.fullmatch


def timestamp_to_v10(value: Any, cx: Cx, at: str) -> str:
    """v1.0 timestamps are RFC 3339 in UTC with `Z`: naive v0.3 values are taken as UTC, offsets
    converted, other spellings normalised (each noted; core.timestamps)."""
    if type(value) is not str:
        raise TranslationError(at, "expected a timestamp string")
    return timestamps.canonical(value, cx, at)


def timestamp_from_v10(value: Any, cx: Cx, at: str) -> str:
    """A v1.0 timestamp for a v0.3 peer: as it is when readers accept it, else repaired (an agent's
    `datetime.now().isoformat()`, which the hub of a v1.0 agent's reply may still hold)."""
    if type(value) is not str:
        raise TranslationError(at, "expected a timestamp string")
    return timestamps.repair(value, cx, at)


# ---- TaskStatus -----------------------------------------------------------------------------------

_STATUS_KNOWN = frozenset(("state", "message", "timestamp"))


def _state_to_v10(state: Any, table: Mapping[str, str], cx: Cx, at: str) -> str:
    if type(state) is int and state in V10_STATE_BY_NUMBER:  # ProtoJSON enum number
        cx.note("state_coerced", at, str(state))
        return V10_STATE_BY_NUMBER[state]
    found = table.get(state) if type(state) is str else None
    if found is not None:
        return found
    if type(state) is not str:
        raise TranslationError(at, "expected a task state string")
    if state in V10_STATE_NUMBER:  # a v1.0 spelling from a lenient v0.3 peer
        cx.note("state_coerced", at, state)
        return state
    cx.note("unknown_state", at, state)
    return _UNSPECIFIED


def _state_from_v10(state: Any, table: Mapping[str, str], cx: Cx, at: str) -> str:
    if type(state) is int:
        state = V10_STATE_BY_NUMBER.get(state, state)
    found = table.get(state) if type(state) is str else None
    if found is not None:
        return found
    alias = STATE_ALIASES_V10.get(state) if type(state) is str else None
    cx.note("unknown_state" if alias is None else "state_coerced", at, str(state))
    return table[alias or _UNSPECIFIED]


def status_to_v10(spec: DialectSpec) -> Translator:
    """A v0.3 TaskStatus of `spec` as v1.0; the state table and the message translator bound once. In
    ProtoJSON an absent state is the proto's default, TASK_STATE_UNSPECIFIED (the SDKs' REST encoders
    write `"status": {}` for a task in state unknown); the v0.3 JSON schema requires it."""
    states, msg_fn, protojson = spec.states_to_v10, messages.TO_V10[spec.dialect], spec.protojson

    def convert(status: Any, cx: Cx, at: str) -> JsonObj:
        if type(status) is not dict:
            status = obj(status, at)
        if not _STATUS_KNOWN.issuperset(status):
            drop_unknown(status, _STATUS_KNOWN, cx, at)
        state = status.get("state")
        mapped = states.get(state) if type(state) is str else None
        if mapped is None and state is None and (protojson or cx.lenient):
            cx.note("state_defaulted", f"{at}.state", "absent: the proto's default, TASK_STATE_UNSPECIFIED")
            mapped = _UNSPECIFIED
        out: JsonObj = {"state": mapped if mapped is not None else _state_to_v10(state, states, cx, f"{at}.state")}
        message = status.get("message")
        if message is not None:
            out["message"] = msg_fn(message, cx, at + ".message")
        ts = status.get("timestamp")
        if ts is not None:
            out["timestamp"] = timestamp_to_v10(ts, cx, at + ".timestamp")
        return out

    return convert


def status_from_v10(spec: DialectSpec) -> Translator:
    states, msg_fn = spec.states_from_v10, messages.FROM_V10[spec.dialect]

    def convert(status: Any, cx: Cx, at: str) -> JsonObj:
        if type(status) is not dict:
            status = obj(status, at)
        if not _STATUS_KNOWN.issuperset(status):
            drop_unknown(status, _STATUS_KNOWN, cx, at)
        state = status.get("state")
        mapped = states.get(state) if type(state) is str else None
        out: JsonObj = {"state": mapped if mapped is not None else _state_from_v10(state, states, cx, f"{at}.state")}
        message = status.get("message")
        if message is not None:
            out["message"] = msg_fn(message, cx, at + ".message")
        ts = status.get("timestamp")
        if ts is not None:   # the usual, accepted value taken as it is without a call
            out["timestamp"] = ts if ts.__class__ is str and _accepted(ts) else \
                timestamp_from_v10(ts, cx, f"{at}.timestamp")
        return out

    return convert


# ---- Artifact -------------------------------------------------------------------------------------

_ARTIFACT_KNOWN = frozenset(("artifactId", "name", "description", "parts", "metadata", "extensions"))


def _artifact(art: Any, cx: Cx, at: str, parts_fn: parts.PartsFn) -> JsonObj:
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


def artifact_to_v10(spec: DialectSpec) -> Translator:
    """v1.0 requires at least one part; a v0.3 artifact-update that only closes a chunk has none.
    An empty text part keeps the update (and its lastChunk) for strict v1.0 peers (noted)."""
    parts_fn = parts.parts_to_v10(spec.dialect)   # both v0.3 dialects hold artifact parts in `parts`

    def convert(art: Any, cx: Cx, at: str) -> JsonObj:
        out = _artifact(art, cx, at, parts_fn)
        if not out["parts"]:
            cx.note("empty_parts_filled", f"{at}.parts", "v1.0 needs at least one part")
            out["parts"] = [{"text": ""}]
        return out

    return convert


def artifact_from_v10(spec: DialectSpec) -> Translator:
    parts_fn = parts.parts_from_v10(spec.dialect)

    def convert(art: Any, cx: Cx, at: str) -> JsonObj:
        return _artifact(art, cx, at, parts_fn)

    return convert


# ---- Task -----------------------------------------------------------------------------------------

_TASK_KNOWN = frozenset(("id", "contextId", "status", "history", "artifacts", "metadata"))


def _task_id(task: JsonObj, at: str) -> str:
    tid = task.get("id")
    if type(tid) is not str:
        raise TranslationError(f"{at}.id", "required string member is missing or not a string")
    return tid


def _task_tail(task: JsonObj, out: JsonObj, cx: Cx, at: str, art_fn: Translator, msg_fn: Translator) -> JsonObj:
    """artifacts, history and metadata, in that order."""
    if "artifacts" in task:
        aat = f"{at}.artifacts"
        out["artifacts"] = [art_fn(a, cx, f"{aat}[{i}]") for i, a in enumerate(arr(task["artifacts"], aat))]
    if "history" in task:
        hat = f"{at}.history"
        out["history"] = [msg_fn(m, cx, f"{hat}[{i}]") for i, m in enumerate(arr(task["history"], hat))]
    if task.get("metadata") is not None:
        out["metadata"] = obj(task["metadata"], f"{at}.metadata")
    return out


def _context_id(task: JsonObj, at: str) -> str | None:
    ctx = task.get("contextId")
    if ctx is not None and type(ctx) is not str:
        raise TranslationError(f"{at}.contextId", "expected a string")
    return ctx


def task_to_v10(spec: DialectSpec) -> Translator:
    kind_tags = spec.kind_tags
    known = _TASK_KNOWN | {"kind"} if kind_tags else _TASK_KNOWN
    d = spec.dialect
    status_fn, msg_fn, art_fn = STATUS_TO_V10[d], messages.TO_V10[d], ARTIFACT_TO_V10[d]

    def convert(task: Any, cx: Cx, at: str) -> JsonObj:
        if kind_tags and type(task) is dict and task.get("kind", "task") != "task":
            raise TranslationError(f"{at}.kind", f"expected 'task', got {task.get('kind')!r}")
        task = obj(task, at)
        drop_unknown(task, known, cx, at)
        out: JsonObj = {"id": _task_id(task, at)}
        ctx = _context_id(task, at)
        if ctx is not None:
            out["contextId"] = ctx
        if task.get("status") is None:
            cx.note("filled_required", f"{at}.status")
            out["status"] = {"state": _UNSPECIFIED}
        else:
            out["status"] = status_fn(task["status"], cx, f"{at}.status")
        return _task_tail(task, out, cx, at, art_fn, msg_fn)

    return convert


def task_from_v10(spec: DialectSpec) -> Translator:
    tag, fill_context = spec.kind_tags, not spec.protojson   # the v0.3 JSON schema requires a contextId
    unspecified = spec.states_from_v10[_UNSPECIFIED]
    status_fn, msg_fn, art_fn = (STATUS_FROM_V10[spec.dialect], messages.FROM_V10[spec.dialect],
                                 ARTIFACT_FROM_V10[spec.dialect])

    def convert(task: Any, cx: Cx, at: str) -> JsonObj:
        task = obj(task, at)
        drop_unknown(task, _TASK_KNOWN, cx, at)
        tid = _task_id(task, at)
        out: JsonObj = {"kind": "task", "id": tid} if tag else {"id": tid}
        ctx = _context_id(task, at)
        if ctx is not None:
            out["contextId"] = ctx
        elif fill_context:
            cx.note("filled_required", f"{at}.contextId")
            out["contextId"] = ""
        if task.get("status") is None:
            cx.note("filled_required", f"{at}.status")
            out["status"] = {"state": unspecified}
        else:
            out["status"] = status_fn(task["status"], cx, f"{at}.status")
        return _task_tail(task, out, cx, at, art_fn, msg_fn)

    return convert


STATUS_TO_V10: dict[Dialect, Translator] = {spec.dialect: status_to_v10(spec) for spec in V03_SPECS}
STATUS_FROM_V10: dict[Dialect, Translator] = {spec.dialect: status_from_v10(spec) for spec in V03_SPECS}
ARTIFACT_TO_V10: dict[Dialect, Translator] = {spec.dialect: artifact_to_v10(spec) for spec in V03_SPECS}
ARTIFACT_FROM_V10: dict[Dialect, Translator] = {spec.dialect: artifact_from_v10(spec) for spec in V03_SPECS}
TASK_TO_V10: dict[Dialect, Translator] = {spec.dialect: task_to_v10(spec) for spec in V03_SPECS}
TASK_FROM_V10: dict[Dialect, Translator] = {spec.dialect: task_from_v10(spec) for spec in V03_SPECS}


def _pairs(to: dict[Dialect, Translator], back: dict[Dialect, Translator]) -> dict[tuple[Dialect, Dialect], Translator]:
    return {**{(d, V10): fn for d, fn in to.items()}, **{(V10, d): fn for d, fn in back.items()}}


TRANSLATORS: Table = {
    Family.TASK_STATUS: _pairs(STATUS_TO_V10, STATUS_FROM_V10),
    Family.ARTIFACT: _pairs(ARTIFACT_TO_V10, ARTIFACT_FROM_V10),
    Family.TASK: _pairs(TASK_TO_V10, TASK_FROM_V10),
}
