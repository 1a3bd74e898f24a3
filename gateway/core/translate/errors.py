"""A2A error payloads and the §6.1 code table: JSON-RPC errors ("error"), REST error bodies ("rest_error"),
and renderings of the gateway's own faults. It may not invent gateway errors (core/errors.py does)."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from gateway.core import jsoncodec
from gateway.core.errors import GatewayError, LimitExceeded, MalformedEnvelope
from gateway.core.notes import Cx
from gateway.core.translate.registry import register
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
    v03_name: str | None  # T03 class name; None: v1.0 only
    v10_name: str  # S10 / a2a-python 1.x class name (what PY compat clients read from REST `type`)
    http_v10: int  # S10 §5.4 (standard codes: PYcore A2A_ERROR_MAPPING)
    http_py03: int  # PY03 utils/error_handlers.py
    grpc: str
    reason: str  # ErrorInfo.reason
    message: str  # default message (T03 where it has one)
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


def _index(keys: Callable[[ErrorRow], Iterable[str | int | None]]) -> dict[Any, ErrorRow]:
    table: dict[Any, ErrorRow] = {}
    for row in ERRORS:
        for key in keys(row):
            if key is None:
                continue
            if key in table:
                raise ValueError(f"error table: {key!r} names both {table[key].code} and {row.code}")
            table[key] = row
    return table


BY_CODE: dict[int, ErrorRow] = _index(lambda r: (r.code,))
BY_REASON: dict[str, ErrorRow] = _index(lambda r: (r.reason,))
BY_V10_NAME: dict[str, ErrorRow] = _index(lambda r: (r.v10_name,))
BY_V03_NAME: dict[str, ErrorRow] = _index(lambda r: (r.v03_name,))
_BY_CLASS_NAME = {**BY_V03_NAME, **BY_V10_NAME}
_BY_SLUG = _index(lambda r: (r.reason.lower().replace("_", "-"),))  # RFC 9457 type URI, last segment
_BY_MESSAGE = _index(lambda r: (r.message.lower(), *(m.lower() for m in r.alt_messages)))
# HTTP status of a REST error whose body names no A2A error (PY03 table first, then the class)
_BY_HTTP_STATUS = {400: -32600, 404: -32001, 405: -32004, 409: -32002, 413: -32600, 415: -32005,
                   422: -32602, 500: -32603, 501: -32004, 502: -32006}
_BY_HTTP_CLASS = {4: -32600, 5: -32603}
# gRPC status for transport-level HTTP statuses the table does not list
_GRPC_BY_HTTP = {502: "UNAVAILABLE", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"}

_RPC_KEYS = frozenset({"code", "message", "data"})
_STATUS_KEYS, _STATUS_INNER_KEYS = frozenset({"error"}), frozenset({"code", "status", "message", "details"})
_REST03_KEYS = frozenset({"code", "message", "type", "data", "status", "title", "detail", "error"})
_INFO_KEYS = frozenset({"@type", "reason", "domain", "metadata"})
_VALUE_KEYS = frozenset({"@type", "value"})
_MESSAGE_KEYS = ("message", "detail", "title", "error")  # ours/JS/PY03, RFC 9457, `{"error": "text"}`
_ABSENT: Any = object()


def error_info(reason: str, metadata: JsonObj | None = None) -> JsonObj:
    info: JsonObj = {"@type": ERROR_INFO_TYPE, "reason": reason, "domain": DOMAIN}
    if metadata:
        info["metadata"] = metadata
    return info


def http_status_for(code: int, dialect: Dialect, table: StatusTable = "v10") -> int:
    """HTTP status of a REST error body with JSON-RPC `code` in `dialect` (v0.3: per `table`)."""
    row = BY_CODE.get(code)
    if row is None:
        return UNKNOWN_HTTP
    return row.http_py03 if table == "py03" and dialect is not Dialect.V10 else row.http_v10


# --- data <-> details ------------------------------------------------------------------------------

def _data_to_v10(code: int, data: Any, cx: Cx, at: str) -> list[Any] | None:
    """v0.3 `data` (or _ABSENT) → v1.0 details: ErrorInfo by code, data as a compact-JSON `detail`."""
    row = BY_CODE.get(code)
    if row is None:
        cx.note("error_reason_unknown", f"{at}.code")
        return None if data is _ABSENT else [{"@type": VALUE_TYPE, "value": copy.deepcopy(data)}]
    return [error_info(row.reason, None if data is _ABSENT else {"detail": jsoncodec.dumps(data)})]


def _data_to_v03(code: int, data: Any, cx: Cx, at: str) -> Any:
    """v1.0 `data` (or _ABSENT) → v0.3 `data` (or _ABSENT), per §6.3."""
    if data is _ABSENT:
        if code in BY_CODE:
            cx.note("error_info_missing", at)
        return _ABSENT
    if type(data) is not list:  # PYcore -32602 puts a plain string here
        cx.note("error_data_not_array", at)
        return copy.deepcopy(data)
    row = BY_CODE.get(code)
    out, seen_info = _ABSENT, False
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
        elif kind == VALUE_TYPE and out is _ABSENT and "value" in item:
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
            value = _ABSENT
        if value is not _ABSENT and jsoncodec.dumps(value) == detail:
            return value
    cx.note("error_data_reshaped", at)
    return copy.deepcopy(metadata)


# --- "error": JSON-RPC error objects ---------------------------------------------------------------

def _rpc_fields(value: Any, cx: Cx, at: str) -> tuple[int, str, Any]:
    error = obj(value, at)
    code = expect(required(error, "code", at), int, f"{at}.code")
    message = text(required(error, "message", at), f"{at}.message")
    drop_unknown(error, _RPC_KEYS, cx, at)
    return code, message, error.get("data", _ABSENT)


def error_to_v10(value: Any, cx: Cx, at: str) -> JsonObj:
    code, message, data = _rpc_fields(value, cx, at)
    out: JsonObj = {"code": code, "message": message}
    details = _data_to_v10(code, data, cx, at)
    if details is not None:
        out["data"] = details
    return out


def error_to_v03(value: Any, cx: Cx, at: str) -> JsonObj:
    code, message, data = _rpc_fields(value, cx, at)
    out: JsonObj = {"code": code, "message": message}
    data = _data_to_v03(code, data, cx, f"{at}.data")
    if data is not _ABSENT:
        out["data"] = data
    return out


# --- "rest_error": HTTP+JSON error bodies ----------------------------------------------------------

def _v03_rest_body(code: int, message: str, data: Any) -> JsonObj:
    """The v0.3 REST body every v0.3 client family reads (§6.3): JS03 `code`, PY compat `type`."""
    out: JsonObj = {"code": code, "message": message}
    row = BY_CODE.get(code)
    if row is not None:
        out["type"] = row.v10_name
    if data is not _ABSENT:
        out["data"] = data
    return out


def _status_body(code: int, message: str, details: list[Any] | None, http: int | None = None) -> JsonObj:
    row = BY_CODE.get(code)
    http = http if http is not None else (row.http_v10 if row else UNKNOWN_HTTP)
    grpc = _GRPC_BY_HTTP.get(http) or (row.grpc if row else UNKNOWN_GRPC)
    inner: JsonObj = {"code": http, "status": grpc, "message": message}
    if details:
        inner["details"] = details
    return {"error": inner}


def _code_from_details(details: Any) -> int | None:
    for item in details if type(details) is list else ():
        if type(item) is dict and item.get("@type") == ERROR_INFO_TYPE:
            reason = item.get("reason")
            row = BY_REASON.get(reason) if type(reason) is str else None
            return row.code if row else None
    return None


def _derive_code(message: str | None, http: int | None, cx: Cx, at: str) -> int:
    """Last resorts for a REST error naming no A2A error: known default message, then HTTP status."""
    row = _BY_MESSAGE.get(message.strip().lower()) if message else None
    if row is not None:
        cx.note("error_code_from_message", f"{at}.code")
        return row.code
    if http is not None and (http in _BY_HTTP_STATUS or http // 100 in _BY_HTTP_CLASS):
        cx.note("error_code_from_http_status", f"{at}.code")
        return _BY_HTTP_STATUS.get(http) or _BY_HTTP_CLASS[http // 100]
    cx.note("error_code_defaulted", f"{at}.code")
    return -32603


def _row_by_type(value: Any) -> ErrorRow | None:
    """A REST body's `type`: a class name of either version, or an RFC 9457 type URI."""
    if type(value) is not str:
        return None
    return _BY_CLASS_NAME.get(value) or _BY_SLUG.get(value.rsplit("/", 1)[-1])


