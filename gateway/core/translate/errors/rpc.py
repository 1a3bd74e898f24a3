"""The "error" family (JSON-RPC error objects of both versions: v0.3 `data` ⇄ v1.0 details) and the
gateway's own faults as JSON-RPC error objects. It may not invent gateway errors (core/errors.py does)."""

from __future__ import annotations

from typing import Any

from gateway.core.errors import GatewayError
from gateway.core.notes import Cx
from gateway.core.translate.errors.table import ABSENT, data_to_v03, data_to_v10, error_info, own_fault, rpc_fields
from gateway.core.translate.registry import Family, Table
from gateway.core.types import Dialect, JsonObj


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


TRANSLATORS: Table = {
    Family.ERROR: {(Dialect.V03RPC, Dialect.V10): error_to_v10, (Dialect.V10, Dialect.V03RPC): error_to_v03},
}
