"""The A2A error code table (JSON-RPC code, both versions' class names, HTTP statuses, gRPC status,
ErrorInfo reason) and what both error families read from it. It registers no family."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

import gateway.core.jsoncodec as jsoncodec
from gateway.core.errors import GatewayError, LimitExceeded, MalformedEnvelope
from gateway.core.notes import Cx
from gateway.core.translate.shape import drop_unknown, expect, obj, required, text
from gateway.core.types import Dialect, JsonObj

ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo"
VALUE_TYPE = "type.googleapis.com/google.protobuf.Value"  # carries v0.3 `data` of codes without a reason
DOMAIN = "a2a-protocol.org"
UNKNOWN_HTTP, UNKNOWN_GRPC = 500, "UNKNOWN"

StatusTable = Literal["v10", "py03"]  # HTTP statuses for v0.3 REST bodies (Quirks.rest_v03_status_table)


@dataclass(frozen=True, slots=True)
class ErrorRow:
    code: int  # JSON-RPC code, identical in both versions
    v03_name: str | None  # class name in the v0.3 types of PY03; None: v1.0 only
    v10_name: str  # S10 / a2a-python 1.x class name (what PY compat clients read from REST `type`)
    http_v10: int  # S10's HTTP mapping (standard codes: PYcore A2A_ERROR_MAPPING)
    http_py03: int  # PY03 utils/error_handlers.py
    grpc: str
    reason: str  # ErrorInfo.reason
    message: str  # default message (PY03's v0.3 types' where they have one)
    alt_messages: tuple[str, ...] = ()  # other SDKs' defaults, recognised on input


ERRORS: tuple[ErrorRow, ...] = (
    # -32700 has no reason in S10; PARSE_ERROR is ours (PY uses INVALID_REQUEST, which -32600 owns)
    ErrorRow(-32700, "JSONParseError", "JSONParseError", 400, 400, "INVALID_ARGUMENT", "PARSE_ERROR",
             "Invalid JSON payload", ("Parse error",)),
    ErrorRow(-32600, "InvalidRequestError", "InvalidRequestError", 400, 400, "INVALID_ARGUMENT",
             "INVALID_REQUEST", "Request payload validation error", ("Invalid Request",)),
    ErrorRow(-32601, "MethodNotFoundError", "MethodNotFoundError", 404, 404, "NOT_FOUND",
             "METHOD_NOT_FOUND", "Method not found"),
    ErrorRow(-32602, "InvalidParamsError", "InvalidParamsError", 400, 422, "INVALID_ARGUMENT",
             "INVALID_PARAMS", "Invalid parameters", ("Invalid params",)),
    ErrorRow(-32603, "InternalError", "InternalError", 500, 500, "INTERNAL", "INTERNAL_ERROR",
             "Internal error"),
    ErrorRow(-32001, "TaskNotFoundError", "TaskNotFoundError", 404, 404, "NOT_FOUND", "TASK_NOT_FOUND",
             "Task not found"),
    ErrorRow(-32002, "TaskNotCancelableError", "TaskNotCancelableError", 400, 409, "FAILED_PRECONDITION",
             "TASK_NOT_CANCELABLE", "Task cannot be canceled"),
    ErrorRow(-32003, "PushNotificationNotSupportedError", "PushNotificationNotSupportedError", 400, 501,
             "FAILED_PRECONDITION", "PUSH_NOTIFICATION_NOT_SUPPORTED", "Push Notification is not supported"),
    ErrorRow(-32004, "UnsupportedOperationError", "UnsupportedOperationError", 400, 501,
             "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION", "This operation is not supported"),
    ErrorRow(-32005, "ContentTypeNotSupportedError", "ContentTypeNotSupportedError", 400, 415,
             "INVALID_ARGUMENT", "CONTENT_TYPE_NOT_SUPPORTED", "Incompatible content types"),
    ErrorRow(-32006, "InvalidAgentResponseError", "InvalidAgentResponseError", 500, 502, "INTERNAL",
             "INVALID_AGENT_RESPONSE", "Invalid agent response"),
    ErrorRow(-32007, "AuthenticatedExtendedCardNotConfiguredError", "ExtendedAgentCardNotConfiguredError",
             400, 404, "FAILED_PRECONDITION", "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
             "Authenticated Extended Card is not configured"),
    ErrorRow(-32008, None, "ExtensionSupportRequiredError", 400, 400, "FAILED_PRECONDITION",
             "EXTENSION_SUPPORT_REQUIRED", "Extension support required"),
    ErrorRow(-32009, None, "VersionNotSupportedError", 400, 400, "FAILED_PRECONDITION",
             "VERSION_NOT_SUPPORTED", "Version not supported", ("Protocol version not supported",)),
)


def index_rows(keys: Callable[[ErrorRow], Iterable[str | int | None]]) -> dict[Any, ErrorRow]:
    table: dict[Any, ErrorRow] = {}
    for row in ERRORS:
        for key in keys(row):
            if key is None:
                continue
            if key in table:
                raise ValueError(f"error table: {key!r} names both {table[key].code} and {row.code}")
            table[key] = row
    return table


BY_CODE: dict[int, ErrorRow] = index_rows(lambda r: (r.code,))
BY_REASON: dict[str, ErrorRow] = index_rows(lambda r: (r.reason,))
BY_V10_NAME: dict[str, ErrorRow] = index_rows(lambda r: (r.v10_name,))
BY_V03_NAME: dict[str, ErrorRow] = index_rows(lambda r: (r.v03_name,))

_RPC_KEYS = frozenset({"code", "message", "data"})
_INFO_KEYS = frozenset({"@type", "reason", "domain", "metadata"})
_VALUE_KEYS = frozenset({"@type", "value"})
ABSENT: Any = object()  # `data` not present (None is a value)


def error_info(reason: str, metadata: JsonObj | None = None) -> JsonObj:
    info: JsonObj = {"@type": ERROR_INFO_TYPE, "reason": reason, "domain": DOMAIN}
    if metadata:
        info["metadata"] = metadata
    return info


def has_error_info(details: Any) -> bool:
    """Whether v1.0 error details hold an A2A ErrorInfo (its type and the A2A domain)."""
    return type(details) is list and any(
        type(d) is dict and d.get("@type") == ERROR_INFO_TYPE and d.get("domain") == DOMAIN for d in details)


def with_error_info(code: int, details: list[Any] | None, cx: Cx, at: str) -> list[Any] | None:
    """v1.0 error details carrying the ErrorInfo S10 requires of every A2A error (what a2a-sdk 1.x reads the
    error from): the agent's own, else one built from the code's row and put first (noted: fasta2a and
    langgraph-api answer a bare `-32001`). A code the table does not know keeps its details as they are."""
    row = BY_CODE.get(code)
    if row is None or has_error_info(details):
        return details
    cx.note("error_info_added", at, row.reason)
    return [error_info(row.reason), *(details or ())]


def http_status_for(code: int, dialect: Dialect, table: StatusTable = "v10") -> int:
    """HTTP status of a REST error body with JSON-RPC `code` in `dialect` (v0.3: per `table`)."""
    row = BY_CODE.get(code)
    if row is None:
        return UNKNOWN_HTTP
    return row.http_py03 if table == "py03" and dialect is not Dialect.V10 else row.http_v10


# --- data <-> details ------------------------------------------------------------------------------

def data_to_v10(code: int, data: Any, cx: Cx, at: str) -> list[Any] | None:
    """v0.3 `data` (or ABSENT) → v1.0 details: ErrorInfo by code, data as a compact-JSON `detail`."""
    row = BY_CODE.get(code)
    if row is None:
        cx.note("error_reason_unknown", f"{at}.code")
        return None if data is ABSENT else [{"@type": VALUE_TYPE, "value": copy.deepcopy(data)}]
    return [error_info(row.reason, None if data is ABSENT else {"detail": jsoncodec.dumps(data)})]


def data_to_v03(code: int, data: Any, cx: Cx, at: str) -> Any:
    """v1.0 `data` (or ABSENT) → v0.3 `data` (or ABSENT): the first ErrorInfo's metadata (our own
    `{"detail": <JSON>}` unwrapped) or the first protobuf Value; every other detail is dropped (noted)."""
    if data is ABSENT:
        if code in BY_CODE:
            cx.note("error_info_missing", at)
        return ABSENT
    if type(data) is not list:  # PYcore -32602 puts a plain string here
        cx.note("error_data_not_array", at)
        return copy.deepcopy(data)
    row = BY_CODE.get(code)
    out, seen_info = ABSENT, False
    for i, item in enumerate(data):
        here = f"{at}[{i}]"
        kind = item.get("@type") if type(item) is dict else None
        if kind == ERROR_INFO_TYPE and not seen_info:
            seen_info = True
            _drop_members(item, _INFO_KEYS, cx, here)
            if row is None or item.get("reason") != row.reason:
                cx.note("error_details_dropped", f"{here}.reason")
            if item.get("domain") != DOMAIN:
                cx.note("error_details_dropped", f"{here}.domain")
            metadata = item.get("metadata")
            if type(metadata) is dict and metadata:
                out = _metadata_to_data(metadata, cx, f"{here}.metadata")
            elif metadata not in (None, {}):
                cx.note("error_details_dropped", f"{here}.metadata")
        elif kind == VALUE_TYPE and out is ABSENT and "value" in item:
            _drop_members(item, _VALUE_KEYS, cx, here)
            if row is not None:
                cx.note("error_data_reshaped", here)
            out = copy.deepcopy(item["value"])
        else:
            cx.note("error_details_dropped", here)
    if row is not None and not seen_info:
        cx.note("error_info_missing", at)
    elif not data:  # an empty array, which a code without a reason never gets back
        cx.note("error_details_dropped", at)
    return out


def _drop_members(detail: JsonObj, known: frozenset[str], cx: Cx, at: str) -> None:
    for key in detail:
        if key not in known:
            cx.note("error_details_dropped", f"{at}.{key}")


def _metadata_to_data(metadata: JsonObj, cx: Cx, at: str) -> Any:
    """ErrorInfo metadata → v0.3 data: our own `{"detail": <compact JSON>}` unwraps exactly; any other
    metadata object becomes the data object itself (the common v0.3 style), noted."""
    detail = metadata.get("detail")
    if len(metadata) == 1 and type(detail) is str:
        try:
            value = jsoncodec.loads(detail)
        except (MalformedEnvelope, LimitExceeded):
            value = ABSENT
        if value is not ABSENT and jsoncodec.dumps(value) == detail:
            return value
    cx.note("error_data_reshaped", at)
    return copy.deepcopy(metadata)


# --- JSON-RPC error objects and the gateway's own faults -----------------------------------------

def rpc_fields(value: Any, cx: Cx, at: str) -> tuple[int, str, Any]:
    error = obj(value, at)
    code = expect(required(error, "code", at), int, f"{at}.code")
    message = text(required(error, "message", at), f"{at}.message")
    drop_unknown(error, _RPC_KEYS, cx, at)
    return code, message, error.get("data", ABSENT)


def own_fault(err: GatewayError) -> tuple[int, str, str, JsonObj | None]:
    row = BY_CODE.get(err.jsonrpc_code)
    metadata = {"path": err.path} if err.path else None
    return err.jsonrpc_code, err.message, row.reason if row else err.reason, metadata


def gateway_http_status(err: GatewayError, dialect: Dialect, table: StatusTable = "v10") -> int:
    """The table's status for the code, unless the error's hint is a transport status the row does
    not list (413 too large, 502/504 upstream unreachable) or one the error insists on (a body's media type:
    415, as S10 §5.4 says, where a2a-python answers 400), which then wins."""
    row = BY_CODE.get(err.jsonrpc_code)
    if row is None or err.http_status not in (row.http_v10, row.http_py03) or err.transport_status:
        return err.http_status
    return http_status_for(err.jsonrpc_code, dialect, table)
