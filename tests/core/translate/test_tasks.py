"""Tasks, statuses and artifacts beyond the goldens: timestamps to RFC 3339 UTC, state coercions in both
directions, the required members each dialect fills, and the empty-parts rule of v1.0 artifacts."""

from __future__ import annotations

from typing import Any

import pytest

from gateway.core.errors import TranslationError
from gateway.core.notes import Cx
from gateway.core.translate import translate
from gateway.core.translate.tasks import timestamp_to_v10
from gateway.core.types import V03REST, V03RPC, V10


def _t(family: str, value: Any, src: Any, dst: Any) -> tuple[Any, list[tuple[str, str, str]]]:
    cx = Cx()
    return translate(family, value, src=src, dst=dst, cx=cx), [(n.code, n.path, n.detail) for n in cx.notes]


@pytest.mark.parametrize(("value", "expected", "detail"), [
    ("2025-04-02T16:59:25Z", "2025-04-02T16:59:25Z", None),
    ("2025-04-02T16:59:25.123Z", "2025-04-02T16:59:25.123Z", None),
    ("2025-04-02 16:59:25", "2025-04-02T16:59:25Z", "naive, taken as UTC"),
    ("2025-04-02t16:59:25z", "2025-04-02T16:59:25Z", "spelling"),
    ("2025-04-02T16:59:25+02:00", "2025-04-02T14:59:25Z", "offset converted to UTC"),
    ("2025-04-02T16:59:25.5-0130", "2025-04-02T18:29:25.5Z", "offset converted to UTC"),
    ("2025-04-02T16:59:25+00:00", "2025-04-02T16:59:25Z", "offset converted to UTC"),
])
def test_timestamps_become_rfc3339_utc(value: str, expected: str, detail: str | None) -> None:
    cx = Cx()
    assert timestamp_to_v10(value, cx, "$.t") == expected
    assert [(n.code, n.detail) for n in cx.notes] == ([] if detail is None else [("timestamp_normalized", detail)])


@pytest.mark.parametrize("value", [1, "yesterday", "2025-13-02T16:59:25+02:00"])
def test_bad_timestamps_raise(value: Any) -> None:
    with pytest.raises(TranslationError):
        timestamp_to_v10(value, Cx(), "$.t")


@pytest.mark.parametrize(("src", "state", "expected", "note"), [
    (V03RPC, 3, "TASK_STATE_COMPLETED", ("state_coerced", "3")),
    (V03RPC, "TASK_STATE_WORKING", "TASK_STATE_WORKING", ("state_coerced", "TASK_STATE_WORKING")),
    (V03REST, "TASK_STATE_CANCELED", "TASK_STATE_CANCELED", ("state_coerced", "TASK_STATE_CANCELED")),
    (V03RPC, "paused", "TASK_STATE_UNSPECIFIED", ("unknown_state", "paused")),
    (V03REST, "TASK_STATE_CANCELLED", "TASK_STATE_CANCELED", None),
])
def test_states_to_v10(src: Any, state: Any, expected: str, note: tuple[str, str] | None) -> None:
    out, notes = _t("task_status", {"state": state}, src, V10)
    assert out == {"state": expected}
    assert [(c, d) for c, _, d in notes] == ([] if note is None else [note])


@pytest.mark.parametrize(("dst", "state", "expected", "code"), [
    (V03RPC, 6, "input-required", None), (V03REST, 5, "TASK_STATE_CANCELLED", None),
    (V03RPC, "TASK_STATE_CANCELLED", "canceled", "state_coerced"),
    (V03RPC, "TASK_STATE_UNKNOWN", "unknown", "state_coerced"),
    (V03REST, "TASK_STATE_PAUSED", "TASK_STATE_UNSPECIFIED", "unknown_state"),
])
def test_states_from_v10(dst: Any, state: Any, expected: str, code: str | None) -> None:
    out, notes = _t("task_status", {"state": state}, V10, dst)
    assert out == {"state": expected}
    assert [c for c, _, _ in notes] == ([] if code is None else [code])


def test_required_members_are_filled_for_the_json_schema_only() -> None:
    out, notes = _t("task", {"id": "t"}, V10, V03RPC)
    assert out == {"kind": "task", "id": "t", "contextId": "", "status": {"state": "unknown"}}
    assert [(c, p) for c, p, _ in notes] == [("filled_required", "$.contextId"), ("filled_required", "$.status")]
    out, notes = _t("task", {"id": "t"}, V10, V03REST)
    assert out == {"id": "t", "status": {"state": "TASK_STATE_UNSPECIFIED"}}
    assert [p for _, p, _ in notes] == ["$.status"]


def test_only_the_json_rpc_dialect_tags_tasks() -> None:
    with pytest.raises(TranslationError) as caught:
        translate("task", {"kind": "message", "id": "t"}, src=V03RPC, dst=V10, cx=Cx())
    assert caught.value.path == "$.kind"
    out, notes = _t("task", {"kind": "task", "id": "t", "status": {"state": "TASK_STATE_WORKING"}}, V03REST, V10)
    assert "kind" not in out and ("dropped_unknown_member", "$.kind", "") in notes


@pytest.mark.parametrize("src", [V03RPC, V03REST])
def test_an_artifact_without_parts_gets_an_empty_text_part(src: Any) -> None:
    out, notes = _t("artifact", {"artifactId": "a", "parts": []}, src, V10)
    assert out == {"artifactId": "a", "parts": [{"text": ""}]}
    assert notes == [("empty_parts_filled", "$.parts", "v1.0 needs at least one part")]
