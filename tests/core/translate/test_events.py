"""Stream items beyond the goldens: v0.3 `final` from the state, ids the JSON schema requires, the bare
kind-tagged items of v0.3 JSON-RPC against the oneof wrappers, member aliases, the SendMessage result."""

from __future__ import annotations

from typing import Any

import pytest

from gateway.core.errors import TranslationError
from gateway.core.notes import Cx
from gateway.core.translate import infer_kind, translate
from gateway.core.translate.events import is_final_state
from gateway.core.types import V03REST, V03RPC, V10

STATUS = {"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}


def _t(family: str, value: Any, src: Any, dst: Any) -> tuple[Any, list[tuple[str, str]]]:
    cx = Cx()
    return translate(family, value, src=src, dst=dst, cx=cx), [(n.code, n.path) for n in cx.notes]


def test_final_follows_the_state_and_protojson_omits_a_false_one() -> None:
    assert _t("status_update", STATUS, V10, V03RPC)[0]["final"] is False
    assert "final" not in _t("status_update", STATUS, V10, V03REST)[0]
    done = {**STATUS, "status": {"state": "TASK_STATE_COMPLETED"}}
    assert _t("status_update", done, V10, V03REST)[0]["final"] is True
    assert is_final_state(3) and not is_final_state("TASK_STATE_INPUT_REQUIRED") and not is_final_state(None)


def test_a_final_the_state_does_not_imply_is_noted() -> None:
    v03 = {"kind": "status-update", "taskId": "t", "contextId": "c", "status": {"state": "input-required"},
           "final": True}
    out, notes = _t("status_update", v03, V03RPC, V10)
    assert "final" not in out and notes == [("final_dropped", "$.final")]


def test_missing_ids_are_filled_for_the_json_schema_only() -> None:
    art = {"artifact": {"artifactId": "a", "parts": [{"text": "x"}]}}
    out, notes = _t("artifact_update", art, V10, V03RPC)
    assert (out["taskId"], out["contextId"]) == ("", "")
    assert notes == [("filled_required", "$.taskId"), ("filled_required", "$.contextId")]
    out, notes = _t("artifact_update", art, V10, V03REST)
    assert "taskId" not in out and notes == []


@pytest.mark.parametrize(("item", "kind"), [
    ({"kind": "task"}, "task"), ({"kind": "nope", "messageId": "m"}, None),
    ({"artifact": {}, "taskId": "t"}, "artifact-update"), ({"taskId": "t", "final": True}, "status-update"),
    ({"taskId": "t", "status": {}, "id": "x"}, "task"), ({"messageId": "m"}, "message"), ({"id": "t"}, None),
])
def test_infer_kind(item: dict[str, Any], kind: str | None) -> None:
    assert infer_kind(item) == kind


def test_v03_json_rpc_items_are_bare_and_the_others_wrapped() -> None:
    v03 = {"taskId": "t", "contextId": "c", "status": {"state": "working"}, "final": False}   # no kind: inferred
    assert _t("stream_response", v03, V03RPC, V10)[0] == {"statusUpdate": STATUS}
    wrapped = {"status_update": {**STATUS, "status": {"state": "TASK_STATE_WORKING"}}}   # a proto field name
    assert _t("stream_response", wrapped, V03REST, V10)[0] == {"statusUpdate": STATUS}
    msg = {"msg": {"messageId": "m", "role": "ROLE_USER", "content": []}}   # P03 names it `msg`
    assert _t("stream_response", msg, V03REST, V10)[0] == {"message": {"messageId": "m", "role": "ROLE_USER",
                                                                        "parts": [{"text": ""}]}}
    with pytest.raises(TranslationError) as caught:
        translate("stream_response", {"task": {}, "message": {}}, src=V10, dst=V03RPC, cx=Cx())
    assert "exactly one of" in caught.value.message


def test_a_send_result_is_a_task_or_a_message() -> None:
    with pytest.raises(TranslationError) as caught:
        translate("send_result", {"kind": "status-update", "taskId": "t"}, src=V03RPC, dst=V10, cx=Cx())
    assert caught.value.message == "expected a Task or a Message"
    with pytest.raises(TranslationError) as caught:
        translate("send_result", {"statusUpdate": STATUS}, src=V10, dst=V03REST, cx=Cx())
    assert caught.value.path == "$.statusUpdate"
    task = {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}
    assert _t("send_result", {"task": task}, V10, V03RPC)[0]["kind"] == "task"
    assert _t("send_result", {"task": task}, V10, V03REST)[0] == {"task": task}
