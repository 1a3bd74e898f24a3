"""The A2A error code table (checked against a2a-sdk), HTTP statuses, and the gateway's own faults as
JSON-RPC errors and REST replies in every dialect."""

from __future__ import annotations

import inspect

import pytest
from a2a.compat.v0_3 import types as types03
from a2a.utils import errors as pyerrors

from gateway.core import errors as gw
from gateway.core.bindings import jsonrpc
from gateway.core.notes import Cx
from gateway.core.translate import errors as te
from gateway.core.translate import translate
from gateway.core.types import Dialect

V03RPC, V03REST, V10 = Dialect.V03RPC, Dialect.V03REST, Dialect.V10
INFO = te.ERROR_INFO_TYPE


def _notes(cx: Cx) -> list[tuple[str, str]]:
    return [(n.code, n.path) for n in cx.notes]


# --- the table --------------------------------------------------------------------------------------

def test_table_lookups() -> None:
    assert te.BY_CODE[-32001].reason == "TASK_NOT_FOUND"
    assert te.BY_REASON["VERSION_NOT_SUPPORTED"].code == -32009
    assert te.BY_V10_NAME["ExtendedAgentCardNotConfiguredError"].code == -32007
    assert te.BY_V03_NAME["AuthenticatedExtendedCardNotConfiguredError"].code == -32007
    assert "VersionNotSupportedError" not in te.BY_V03_NAME  # v1.0 only
    assert len(te.BY_CODE) == len(te.BY_REASON) == len(te.BY_V10_NAME) == len(te.ERRORS) == 14
    assert set(te.BY_CODE) == {-32700, -32600, -32601, -32602, -32603, *range(-32009, -32000)}


def test_table_agrees_with_a2a_python_v10() -> None:
    """Something we did not write: PYcore's code map and (HTTP, gRPC, reason) mapping."""
    for cls, code in pyerrors.JSON_RPC_ERROR_CODE_MAP.items():
        row = te.BY_CODE[code]
        assert row.v10_name == cls.__name__
        assert cls.message in (row.message, *row.alt_messages)
        mapping = pyerrors.A2A_ERROR_MAPPING.get(cls)
        if mapping is not None:  # PYcore maps every code but -32700
            assert (row.http_v10, row.grpc, row.reason) == (mapping.http_code, mapping.grpc_status,
                                                            mapping.reason)


def test_table_agrees_with_the_v03_types() -> None:
    """Class names, codes and default messages of the v0.3 JSON-RPC types (shipped in a2a-sdk)."""
    for row in te.ERRORS:
        if row.v03_name is None:
            continue
        cls = getattr(types03, row.v03_name)
        fields = cls.model_fields
        assert fields["code"].default == row.code
        assert fields["message"].default == row.message


def test_gateway_error_hints_agree_with_the_table() -> None:
    for cls in _gateway_error_classes():
        if cls.__name__ in OWN_CODES:   # the gateway's own code, outside A2A's table
            assert cls.jsonrpc_code not in te.BY_CODE and -32099 <= cls.jsonrpc_code <= -32000
            continue
        row = te.BY_CODE[cls.jsonrpc_code]
        assert cls.reason == row.reason, cls.__name__


@pytest.mark.parametrize(("code", "dialect", "table", "status"), [
    (-32001, V10, "v10", 404), (-32001, V03REST, "py03", 404),
    (-32002, V10, "py03", 400), (-32002, V03REST, "v10", 400), (-32002, V03REST, "py03", 409),
    (-32003, V03REST, "py03", 501), (-32004, V03REST, "py03", 501), (-32005, V03REST, "py03", 415),
    (-32006, V10, "v10", 500), (-32006, V03REST, "py03", 502), (-32007, V03REST, "py03", 404),
    (-32602, V03REST, "py03", 422), (-32602, V03RPC, "py03", 422), (-32603, V10, "v10", 500),
    (-32000, V10, "v10", 500), (12, V03REST, "py03", 500),
])
def test_http_status_for(code: int, dialect: Dialect, table: te.StatusTable, status: int) -> None:
    assert te.http_status_for(code, dialect, table) == status


# --- the gateway's own faults -----------------------------------------------------------------------

def _gateway_error_classes() -> list[type[gw.GatewayError]]:
    found = [gw.GatewayError]
    for module in (gw, jsonrpc):
        found += [c for _, c in inspect.getmembers(module, inspect.isclass)
                  if issubclass(c, gw.GatewayError) and c not in found]
    return found


def _make(cls: type[gw.GatewayError]) -> gw.GatewayError:
    if issubclass(cls, gw.TranslationError):
        return cls("$.message.parts[0]", "expected an object, got string")
    if cls in (jsonrpc.InvalidEnvelope, jsonrpc.EnvelopeTooDeep):
        return cls("bad envelope", rpc_id=1)
    return cls()


