"""The §6.1 error table (checked against a2a-sdk), the "error"/"rest_error" families beyond the goldens,
REST error derivation from PY03/JS/GO replies (§9 cases 85-90), builders for every gateway fault."""

from __future__ import annotations

import copy
import inspect
from typing import Any

import pytest
from a2a.compat.v0_3 import types as types03
from a2a.utils import errors as pyerrors
from hypothesis import given
from hypothesis import strategies as st

from gateway.core import errors as gw
from gateway.core.bindings import jsonrpc
from gateway.core.notes import Cx
from gateway.core.translate import errors as te
from gateway.core.translate.registry import translate
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
    """Class names, codes and default messages of the v0.3 JSON-RPC types (T03, shipped in a2a-sdk)."""
    for row in te.ERRORS:
        if row.v03_name is None:
            continue
        cls = getattr(types03, row.v03_name)
        fields = cls.model_fields
        assert fields["code"].default == row.code
        assert fields["message"].default == row.message


def test_gateway_error_hints_agree_with_the_table() -> None:
    for cls in _gateway_error_classes():
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


# --- the "error" family: validation and properties -------------------------------------------------

@pytest.mark.parametrize(("value", "path"), [
    ("boom", "$"), (None, "$"), ([], "$"),
    ({"message": "m"}, "$.code"), ({"code": "-32001", "message": "m"}, "$.code"),
    ({"code": True, "message": "m"}, "$.code"), ({"code": -32001}, "$.message"),
    ({"code": -32001, "message": 3}, "$.message"),
])
@pytest.mark.parametrize(("src", "dst"), [(V03RPC, V10), (V10, V03RPC)])
def test_error_family_rejects_non_errors(value: Any, path: str, src: Dialect, dst: Dialect) -> None:
    with pytest.raises(gw.TranslationError) as exc:
        translate("error", value, src=src, dst=dst, cx=Cx())
    assert exc.value.path == path


def test_integral_float_code_accepted() -> None:
    out = translate("error", {"code": -32001.0, "message": "m"}, src=V03RPC, dst=V10, cx=Cx())
    assert out["code"] == -32001 and type(out["code"]) is int


def test_output_does_not_alias_input() -> None:
    src = {"code": -32099, "message": "m", "data": {"deep": [1]}}
    out = translate("error", src, src=V03RPC, dst=V10, cx=Cx())
    out["data"][0]["value"]["deep"].append(2)
    assert src["data"] == {"deep": [1]}
    back = translate("error", out, src=V10, dst=V03RPC, cx=Cx())
    back["data"]["deep"].append(3)
    assert out["data"][0]["value"]["deep"] == [1, 2]


def test_first_carrier_wins_rest_dropped() -> None:
    cx = Cx()
    v10 = {"code": -32001, "message": "m", "data": [
        {"@type": INFO, "reason": "TASK_NOT_FOUND", "domain": te.DOMAIN, "metadata": {"detail": "7"}},
        {"@type": INFO, "reason": "OTHER", "domain": te.DOMAIN},
        "not-an-any",
    ]}
    assert translate("error", v10, src=V10, dst=V03RPC, cx=cx) == {"code": -32001, "message": "m", "data": 7}
    assert _notes(cx) == [("error_details_dropped", "$.data[1]"), ("error_details_dropped", "$.data[2]")]


def test_detail_that_is_not_our_encoding_stays_an_object() -> None:
    cx = Cx()
    v10 = {"code": -32001, "message": "m", "data": [
        {"@type": INFO, "reason": "TASK_NOT_FOUND", "domain": te.DOMAIN, "metadata": {"detail": '{"a": 1}'}}]}
    out = translate("error", v10, src=V10, dst=V03RPC, cx=cx)
    assert out["data"] == {"detail": '{"a": 1}'}
    assert _notes(cx) == [("error_data_reshaped", "$.data[0].metadata")]


def test_value_detail_with_a_known_code_is_noted() -> None:
    cx = Cx()
    v10 = {"code": -32001, "message": "m", "data": [{"@type": te.VALUE_TYPE, "value": [1]}]}
    assert translate("error", v10, src=V10, dst=V03RPC, cx=cx)["data"] == [1]
    assert _notes(cx) == [("error_data_reshaped", "$.data[0]"), ("error_info_missing", "$.data")]


