"""The "rest_error" family: REST (HTTP+JSON) error bodies of both versions read into the hub and
written back, and the gateway's own faults as REST replies. The code table is `table`."""

from __future__ import annotations

import copy
from typing import Any

from gateway.core.errors import GatewayError
from gateway.core.notes import Cx
from gateway.core.translate.errors.table import (
    ABSENT,
    BY_CODE,
    BY_REASON,
    BY_V03_NAME,
    BY_V10_NAME,
    ERROR_INFO_TYPE,
    UNKNOWN_GRPC,
    UNKNOWN_HTTP,
    ErrorRow,
    StatusTable,
    data_to_v03,
    data_to_v10,
    error_info,
    gateway_http_status,
    http_status_for,
    index_rows,
    own_fault,
    rpc_fields,
    with_error_info,
)
from gateway.core.translate.registry import Family, Table
from gateway.core.translate.shape import drop_unknown, expect, obj, required, text
from gateway.core.types import Dialect, JsonObj

_BY_CLASS_NAME = {**BY_V03_NAME, **BY_V10_NAME}
_BY_SLUG = index_rows(lambda r: (r.reason.lower().replace("_", "-"),))  # RFC 9457 type URI, last segment
_BY_MESSAGE = index_rows(lambda r: (r.message.lower(), *(m.lower() for m in r.alt_messages)))
# HTTP status of a REST error whose body names no A2A error (PY03 table first, then the class)
_BY_HTTP_STATUS = {400: -32600, 404: -32001, 405: -32004, 409: -32002, 413: -32600, 415: -32005,
                   422: -32602, 500: -32603, 501: -32004, 502: -32006}
_BY_HTTP_CLASS = {4: -32600, 5: -32603}
# gRPC status for transport-level HTTP statuses the table does not list
_GRPC_BY_HTTP = {401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 429: "RESOURCE_EXHAUSTED", 502: "UNAVAILABLE",
                 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"}

_STATUS_KEYS, _STATUS_INNER_KEYS = frozenset({"error"}), frozenset({"code", "status", "message", "details"})
_REST03_KEYS = frozenset({"code", "message", "type", "data", "status", "title", "detail", "error"})
_MESSAGE_KEYS = ("message", "detail", "title", "error")  # ours/JS/PY03, RFC 9457, `{"error": "text"}`


def _v03_rest_body(code: int, message: str, data: Any) -> JsonObj:
    """The v0.3 REST body every v0.3 client family reads: JS03 reads `code`, PY compat clients `type`."""
    out: JsonObj = {"code": code, "message": message}
    row = BY_CODE.get(code)
    if row is not None:
        out["type"] = row.v10_name
    if data is not ABSENT:
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
    `body` is the decoded JSON body (None if it was not JSON, or the text). Order: ErrorInfo
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
    details = data_to_v10(code, fields.get("data", ABSENT), cx, at)
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
    details = inner.get("details", ABSENT)
    http = _http(expect(inner.get("code", 0), int, f"{inner_at}.code"))
    code = _code_from_details(details)
    if code is None:
        code = _derive_code(message, http, cx, inner_at)
    row = BY_CODE.get(code)
    for key, implied in (("code", row.http_v10 if row else UNKNOWN_HTTP),
                         ("status", row.grpc if row else UNKNOWN_GRPC)):
        if inner.get(key, implied) != implied:  # the v0.3 body carries neither; they come back from the code
            cx.note("error_status_dropped", f"{inner_at}.{key}")
    data = data_to_v03(code, details, cx, f"{inner_at}.details")
    return _v03_rest_body(code, _message(message, code, cx, inner_at), data)


def rest_body(error: JsonObj, dialect: Dialect, cx: Cx, table: StatusTable = "v10",
              at: str = "$") -> tuple[int, JsonObj]:
    """A hub error (v1.0 JSON-RPC error object) as a REST reply in `dialect`: (HTTP status, body)."""
    code, message, data = rpc_fields(error, cx, at)
    if dialect is Dialect.V10:
        if data is not ABSENT and type(data) is not list:
            cx.note("error_data_not_array", f"{at}.data")
            data = data_to_v10(code, data, cx, at)
        details = with_error_info(code, None if data is ABSENT else copy.deepcopy(data), cx, f"{at}.data")
        return http_status_for(code, dialect), _status_body(code, message, details)
    body = _v03_rest_body(code, message, data_to_v03(code, data, cx, f"{at}.data"))
    return http_status_for(code, dialect, table), body


def rest_error(err: GatewayError, dialect: Dialect, table: StatusTable = "v10") -> tuple[int, JsonObj]:
    """A gateway fault as a REST reply in the caller's dialect: (HTTP status, body)."""
    code, message, reason, metadata = own_fault(err)
    status = gateway_http_status(err, dialect, table)
    if dialect is Dialect.V10:
        return status, _status_body(code, message, [error_info(reason, metadata)], status)
    return status, _v03_rest_body(code, message, metadata if metadata else ABSENT)


TRANSLATORS: Table = {
    Family.REST_ERROR: {(Dialect.V03REST, Dialect.V10): rest_to_v10, (Dialect.V10, Dialect.V03REST): rest_to_v03},
}
