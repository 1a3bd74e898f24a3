"""The front door's A2A wire: a planned `Call` as a JSON-RPC request body and headers for a v0.3 or v1.0
agent, and each upstream result (SSE event data or unary body) lifted to a v1.0 StreamResponse or a
JSON-RPC error. It translates through the registry and never does I/O."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gateway.core import jsoncodec
from gateway.core.agui.request import Call
from gateway.core.bindings import jsonrpc
from gateway.core.errors import GatewayError
from gateway.core.notes import Cx
from gateway.core.operations import by_name
from gateway.core.translate import translate
from gateway.core.types import Dialect, JsonObj, Version
from gateway.core.versions import EXTENSIONS_HEADER_FOR

# operation → the StreamResponse member its bare unary result becomes (None: already a wrapper)
_RESULT_MEMBER: dict[str, str | None] = {"send_message": None, "send_streaming_message": None,
                                         "cancel_task": "task"}


@dataclass(frozen=True, slots=True)
class Outgoing:
    body: bytes
    headers: dict[str, str]
    streaming: bool


@dataclass(frozen=True, slots=True)
class Result:
    """One upstream result: exactly one of `item` (v1.0 StreamResponse) and `error` (JSON-RPC error)."""

    item: JsonObj | None = None
    error: JsonObj | None = None


class ProtocolError(GatewayError):
    """The agent's reply is not a usable A2A result (→ RUN_ERROR upstream.protocol_error)."""


def encode(call: Call, version: Version, rpc_id: str) -> Outgoing:
    op = by_name(call.operation)
    params = call.params
    if version is Version.V03:
        params = translate(op.params_family, params, src=Dialect.V10, dst=Dialect.V03RPC, cx=Cx())
    headers = {"Content-Type": "application/json",
               "Accept": "text/event-stream" if op.streaming else "application/json"}
    if version is Version.V10:
        headers["A2A-Version"] = "1.0"
    if call.extensions:
        headers[EXTENSIONS_HEADER_FOR[version]] = ", ".join(call.extensions)
    body = jsoncodec.dumpb(jsonrpc.request_envelope(rpc_id, op.method(version), params))
    return Outgoing(body, headers, op.streaming)


def _lift(value: Any, version: Version, family: str, member: str | None) -> JsonObj:
    if version is Version.V03:
        value = translate(family, value, src=Dialect.V03RPC, dst=Dialect.V10, cx=Cx())
    if member is not None:
        return {member: value}
    if type(value) is not dict:
        raise ProtocolError("agent result is not an object")
    return value


def decode(value: Any, version: Version, operation: str) -> Result:
    """A decoded JSON-RPC response (a stream event's data or a unary body) as a Result."""
    try:
        response = jsonrpc.response_from_json(value)
        if response.error is not None:
            return Result(error=response.error)
        op = by_name(operation)
        family = "stream_response" if op.streaming else op.result_family
        return Result(item=_lift(response.result, version, family, _RESULT_MEMBER.get(operation)))
    except GatewayError as err:
        raise ProtocolError(err.message) from None


def decode_bytes(data: bytes | str, version: Version, operation: str) -> Result:
    try:
        value = jsoncodec.loads(data)
    except GatewayError as err:
        raise ProtocolError(f"agent reply is not JSON: {err.message}") from None
    return decode(value, version, operation)