def _http(value: Any) -> int | None:
    return value if type(value) is int and 100 <= value <= 599 else None


def _str(value: Any) -> str | None:
    return value if type(value) is str and value else None


def _message(message: str | None, code: int, cx: Cx, at: str) -> str:
    if message is not None:
        return message
    cx.note("error_message_defaulted", f"{at}.message")
    row = BY_CODE.get(code)
    return row.message if row else "Unknown error"


def rest_error_from_http(status: int | None, body: Any, cx: Cx, at: str = "$") -> JsonObj:
    """Normalise any REST error reply, v0.3 or v1.0, into the hub (a v1.0 JSON-RPC error object).
    `body` is the decoded JSON body (None if it was not JSON, or the text). Order (§6.3): ErrorInfo
    reason (v1.0, GO), body `code` (JS), body `type` (class name or RFC 9457 URI), default message
    (PY03 `{"message"}`), HTTP status."""
    if type(body) is dict and type(body.get("error")) is dict:  # google.rpc.Status (v1.0, GO compat)
        inner, at = body["error"], f"{at}.error"
        details = inner.get("details") if type(inner.get("details")) is list else None
        message = _str(inner.get("message"))
        status = status or _http(inner.get("code"))
        code = _code_from_details(details)
        if code is None:
            code = _derive_code(message, status, cx, at)
        row = BY_CODE.get(code)
        data = copy.deepcopy(details) or []
        if row is not None and _code_from_details(data) is None:
            data.insert(0, error_info(row.reason))
        hub: JsonObj = {"code": code, "message": _message(message, code, cx, at)}
        if data:
            hub["data"] = data
        return hub
    fields = body if type(body) is dict else {}
    message = next(filter(None, map(_str, (fields.get(k) for k in _MESSAGE_KEYS))), None)
    if message is None and type(body) is str:
        message = _str(body.strip())
    status = status or _http(fields.get("status")) or _http(fields.get("code"))
    raw_code = fields.get("code")
    row = (BY_CODE.get(raw_code) if type(raw_code) is int else None) or _row_by_type(fields.get("type"))
    if row is not None:
        code = row.code
    elif type(raw_code) is int and raw_code < 0:  # a JSON-RPC code outside the table
        code = raw_code
    else:
        code = _derive_code(message, status, cx, at)
    hub = {"code": code, "message": _message(message, code, cx, at)}
    details = _data_to_v10(code, fields.get("data", _ABSENT), cx, at)
    if details is not None:
        hub["data"] = details
    return hub