def test_empty_metadata_is_absent() -> None:
    """PYcore always emits `metadata: {}`."""
    cx = Cx()
    v10 = {"code": -32004, "message": "m",
           "data": [{"@type": INFO, "reason": "UNSUPPORTED_OPERATION", "domain": te.DOMAIN, "metadata": {}}]}
    assert translate("error", v10, src=V10, dst=V03RPC, cx=cx) == {"code": -32004, "message": "m"}
    assert cx.notes == []


_json = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**63), max_value=2**64)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
_codes = st.sampled_from(sorted(te.BY_CODE)) | st.integers(min_value=-32099, max_value=-32010)


@given(_codes, st.text(max_size=20), st.none() | st.just(0) | _json)
def test_v03_errors_round_trip(code: int, message: str, data: Any) -> None:
    """Every v0.3 error survives v0.3 → v1.0 → v0.3 exactly, and the way back adds no notes."""
    v03: dict[str, Any] = {"code": code, "message": message}
    if data != 0:
        v03["data"] = data
    v10 = translate("error", v03, src=V03RPC, dst=V10, cx=Cx())
    cx = Cx()
    assert translate("error", v10, src=V10, dst=V03RPC, cx=cx) == v03
    assert cx.notes == []


@given(_codes, st.text(max_size=10), st.lists(st.fixed_dictionaries(
    {"@type": st.sampled_from([INFO, te.VALUE_TYPE, "type.googleapis.com/google.rpc.BadRequest"])},
    optional={"reason": st.sampled_from(sorted(te.BY_REASON)), "domain": st.just(te.DOMAIN),
              "metadata": st.dictionaries(st.text(max_size=4), st.text(max_size=4), max_size=2),
              "value": _json}), max_size=3))
def test_no_notes_means_exact_round_trip_from_v10(code: int, message: str, details: list[Any]) -> None:
    v10: dict[str, Any] = {"code": code, "message": message, "data": details}
    cx = Cx()
    v03 = translate("error", v10, src=V10, dst=V03RPC, cx=cx)
    back = translate("error", v03, src=V03RPC, dst=V10, cx=Cx())
    if not cx.notes:  # exact up to ProtoJSON defaults: an empty metadata map is no map
        for detail in details:
            if detail.get("metadata") == {}:
                del detail["metadata"]
        assert back == v10


_rest03 = st.fixed_dictionaries({"code": _codes, "message": st.text(min_size=1, max_size=10)},
                                 optional={"data": _json})


@given(_rest03)
def test_v03_rest_errors_round_trip(body: dict[str, Any]) -> None:
    row = te.BY_CODE.get(body["code"])
    if row is not None:
        body["type"] = row.v10_name
    there, back = Cx(), Cx()
    v10 = translate("rest_error", body, src=V03REST, dst=V10, cx=there)
    if row is None:  # a Status has no slot for a JSON-RPC code without a reason
        assert _notes(there) == [("error_reason_unknown", "$.code")]
        return
    assert translate("rest_error", v10, src=V10, dst=V03REST, cx=back) == body
    assert there.notes == back.notes == []


@given(st.sampled_from(te.ERRORS), st.sampled_from([400, 404, 500, 502]),
       st.sampled_from(["NOT_FOUND", "INTERNAL", "FAILED_PRECONDITION"]), st.text(max_size=8),
       st.lists(st.fixed_dictionaries({"@type": st.sampled_from([INFO, "type.googleapis.com/x.Y"])},
                                      optional={"reason": st.sampled_from(sorted(te.BY_REASON)),
                                                "domain": st.just(te.DOMAIN)}), max_size=2))
def test_no_notes_means_exact_round_trip_from_status(row: te.ErrorRow, http: int, grpc: str, message: str,
                                                     details: list[Any]) -> None:
    inner: dict[str, Any] = {"code": http, "status": grpc, "message": message}
    if details:
        inner["details"] = details
    cx = Cx()
    v03 = translate("rest_error", {"error": inner}, src=V10, dst=V03REST, cx=cx)
    back = translate("rest_error", v03, src=V03REST, dst=V10, cx=Cx())
    if not cx.notes:
        assert back == {"error": inner}


# --- REST error derivation -------------------------------------------------------------------------

def _status(http: int, grpc: str, message: str, reason: str | None = None) -> dict[str, Any]:
    inner: dict[str, Any] = {"code": http, "status": grpc, "message": message}
    if reason:
        inner["details"] = [{"@type": INFO, "reason": reason, "domain": te.DOMAIN}]
    return {"error": inner}


