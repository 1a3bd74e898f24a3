"""The "error" family (JSON-RPC error objects) beyond the goldens: validation, carriers, properties."""

from __future__ import annotations

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
