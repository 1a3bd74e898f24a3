"""gRPC errors ⇄ the A2A error objects of each version: status codes, the `google.rpc.Status` details
(ErrorInfo reason/domain/metadata) of the `grpc-status-details-bin` trailer, the v0.3 SDKs' status
messages `"<ErrorClass>: <message>"`, HTTP statuses both ways. Numbers and bytes only; no grpc here."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from google.protobuf import any_pb2, json_format
from google.protobuf.message import DecodeError
from google.rpc import error_details_pb2, status_pb2

from gateway.core.bindings.grpc.codec import json_value
from gateway.core.errors import GatewayError
from gateway.core.notes import Cx
from gateway.core.tables import bijection
from gateway.core.translate import translate
from gateway.core.translate.errors.table import (
    ABSENT,
    BY_CODE,
    BY_REASON,
    BY_V03_NAME,
    BY_V10_NAME,
    DOMAIN,
    ERROR_INFO_TYPE,
    ErrorRow,
    data_to_v03,
    data_to_v10,
    error_info,
    own_fault,
)
from gateway.core.types import Dialect, JsonObj, Version

DETAILS_KEY = "grpc-status-details-bin"  # trailing metadata holding the serialized google.rpc.Status

STATUS_CODES, STATUS_NAMES = bijection({
    "OK": 0, "CANCELLED": 1, "UNKNOWN": 2, "INVALID_ARGUMENT": 3, "DEADLINE_EXCEEDED": 4, "NOT_FOUND": 5,
    "ALREADY_EXISTS": 6, "PERMISSION_DENIED": 7, "RESOURCE_EXHAUSTED": 8, "FAILED_PRECONDITION": 9,
    "ABORTED": 10, "OUT_OF_RANGE": 11, "UNIMPLEMENTED": 12, "INTERNAL": 13, "UNAVAILABLE": 14,
    "DATA_LOSS": 15, "UNAUTHENTICATED": 16,
})

# The status codes a2a-sdk 0.3's gRPC server sends (grpc_handler.abort_context), by JSON-RPC code. The
# gateway sends the error table's codes (S10's, which a2a-sdk 1.x's v0.3 compat server uses too) and
# reads these only when a status carries nothing better (no ErrorInfo, no class name).
PY03_STATUS: Mapping[int, str] = {
    -32700: "INTERNAL", -32600: "INVALID_ARGUMENT", -32601: "NOT_FOUND", -32602: "INVALID_ARGUMENT",
    -32603: "INTERNAL", -32001: "NOT_FOUND", -32002: "UNIMPLEMENTED", -32003: "UNIMPLEMENTED",
    -32004: "UNIMPLEMENTED", -32005: "UNIMPLEMENTED", -32006: "INTERNAL",
}
# A bare status (no ErrorInfo, no class name) as the JSON-RPC code a caller of another binding gets.
# UNIMPLEMENTED is an RPC the server lacks (a2a-sdk 0.3 has no list/delete push-config RPCs).
BARE_STATUS: Mapping[str, int] = {
    "INVALID_ARGUMENT": -32602, "NOT_FOUND": -32001, "UNIMPLEMENTED": -32004, "FAILED_PRECONDITION": -32004,
    "OUT_OF_RANGE": -32602, "INTERNAL": -32603, "UNKNOWN": -32603, "DATA_LOSS": -32603,
}
# Statuses that are about the call, not an A2A error, and the HTTP status other bindings answer with
# (and back: an HTTP agent's status as the gRPC caller's). Authentication passes through unchanged.
TRANSPORT_STATUS: Mapping[str, int] = {
    "UNAUTHENTICATED": 401, "PERMISSION_DENIED": 403, "RESOURCE_EXHAUSTED": 429, "UNAVAILABLE": 503,
    "DEADLINE_EXCEEDED": 504, "CANCELLED": 499, "ABORTED": 409, "ALREADY_EXISTS": 409,
}
HTTP_STATUS: Mapping[int, str] = {
    400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
    409: "ABORTED", 413: "RESOURCE_EXHAUSTED", 429: "RESOURCE_EXHAUSTED", 499: "CANCELLED",
    501: "UNIMPLEMENTED", 502: "UNAVAILABLE", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED",
}
_CLASS_NAMES: Mapping[str, ErrorRow] = {**BY_V10_NAME, **BY_V03_NAME}


@dataclass(frozen=True, slots=True)
class GrpcStatus:
    """A call's outcome as gRPC carries it: status code, status message, serialized details."""

    code: int
    message: str
    details: bytes = b""  # a google.rpc.Status (the DETAILS_KEY trailer); b"": none

    @property
    def name(self) -> str:
        return STATUS_NAMES.get(self.code, "UNKNOWN")


# ---- status -> A2A error objects ------------------------------------------------------------------

def to_error(status: GrpcStatus, version: Version, cx: Cx) -> JsonObj:
    """An agent's error status as the A2A error object (`{code, message, data?}`) of `version`'s
    JSON-RPC dialect: the code from the ErrorInfo reason, else from a v0.3 status message's class
    name, else from the status code; v1.0 `data` is the details (with ErrorInfo), v0.3 `data` what
    the details carried."""
    details = _details(status, cx)
    row, message = _row(status, details)
    if row is None:
        code = BARE_STATUS.get(status.name, -32603)
        cx.note("error_reason_unknown", "$.code", f"gRPC {status.name}")
    else:
        code = row.code
    error: JsonObj = {"code": code, "message": message}
    if version is Version.V10:
        if details:
            error["data"] = details
        elif row is not None:
            error["data"] = [error_info(row.reason)]
    elif details:
        data = data_to_v03(code, details, cx, "$.data")
        if data is not ABSENT:
            error["data"] = data
    return error