def rest_to_v10(value: Any, cx: Cx, at: str) -> JsonObj:
    """v0.3 REST body (JS `{code,message}`, ours with `type`, PY03 `{message}`, GO Status) → Status."""
    body = obj(value, at)
    drop_unknown(body, _REST03_KEYS, cx, at)
    hub = rest_error_from_http(None, body, cx, at)
    return _status_body(hub["code"], hub["message"], hub.get("data"))


def rest_to_v03(value: Any, cx: Cx, at: str) -> JsonObj:
    """google.rpc.Status → v0.3 REST body; the JSON-RPC code comes from the ErrorInfo reason."""
    body = obj(value, at)
    drop_unknown(body, _STATUS_KEYS, cx, at)
    inner_at = f"{at}.error"
    inner = obj(required(body, "error", at), inner_at)
    drop_unknown(inner, _STATUS_INNER_KEYS, cx, inner_at)
    message = _str(text(inner.get("message", ""), f"{inner_at}.message"))
    details = inner.get("details", _ABSENT)
    http = _http(expect(inner.get("code", 0), int, f"{inner_at}.code"))
    code = _code_from_details(details)
    if code is None:
        code = _derive_code(message, http, cx, inner_at)
    row = BY_CODE.get(code)
    for key, implied in (("code", row.http_v10 if row else UNKNOWN_HTTP),
                         ("status", row.grpc if row else UNKNOWN_GRPC)):
        if inner.get(key, implied) != implied:  # the v0.3 body carries neither; they come back from the code
            cx.note("error_status_dropped", f"{inner_at}.{key}")
    data = _data_to_v03(code, details, cx, f"{inner_at}.details")
    return _v03_rest_body(code, _message(message, code, cx, inner_at), data)