@pytest.mark.parametrize(("status", "body", "code", "notes"), [
    # PY03: {"message"} + its status table (case 88)
    (409, {"message": "Task abc is already completed"}, -32002, ["error_code_from_http_status"]),
    (415, {"message": "unsupported"}, -32005, ["error_code_from_http_status"]),
    (422, {"message": "bad field"}, -32602, ["error_code_from_http_status"]),
    (501, {"message": "nope"}, -32004, ["error_code_from_http_status"]),
    (502, {"message": "agent said garbage"}, -32006, ["error_code_from_http_status"]),
    (404, {"message": "Task not found"}, -32001, ["error_code_from_message"]),
    (501, {"message": "Push Notification is not supported"}, -32003, ["error_code_from_message"]),
    (404, {"message": "Authenticated Extended Card is not configured"}, -32007, ["error_code_from_message"]),
    # JS: {code, message}; the code wins over the status
    (400, {"code": -32001, "message": "gone"}, -32001, []),
    (400, {"code": -32002, "message": "done", "data": {"state": "completed"}}, -32002, []),
    # PY compat clients: the v1 class name in `type`
    (400, {"type": "TaskNotCancelableError", "message": "x"}, -32002, []),
    # GO: a v1-style Status body labelled application/problem+json
    (404, _status(404, "NOT_FOUND", "task t1", "TASK_NOT_FOUND"), -32001, []),
    (400, _status(400, "FAILED_PRECONDITION", "x", "UNSUPPORTED_OPERATION"), -32004, []),
    # v1.0 PYcore parse failures: ErrorInfo INVALID_REQUEST
    (400, _status(400, "INVALID_ARGUMENT", "bad json", "INVALID_REQUEST"), -32600, []),
    # frameworks and proxies
    (404, {"detail": "Not Found"}, -32001, ["error_code_from_http_status"]),
    (404, {"error": "Task not found"}, -32001, ["error_code_from_message"]),
    (404, _status(400, "FAILED_PRECONDITION", "x"), -32001, ["error_code_from_http_status"]),
    (405, {"detail": "Method Not Allowed"}, -32004, ["error_code_from_http_status"]),
    (503, "Service Unavailable", -32603, ["error_code_from_http_status"]),
    (418, None, -32600, ["error_code_from_http_status", "error_message_defaulted"]),
    (None, None, -32603, ["error_code_defaulted", "error_message_defaulted"]),
    (None, {"code": 404, "message": "no such task"}, -32001, ["error_code_from_http_status"]),
    (None, {"code": -32050, "message": "custom"}, -32050, ["error_reason_unknown"]),
])
def test_rest_error_from_http(status: int | None, body: Any, code: int, notes: list[str]) -> None:
    cx = Cx()
    hub = te.rest_error_from_http(status, copy.deepcopy(body), cx)
    assert hub["code"] == code
    assert [n.code for n in cx.notes] == notes
    assert type(hub["message"]) is str and hub["message"]
    row = te.BY_CODE.get(code)
    if row is not None:
        assert hub["data"][0] == {"@type": INFO, "reason": row.reason, "domain": te.DOMAIN, **(
            {"metadata": hub["data"][0]["metadata"]} if "metadata" in hub["data"][0] else {})}


def test_py03_data_becomes_error_info_detail() -> None:
    body = {"code": -32002, "message": "done", "data": {"state": "completed"}}
    hub = te.rest_error_from_http(400, body, Cx())
    assert hub["data"] == [{"@type": INFO, "reason": "TASK_NOT_CANCELABLE", "domain": te.DOMAIN,
                            "metadata": {"detail": '{"state":"completed"}'}}]


def test_status_without_error_info_gets_one_first() -> None:
    body = {"error": {"code": 400, "status": "INVALID_ARGUMENT", "message": "Invalid params",
                      "details": [{"@type": "type.googleapis.com/google.rpc.BadRequest",
                                   "fieldViolations": []}]}}
    cx = Cx()
    hub = te.rest_error_from_http(400, body, cx)
    assert hub["code"] == -32602
    assert [d["@type"] for d in hub["data"]] == [INFO, "type.googleapis.com/google.rpc.BadRequest"]
    assert _notes(cx) == [("error_code_from_message", "$.error.code")]


@pytest.mark.parametrize("row", te.ERRORS, ids=lambda r: r.v10_name)
def test_v10_status_round_trips_through_the_hub(row: te.ErrorRow) -> None:
    """Cross-binding (§6.3): REST v1.0 reply → hub → REST v1.0 reply, and the hub is a JSON-RPC error."""
    body = _status(row.http_v10, row.grpc, row.message, row.reason)
    cx = Cx()
    hub = te.rest_error_from_http(row.http_v10, body, cx)
    assert hub == {"code": row.code, "message": row.message, "data": body["error"]["details"]}
    assert te.rest_body(hub, V10, cx) == (row.http_v10, body)
    status03, body03 = te.rest_body(hub, V03REST, cx, "py03")
    assert status03 == row.http_py03
    assert body03 == {"code": row.code, "message": row.message, "type": row.v10_name}
    assert cx.notes == []


