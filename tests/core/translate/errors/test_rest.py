"""The "rest_error" family beyond the goldens, and REST error derivation from PY03/JS/GO replies
(status, body `code`, `type`, default message, ErrorInfo)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gateway.core import errors as gw
from gateway.core.notes import Cx
from gateway.core.translate import errors as te
from gateway.core.translate import translate
from gateway.core.types import Dialect

V03RPC, V03REST, V10 = Dialect.V03RPC, Dialect.V03REST, Dialect.V10
INFO = te.ERROR_INFO_TYPE


def _notes(cx: Cx) -> list[tuple[str, str]]:
    return [(n.code, n.path) for n in cx.notes]


_json = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**63), max_value=2**64)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
_codes = st.sampled_from(sorted(te.BY_CODE)) | st.integers(min_value=-32099, max_value=-32010)




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
    """Cross-binding: REST v1.0 reply → hub → REST v1.0 reply, and the hub is a JSON-RPC error."""
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



@pytest.mark.parametrize("row", te.ERRORS, ids=lambda r: r.v10_name)
def test_rest_body_builds_the_error_info_a_bare_error_lacks(row: te.ErrorRow) -> None:
    """fasta2a and langgraph-api answer a bare `{"code": -32001, "message": …}`: a v1.0 REST caller still
    gets the table's status and the ErrorInfo a2a-sdk 1.x reads the error from (noted)."""
    cx = Cx()
    status, body = te.rest_body({"code": row.code, "message": "m"}, V10, cx)
    assert (status, body) == (row.http_v10, _status(row.http_v10, row.grpc, "m", row.reason))
    assert _notes(cx) == [("error_info_added", "$.data")]


def test_rest_body_puts_the_error_info_before_other_details() -> None:
    cx = Cx()
    other = {"@type": te.VALUE_TYPE, "value": 1}
    _, body = te.rest_body({"code": -32001, "message": "m", "data": [other]}, V10, cx)
    assert body["error"]["details"] == [te.error_info("TASK_NOT_FOUND"), other]
    # an ErrorInfo of another domain is not A2A's: the A2A one is added
    foreign = {"@type": INFO, "reason": "X", "domain": "example.com"}
    _, body = te.rest_body({"code": -32001, "message": "m", "data": [foreign]}, V10, Cx())
    assert body["error"]["details"] == [te.error_info("TASK_NOT_FOUND"), foreign]