def rest_body(error: JsonObj, dialect: Dialect, cx: Cx, table: StatusTable = "v10",
              at: str = "$") -> tuple[int, JsonObj]:
    """A hub error (v1.0 JSON-RPC error object) as a REST reply in `dialect`: (HTTP status, body)."""
    code, message, data = _rpc_fields(error, cx, at)
    if dialect is Dialect.V10:
        if data is not _ABSENT and type(data) is not list:
            cx.note("error_data_not_array", f"{at}.data")
            data = _data_to_v10(code, data, cx, at)
        details = None if data is _ABSENT else copy.deepcopy(data)
        return http_status_for(code, dialect), _status_body(code, message, details)
    body = _v03_rest_body(code, message, _data_to_v03(code, data, cx, f"{at}.data"))
    return http_status_for(code, dialect, table), body


# --- the gateway's own faults ----------------------------------------------------------------------

def _own_fault(err: GatewayError) -> tuple[int, str, str, JsonObj | None]:
    row = BY_CODE.get(err.jsonrpc_code)
    metadata = {"path": err.path} if err.path else None
    return err.jsonrpc_code, err.message, row.reason if row else err.reason, metadata


def jsonrpc_error(err: GatewayError, dialect: Dialect) -> JsonObj:
    """A gateway fault as a JSON-RPC error object in the caller's dialect (v1.0: with ErrorInfo)."""
    code, message, reason, metadata = _own_fault(err)
    out: JsonObj = {"code": code, "message": message}
    if dialect is Dialect.V10:
        out["data"] = [error_info(reason, metadata)]
    elif metadata:
        out["data"] = metadata
    return out


def gateway_http_status(err: GatewayError, dialect: Dialect, table: StatusTable = "v10") -> int:
    """The table's status for the code, unless the error's hint is a transport status the row does
    not list (413 too large, 502/504 upstream unreachable), which then wins."""
    row = BY_CODE.get(err.jsonrpc_code)
    if row is None or err.http_status not in (row.http_v10, row.http_py03):
        return err.http_status
    return http_status_for(err.jsonrpc_code, dialect, table)


def rest_error(err: GatewayError, dialect: Dialect, table: StatusTable = "v10") -> tuple[int, JsonObj]:
    """A gateway fault as a REST reply in the caller's dialect: (HTTP status, body)."""
    code, message, reason, metadata = _own_fault(err)
    status = gateway_http_status(err, dialect, table)
    if dialect is Dialect.V10:
        return status, _status_body(code, message, [error_info(reason, metadata)], status)
    return status, _v03_rest_body(code, message, metadata if metadata else _ABSENT)


register({
    "error": {(Dialect.V03RPC, Dialect.V10): error_to_v10, (Dialect.V10, Dialect.V03RPC): error_to_v03},
    "rest_error": {(Dialect.V03REST, Dialect.V10): rest_to_v10, (Dialect.V10, Dialect.V03REST): rest_to_v03},
})
