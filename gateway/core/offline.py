"""Offline translation of one payload (the `a2a-gateway translate` command): what it is (an object of a
family, a JSON-RPC request or response, an SSE transcript), which version and binding it is in, and the
same payload in the other version, with the notes of what was lost. Bytes in, bytes and notes out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import gateway.core.jsoncodec as jsoncodec
from gateway.core.bindings import jsonrpc
from gateway.core.dialects import DIALECTS
from gateway.core.errors import GatewayError, UnknownOperation
from gateway.core.notes import DEFAULT_QUIRKS, Cx, Note
from gateway.core.operations import OPERATIONS, Operation, by_method, by_name
from gateway.core.quirks import Quirks
from gateway.core.sse import SseEvent, SseParser
from gateway.core.stream import sse_relay
from gateway.core.translate import translate
from gateway.core.translate.registry import Family
from gateway.core.types import Binding, Dialect, Version

__all__ = ["KINDS", "NotA2A", "Result", "detect", "family_of", "looks_v03", "operations", "translate_payload"]

RPC_REQUEST, RPC_RESPONSE, SSE = "jsonrpc-request", "jsonrpc-response", "sse"
# what --kind accepts: every object family, and the three whole-message kinds
KINDS = (*(f.value for f in Family), RPC_REQUEST, RPC_RESPONSE, SSE)
_V03_STATES = frozenset({"submitted", "working", "input-required", "completed", "canceled", "failed", "rejected",
                         "auth-required", "unknown"})
_V03_KINDS = {"task": Family.TASK, "message": Family.MESSAGE, "status-update": Family.STATUS_UPDATE,
              "artifact-update": Family.ARTIFACT_UPDATE, "text": Family.PART, "file": Family.PART,
              "data": Family.PART}
_OTHER = {Version.V03: Version.V10, Version.V10: Version.V03}


class NotA2A(ValueError):
    """The payload is not one the command recognises (or the flags contradict it)."""


@dataclass(slots=True)
class Result:
    kind: str
    src: Dialect
    dst: Dialect
    output: bytes
    notes: list[Note] = field(default_factory=list)
    assumed: str = ""   # what detection had to guess (told on stderr)


def _is_sse(text: str) -> bool:
    head = text.lstrip("\ufeff").lstrip()
    return head.startswith(("data:", "event:", "id:", "retry:", ":"))


def _walk(value: Any) -> Any:
    """Every (key, value) pair of a JSON document, depth first."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for k, v in item.items():
                yield k, v
                stack.append(v)
        elif isinstance(item, list):
            stack.extend(item)


def looks_v03(value: Any) -> bool:
    """v0.3 JSON-RPC shapes carry tells no v1.0 payload has: `kind` members, lower-case roles and
    states, a top-level `protocolVersion` 0.x or `preferredTransport`, `pushNotificationConfig`."""
    for k, v in _walk(value):
        if k == "kind" and isinstance(v, str):
            return True
        if (k == "role" and v in ("user", "agent")) or (k == "state" and v in _V03_STATES):
            return True
        if k in ("preferredTransport", "additionalInterfaces", "pushNotificationConfig"):
            return True
    top = value.get("protocolVersion") if isinstance(value, dict) else None   # a card's (v1.0 cards have none)
    return isinstance(top, str) and top.startswith("0.")


def family_of(value: Any) -> Family | None:
    """The object family a JSON value belongs to, as far as its members tell."""
    if not isinstance(value, dict):
        return None
    keys = set(value)
    kind = value.get("kind")
    if isinstance(kind, str) and kind in _V03_KINDS:
        return _V03_KINDS[kind]
    if "name" in keys and keys & {"skills", "capabilities", "supportedInterfaces", "defaultInputModes"}:
        return Family.AGENT_CARD
    if "messageId" in keys:
        return Family.MESSAGE
    if "artifactId" in keys:
        return Family.ARTIFACT
    if "taskId" in keys and "artifact" in keys:
        return Family.ARTIFACT_UPDATE
    if "taskId" in keys and "status" in keys:
        return Family.STATUS_UPDATE
    if "id" in keys and "status" in keys:
        return Family.TASK
    if keys and keys <= {"task", "message"} and len(keys) == 1:
        return Family.SEND_RESULT
    if len(keys) == 1 and keys & {"statusUpdate", "artifactUpdate", "task", "message"}:
        return Family.STREAM_RESPONSE
    if "pushNotificationConfig" in keys:
        return Family.TASK_PUSH_CONFIG
    if "url" in keys and keys & {"token", "authentication", "id"}:
        return Family.TASK_PUSH_CONFIG if "taskId" in keys else Family.PUSH_CONFIG
    if "state" in keys and keys <= {"state", "message", "timestamp"}:
        return Family.TASK_STATUS
    if "code" in keys and "message" in keys:
        return Family.ERROR
    if keys == {"url"}:   # a v1.0 part by URL and a push config with its URL alone look the same
        return None
    if keys & {"text", "raw", "url", "data", "file"} and len(keys & {"text", "raw", "url", "data", "file"}) == 1:
        return Family.PART
    return None


def detect(value: Any) -> tuple[str, Version]:
    """(kind, version) of a parsed JSON payload; raises NotA2A."""
    if isinstance(value, dict) and value.get("jsonrpc") == "2.0":
        method = value.get("method")
        if isinstance(method, str):
            try:
                return RPC_REQUEST, by_method(method)[1]
            except UnknownOperation:
                raise NotA2A(f"JSON-RPC method {method[:80]!r} is no A2A method") from None
        if "result" in value or "error" in value:
            return RPC_RESPONSE, _version_of(value)
        raise NotA2A("a JSON-RPC object with neither method, result nor error")
    family = family_of(value)
    if family is None:
        raise NotA2A("not an A2A payload: no message, part, task, event, card, push config, error, JSON-RPC "
                     "request or response recognised (name it with --kind)")
    return family.value, _version_of(value)