# class → (code, HTTP for v1.0 REST and for v0.3 REST with the v1.0 table, HTTP for v0.3 REST with PY03's)
EXPECTED: dict[str, tuple[int, int, int]] = {
    "GatewayError": (-32603, 500, 500),
    "TranslationError": (-32602, 400, 422),
    "Inexpressible": (-32602, 400, 422),        # a TranslationError the other version cannot say
    "InvalidAgentResponse": (-32006, 500, 502),
    "MalformedEnvelope": (-32700, 400, 400),
    "UnreadableBody": (-32700, 400, 400),
    "InvalidRequest": (-32600, 400, 400),
    "UnknownOperation": (-32601, 404, 404),
    "UnsupportedOperation": (-32004, 400, 501),
    "UnsupportedVersion": (-32009, 400, 400),
    "LimitExceeded": (-32600, 413, 413),        # transport status: the hint wins
    "StreamError": (-32006, 500, 502),
    "UpstreamUnavailable": (-32603, 502, 502),  # case 90
    "UpstreamTimeout": (-32603, 502, 502),
    "AgentUnavailable": (-32603, 503, 503),     # the agent known down: 503 (with Retry-After on HTTP)
    "InvalidEnvelope": (-32600, 400, 400),
    "EnvelopeTooDeep": (-32600, 413, 413),
    "UnknownFamily": (-32603, 500, 500),
    "ClientTooSlow": (-32600, 408, 408),        # transport status: the hint wins
    "EdgeRefusal": (-32603, 500, 500),          # the base of the edge's refusals, never raised itself
    "TaskNotFound": (-32001, 404, 404),
    "PushNotificationNotSupported": (-32003, 400, 501),
    "ContentTypeNotSupported": (-32005, 415, 415),  # S10 §5.4's 415 insisted on (a2a-python's row says 400)
}
# classes with a code of the gateway's own (JSON-RPC's implementation-defined range) → (code, HTTP status,
# the v1.0 REST body's gRPC status name)
OWN_CODES: dict[str, tuple[int, int, str]] = {
    "GatewayOverloaded": (-32099, 503, "UNAVAILABLE"),
    "Unauthenticated": (-32098, 401, "UNAUTHENTICATED"),
    "PermissionDenied": (-32097, 403, "PERMISSION_DENIED"),
    "RateLimited": (-32096, 429, "RESOURCE_EXHAUSTED"),
}


def test_every_gateway_error_has_an_expectation() -> None:
    assert {c.__name__ for c in _gateway_error_classes()} == set(EXPECTED) | set(OWN_CODES)


@pytest.mark.parametrize("name", sorted(OWN_CODES))
def test_builders_for_the_gateways_own_codes(name: str) -> None:
    err = getattr(gw, name)()
    code, http, grpc = OWN_CODES[name]
    info = te.error_info(err.reason)
    assert te.jsonrpc_error(err, V10) == {"code": code, "message": err.message, "data": [info]}
    assert te.jsonrpc_error(err, V03RPC) == te.jsonrpc_error(err, V03REST) == {"code": code, "message": err.message}
    status, body = te.rest_error(err, V10)
    assert status == http == body["error"]["code"] and body["error"]["details"] == [info]
    assert body["error"]["status"] == grpc
    for table in ("v10", "py03"):
        assert te.rest_error(err, V03REST, table) == (http, {"code": code, "message": err.message})  # type: ignore[arg-type]


@pytest.mark.parametrize("cls", [c for c in _gateway_error_classes() if c.__name__ not in OWN_CODES],
                         ids=lambda c: c.__name__)
def test_builders_for_each_gateway_error(cls: type[gw.GatewayError]) -> None:
    err = _make(cls)
    code, http10, http_py03 = EXPECTED[cls.__name__]
    row = te.BY_CODE[code]
    metadata = {"path": err.path} if err.path else None
    info = te.error_info(row.reason, metadata)

    # JSON-RPC, v1.0: ErrorInfo always; v0.3: the path (if any) as a data object
    assert te.jsonrpc_error(err, V10) == {"code": code, "message": err.message, "data": [info]}
    v03 = te.jsonrpc_error(err, V03RPC)
    assert v03 == {"code": code, "message": err.message, **({"data": metadata} if metadata else {})}
    assert te.jsonrpc_error(err, V03REST) == v03

    # the v1.0 builder output is a valid v1.0 error that translates to the v0.3 builder output
    cx = Cx()
    assert translate("error", te.jsonrpc_error(err, V10), src=V10, dst=V03RPC, cx=cx) == v03
    assert [n.code for n in cx.notes] == (["error_data_reshaped"] if metadata else [])

    # REST, v1.0: google.rpc.Status
    status, body = te.rest_error(err, V10)
    assert status == http10 == body["error"]["code"]
    assert body["error"]["details"] == [info]
    assert body["error"]["message"] == err.message
    assert body["error"]["status"] == ("UNAVAILABLE" if http10 in (502, 503) else row.grpc)

    # REST, v0.3: {code, message, type, data?} under either status table
    for table, expected_status in (("v10", http10), ("py03", http_py03)):
        status, body = te.rest_error(err, V03REST, table)  # type: ignore[arg-type]
        assert status == expected_status
        assert body == {"code": code, "message": err.message, "type": row.v10_name,
                        **({"data": metadata} if metadata else {})}


def test_upstream_timeout_status_override() -> None:
    err = gw.UpstreamUnavailable("upstream timed out")
    err.http_status = 504
    status, body = te.rest_error(err, V10)
    assert (status, body["error"]["status"]) == (504, "DEADLINE_EXCEEDED")
    assert te.rest_error(err, V03REST, "py03")[0] == 504
    assert te.jsonrpc_error(err, V03RPC) == {"code": -32603, "message": "upstream timed out"}


def test_unsupported_version_in_the_callers_dialect() -> None:
    """Case 3: -32009 in v1.0 carries ErrorInfo VERSION_NOT_SUPPORTED."""
    err = gw.UnsupportedVersion("A2A protocol version '2.0' is not supported; supported versions: 0.3, 1.0")
    v10 = te.jsonrpc_error(err, V10)
    assert v10["code"] == -32009 and v10["data"][0]["reason"] == "VERSION_NOT_SUPPORTED"
    assert "data" not in te.jsonrpc_error(err, V03RPC)