def _details(status: GrpcStatus, cx: Cx) -> list[Any]:
    """The trailer's details as ProtoJSON `Any` objects (the v1.0 JSON-RPC `data` shape)."""
    if not status.details:
        return []
    try:
        parsed = status_pb2.Status.FromString(status.details)
        rendered = json_format.MessageToDict(parsed)
    except (DecodeError, json_format.Error):  # an undecodable trailer, or a detail type nobody knows
        cx.note("error_details_dropped", "$.data", DETAILS_KEY)
        return []
    details: list[Any] = json_value(rendered.get("details", []), sort_keys=False)
    return details


def _row(status: GrpcStatus, details: list[Any]) -> tuple[ErrorRow | None, str]:
    for detail in details:
        if type(detail) is dict and detail.get("@type") == ERROR_INFO_TYPE and detail.get("domain") == DOMAIN:
            row = BY_REASON.get(detail.get("reason", ""))
            if row is not None:
                return row, _strip_class(status.message, row)
    name, sep, rest = status.message.partition(": ")
    if sep and name in _CLASS_NAMES:
        return _CLASS_NAMES[name], rest
    return None, status.message


def _strip_class(message: str, row: ErrorRow) -> str:
    for name in (row.v03_name, row.v10_name):
        if name and message.startswith(name + ": "):
            return message[len(name) + 2:]
    return message


# ---- A2A error objects -> status ------------------------------------------------------------------

def from_error(error: JsonObj, version: Version, cx: Cx) -> GrpcStatus:
    """An A2A error object of `version`'s JSON-RPC dialect as the status a gRPC caller of that version
    gets: the table's status code; ErrorInfo (S10 requires it) and the other details in the trailer;
    for v0.3 the message led by the error class name, which a2a-sdk's v0.3 gRPC client reads."""
    code, message = error.get("code"), error.get("message", "")
    row = BY_CODE.get(code) if type(code) is int else None
    data = error.get("data", ABSENT)
    if version is Version.V03:
        details = (data_to_v10(code, data, cx, "$.data") if type(code) is int else None) or []
        if row is not None:  # a2a-sdk 1.x's v0.3 client reads its own class names (-32007's differs)
            message = f"{row.v10_name}: {message}"
    elif data is ABSENT:
        details = []
    elif type(data) is list:
        details = copy.deepcopy(data)
    else:  # a2a-sdk 1.x puts a plain string here for invalid params
        cx.note("error_data_not_array", "$.data")
        details = []
    grpc_code = STATUS_CODES[row.grpc] if row is not None else STATUS_CODES["UNKNOWN"]
    return GrpcStatus(grpc_code, str(message), _status_bytes(grpc_code, str(message), details, row, cx))


def _status_bytes(code: int, message: str, details: list[Any], row: ErrorRow | None, cx: Cx) -> bytes:
    status = status_pb2.Status(code=code, message=message)
    for i, detail in enumerate(details):
        try:
            status.details.append(json_format.ParseDict(detail, any_pb2.Any()))
        except json_format.ParseError:  # an unknown @type, or ErrorInfo metadata that is not strings
            cx.note("error_details_dropped", f"$.data[{i}]")
    if row is not None and not any(d.type_url == ERROR_INFO_TYPE for d in status.details):
        status.details.insert(0, json_format.ParseDict(error_info(row.reason), any_pb2.Any()))
    return status.SerializeToString(deterministic=True) if status.details else b""


def from_hub_error(hub: JsonObj, version: Version, cx: Cx) -> GrpcStatus:
    """An upstream A2A error read into the v1.0 hub (a v1.0 JSON-RPC error object) as the status of a
    gRPC caller of `version` (through the v0.3 JSON-RPC error for a v0.3 caller)."""
    if version is Version.V03:
        hub = translate("error", hub, src=Dialect.V10, dst=Dialect.V03RPC, cx=cx, at="$.error")
    return from_error(hub, version, cx)


def from_fault(err: GatewayError, version: Version) -> GrpcStatus:
    """The gateway's own fault as a status: the table's code for its JSON-RPC code, unless the fault is
    about transport (413 too large, 502/504 upstream unreachable), which its HTTP hint says."""
    code, message, reason, metadata = own_fault(err)
    row = BY_CODE.get(code)
    if row is not None and err.http_status in (row.http_v10, row.http_py03):
        name = row.grpc
    else:
        name = HTTP_STATUS.get(err.http_status, "UNKNOWN")
    grpc_code = STATUS_CODES[name]
    if version is Version.V03 and row is not None:
        message = f"{row.v10_name}: {message}"
    status = status_pb2.Status(code=grpc_code, message=message)
    status.details.add().Pack(error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN, metadata=metadata or {}))
    return GrpcStatus(grpc_code, message, status.SerializeToString(deterministic=True))