def _dialect(version: Version, binding: Binding) -> Dialect:
    return DIALECTS[(version, binding)]


def _operation(name: str) -> Operation:
    try:
        return by_method(name)[0]
    except UnknownOperation:
        return by_name(name)


def _result_family(result: Any, op: Operation | None) -> tuple[str, str]:
    if op is not None:
        return op.result_family, ""
    family = family_of(result) if result is not None else None
    if family is None:
        raise NotA2A("cannot tell which operation this JSON-RPC result answers; name it with --method")
    return family.value, f"the result read as a {family.value} (name the operation with --method to be sure)"


def translate_payload(data: bytes, *, to: Version | None = None, binding: Binding = Binding.JSONRPC,
                      kind: str | None = None, source: Version | None = None, method: str | None = None,
                      quirks: Quirks = DEFAULT_QUIRKS) -> Result:
    """Translate `data` into the other version. `binding` is the binding of the v0.3 side (its dialect:
    JSON-RPC shapes or the v0.3 proto's ProtoJSON); `kind`, `source` and `method` override detection;
    `quirks` are the gateway's [quirks]. Raises NotA2A (unrecognised, or contradictory flags) and
    GatewayError (untranslatable)."""
    text = data.decode("utf-8", errors="replace")
    op = _operation(method) if method else None
    if kind == SSE or (kind is None and _is_sse(text)):
        return _sse(data, to=to, binding=binding, source=source, quirks=quirks)
    try:
        value = jsoncodec.loads(data)
    except GatewayError:
        raise NotA2A("the input is neither JSON nor an SSE transcript") from None
    found_kind, found_version = detect(value) if kind is None else (kind, _version_of(value))
    src_version = source or (_OTHER[to] if to is not None else found_version)
    dst_version = to or _OTHER[src_version]
    if src_version is dst_version:
        raise NotA2A(f"the payload is already A2A {dst_version.value}")
    rpc = found_kind in (RPC_REQUEST, RPC_RESPONSE)
    side = Binding.JSONRPC if rpc else binding
    src, dst = _dialect(src_version, side), _dialect(dst_version, side)
    if rpc and binding is not Binding.JSONRPC:
        raise NotA2A("a JSON-RPC message translates to JSON-RPC only (--binding jsonrpc)")
    cx = Cx(quirks=quirks, lenient=True)
    assumed = ""
    if found_kind == RPC_REQUEST:
        if not isinstance(value, dict) or not isinstance(value.get("method"), str):
            raise NotA2A("a JSON-RPC request needs its method")
        op = by_method(value["method"])[0]
        params = translate(op.params_family, value.get("params", {}), src=src, dst=dst, cx=cx, at="$.params")
        out: Any = jsonrpc.request_envelope(value.get("id"), op.method(dst_version), params)
    elif found_kind == RPC_RESPONSE:
        if not isinstance(value, dict):
            raise NotA2A("a JSON-RPC response is an object")
        if "error" in value:
            error = translate(Family.ERROR, value["error"], src=src, dst=dst, cx=cx, at="$.error")
            out = {"jsonrpc": "2.0", "id": value.get("id"), "error": error}
        else:
            family, assumed = _result_family(value.get("result"), op)
            result = translate(family, value["result"], src=src, dst=dst, cx=cx, at="$.result")
            out = {"jsonrpc": "2.0", "id": value.get("id"), "result": result}
    else:
        if found_kind not in {f.value for f in Family}:
            raise NotA2A(f"unknown kind {found_kind!r}; one of: {', '.join(KINDS)}")
        out = translate(found_kind, value, src=src, dst=dst, cx=cx)
    body = jsoncodec.dumps(out).encode()
    return Result(found_kind, src, dst, body, cx.notes, assumed)


def _version_of(value: Any) -> Version:
    return Version.V03 if looks_v03(value) else Version.V10


def _first_event(data: bytes) -> Any:
    for item in SseParser().feed(data + b"\n\n"):
        if isinstance(item, SseEvent) and item.data.strip():
            try:
                return jsoncodec.loads(item.data)
            except GatewayError:
                raise NotA2A("an SSE event's data is not JSON") from None
    raise NotA2A("the SSE transcript holds no event")


def _sse(data: bytes, *, to: Version | None, binding: Binding, source: Version | None, quirks: Quirks) -> Result:
    first = _first_event(data)
    rpc = isinstance(first, dict) and first.get("jsonrpc") == "2.0"
    side = Binding.JSONRPC if rpc else Binding.REST
    if rpc and binding is not Binding.JSONRPC:
        raise NotA2A("a JSON-RPC stream translates to JSON-RPC only (--binding jsonrpc)")
    src_version = source or (_OTHER[to] if to is not None else _version_of(first))
    dst_version = to or _OTHER[src_version]
    if src_version is dst_version:
        raise NotA2A(f"the stream is already A2A {dst_version.value}")
    src, dst = _dialect(src_version, side), _dialect(dst_version, side)
    cx = Cx(quirks=quirks, lenient=True)
    relay = sse_relay(client=dst, client_binding=side, upstream=src, upstream_binding=side,
                      rpc_id=first.get("id") if rpc else None, cx=cx)
    out = relay.feed(data) + relay.close()
    return Result(SSE, src, dst, out, cx.notes)


def operations() -> list[str]:
    """The operation names --method accepts (besides either version's JSON-RPC method name)."""
    return [op.name for op in OPERATIONS]