def test_rest_body_string_data_to_v10() -> None:
    """Case 86 across bindings: PYcore string data cannot ride in Status details; it is wrapped."""
    cx = Cx()
    status, body = te.rest_body({"code": -32602, "message": "Invalid params", "data": "bad"}, V10, cx)
    assert status == 400
    assert body["error"]["details"] == [{"@type": INFO, "reason": "INVALID_PARAMS", "domain": te.DOMAIN,
                                         "metadata": {"detail": '"bad"'}}]
    assert _notes(cx) == [("error_data_not_array", "$.data")]


def test_rest_body_unknown_code() -> None:
    status, body = te.rest_body({"code": -32050, "message": "custom"}, V10, Cx())
    assert (status, body) == (500, {"error": {"code": 500, "status": "UNKNOWN", "message": "custom"}})
    status, body = te.rest_body({"code": -32050, "message": "custom"}, V03REST, Cx(), "py03")
    assert (status, body) == (500, {"code": -32050, "message": "custom"})


@pytest.mark.parametrize(("value", "path"), [("x", "$"), ({}, "$.error"), ({"error": "x"}, "$.error"),
                                             ({"error": {"message": 3}}, "$.error.message"),
                                             ({"error": {"code": "404"}}, "$.error.code")])
def test_rest_error_family_rejects_non_status(value: Any, path: str) -> None:
    with pytest.raises(gw.TranslationError) as exc:
        translate("rest_error", value, src=V10, dst=V03REST, cx=Cx())
    assert exc.value.path == path
    with pytest.raises(gw.TranslationError):
        translate("rest_error", "x", src=V03REST, dst=V10, cx=Cx())


def test_rest_v03_unknown_members_noted() -> None:
    cx = Cx()
    body = {"code": -32001, "message": "m", "stack": "..."}
    out = translate("rest_error", body, src=V03REST, dst=V10, cx=cx)
    assert out["error"]["code"] == 404
    assert _notes(cx) == [("dropped_unknown_member", "$.stack")]


# --- the gateway's own faults -----------------------------------------------------------------------

def _gateway_error_classes() -> list[type[gw.GatewayError]]:
    found = [gw.GatewayError]
    for module in (gw, jsonrpc):
        found += [c for _, c in inspect.getmembers(module, inspect.isclass)
                  if issubclass(c, gw.GatewayError) and c not in found]
    return found


def _make(cls: type[gw.GatewayError]) -> gw.GatewayError:
    if cls is gw.TranslationError:
        return gw.TranslationError("$.message.parts[0]", "expected an object, got string")
    if cls in (jsonrpc.InvalidEnvelope, jsonrpc.EnvelopeTooDeep):
        return cls("bad envelope", rpc_id=1)
    return cls()


# class → (code, HTTP for v1.0 REST and for v0.3 REST with the v1.0 table, HTTP for v0.3 REST with PY03's)
EXPECTED: dict[str, tuple[int, int, int]] = {
    "GatewayError": (-32603, 500, 500),
    "TranslationError": (-32602, 400, 422),
    "InvalidAgentResponse": (-32006, 500, 502),
    "MalformedEnvelope": (-32700, 400, 400),
    "InvalidRequest": (-32600, 400, 400),
    "UnknownOperation": (-32601, 404, 404),
    "UnsupportedOperation": (-32004, 400, 501),
    "UnsupportedVersion": (-32009, 400, 400),
    "LimitExceeded": (-32600, 413, 413),        # transport status: the hint wins
    "StreamError": (-32006, 500, 502),
    "UpstreamUnavailable": (-32603, 502, 502),  # case 90
    "UpstreamTimeout": (-32603, 502, 502),
    "InvalidEnvelope": (-32600, 400, 400),
    "EnvelopeTooDeep": (-32600, 413, 413),
}


def test_every_gateway_error_has_an_expectation() -> None:
    assert {c.__name__ for c in _gateway_error_classes()} == set(EXPECTED)


@pytest.mark.parametrize("cls", _gateway_error_classes(), ids=lambda c: c.__name__)
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
    assert body["error"]["status"] == ("UNAVAILABLE" if http10 == 502 else row.grpc)

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
