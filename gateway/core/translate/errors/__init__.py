"""A2A errors as translated objects: the "error" family (JSON-RPC error objects), the "rest_error" family
(REST error bodies), the code table both read, and the gateway's own faults in either shape."""

from gateway.core.translate.errors.rest import TRANSLATORS as _REST_TRANSLATORS
from gateway.core.translate.errors.rest import rest_body, rest_error, rest_error_from_http, rest_to_v03, rest_to_v10
from gateway.core.translate.errors.rpc import TRANSLATORS as _RPC_TRANSLATORS
from gateway.core.translate.errors.rpc import error_to_v03, error_to_v10, jsonrpc_error
from gateway.core.translate.errors.table import (
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
    error_info,
    gateway_http_status,
    http_status_for,
)
from gateway.core.translate.registry import Table

TRANSLATORS: Table = {**_RPC_TRANSLATORS, **_REST_TRANSLATORS}

__all__ = [
    "BY_CODE",
    "BY_REASON",
    "BY_V03_NAME",
    "BY_V10_NAME",
    "DOMAIN",
    "ERRORS",
    "ERROR_INFO_TYPE",
    "TRANSLATORS",
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
