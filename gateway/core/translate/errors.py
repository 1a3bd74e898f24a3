"""A2A error payloads: the "error" family (JSON-RPC error objects) and the gateway's faults as JSON-RPC errors,
the table and the REST half re-exported. It may not invent gateway errors (core/errors.py does)."""

from __future__ import annotations

from typing import Any

from gateway.core.errors import GatewayError
from gateway.core.notes import Cx
from gateway.core.translate.error_table import (
    ABSENT,
    BY_CODE,
    BY_REASON,
    BY_V03_NAME,
    BY_V10_NAME,
    DOMAIN,
    ERROR_INFO_TYPE,
    ERRORS,
    UNKNOWN_GRPC,
    UNKNOWN_HTTP,
    VALUE_TYPE,
    ErrorRow,
    StatusTable,
    data_to_v03,
    data_to_v10,
    error_info,
    gateway_http_status,
    http_status_for,
    own_fault,
    rpc_fields,
)
from gateway.core.translate.registry import register
from gateway.core.translate.rest_errors import rest_body, rest_error, rest_error_from_http, rest_to_v03, rest_to_v10
from gateway.core.types import Dialect, JsonObj

__all__ = [
    "BY_CODE",
    "BY_REASON",
    "BY_V03_NAME",
    "BY_V10_NAME",
    "DOMAIN",
    "ERRORS",
    "ERROR_INFO_TYPE",
    "UNKNOWN_GRPC",
    "UNKNOWN_HTTP",
    "VALUE_TYPE",
    "ErrorRow",
    "StatusTable",
    "error_info",
    "error_to_v03",
    "error_to_v10",
    "gateway_http_status",
    "http_status_for",
    "jsonrpc_error",
    "rest_body",
    "rest_error",
    "rest_error_from_http",
    "rest_to_v03",
    "rest_to_v10",
]


def error_to_v10(value: Any, cx: Cx, at: str) -> JsonObj:
    code, message, data = rpc_fields(value, cx, at)
    out: JsonObj = {"code": code, "message": message}
    details = data_to_v10(code, data, cx, at)
    if details is not None:
        out["data"] = details
    return out


def error_to_v03(value: Any, cx: Cx, at: str) -> JsonObj:
    code, message, data = rpc_fields(value, cx, at)
    out: JsonObj = {"code": code, "message": message}
    data = data_to_v03(code, data, cx, f"{at}.data")
    if data is not ABSENT:
        out["data"] = data
    return out


def jsonrpc_error(err: GatewayError, dialect: Dialect) -> JsonObj:
    """A gateway fault as a JSON-RPC error object in the caller's dialect (v1.0: with ErrorInfo)."""
    code, message, reason, metadata = own_fault(err)
    out: JsonObj = {"code": code, "message": message}
    if dialect is Dialect.V10:
        out["data"] = [error_info(reason, metadata)]
    elif metadata:
        out["data"] = metadata
    return out


register({
    "error": {(Dialect.V03RPC, Dialect.V10): error_to_v10, (Dialect.V10, Dialect.V03RPC): error_to_v03},
})
