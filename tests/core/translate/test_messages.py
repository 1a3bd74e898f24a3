"""Messages beyond the goldens: what each dialect's spec decides (kind tags, the parts member, empty ids,
v1.0-only members, enum numbers, required parts) and the type checks of the optional members."""

from __future__ import annotations

from typing import Any

import pytest

from gateway.core.errors import TranslationError
from gateway.core.notes import Cx
from gateway.core.translate import translate
from gateway.core.types import V03REST, V03RPC, V10

V10_MSG = {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}]}


def _t(value: Any, src: Any, dst: Any) -> tuple[Any, list[tuple[str, str, str]]]:
    cx = Cx()
    return translate("message", value, src=src, dst=dst, cx=cx), [(n.code, n.path, n.detail) for n in cx.notes]


def test_empty_ids_are_unset_in_the_proto_dialect_only() -> None:
    msg = {**V10_MSG, "contextId": "", "taskId": "t"}
    assert _t(msg, V10, V03REST)[0] == {"messageId": "m", "role": "ROLE_USER", "content": [{"text": "hi"}],
                                        "taskId": "t"}
    assert _t(msg, V10, V03RPC)[0]["contextId"] == ""
    rest = {"messageId": "m", "role": "ROLE_USER", "content": [], "contextId": ""}
    assert "contextId" not in _t(rest, V03REST, V10)[0]


def test_reference_task_ids_have_no_slot_in_the_v03_proto() -> None:
    msg = {**V10_MSG, "referenceTaskIds": ["t0"]}
    out, notes = _t(msg, V10, V03REST)
    assert "referenceTaskIds" not in out
    assert notes == [("field_dropped", "$.referenceTaskIds", "no slot in the v0.3 proto")]
    assert _t(msg, V10, V03RPC)[0]["referenceTaskIds"] == ["t0"]
    out, notes = _t({"messageId": "m", "role": "ROLE_USER", "content": [{"text": "x"}], "referenceTaskIds": ["t0"]},
                    V03REST, V10)
    assert "referenceTaskIds" not in out and notes == [("dropped_unknown_member", "$.referenceTaskIds", "")]


def test_parts_are_required_by_the_json_schema_only() -> None:
    with pytest.raises(TranslationError) as caught:
        translate("message", {"messageId": "m", "role": "user"}, src=V03RPC, dst=V10, cx=Cx())
    assert caught.value.path == "$.parts"
    # ProtoJSON omits an empty list; v1.0 needs one part: an empty text part, noted
    assert _t({"messageId": "m", "role": "ROLE_USER"}, V03REST, V10) == (
        {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": ""}]},
        [("empty_parts_filled", "$.content", "v1.0 needs at least one part")])
    out, notes = _t({"messageId": "m", "role": "ROLE_AGENT"}, V10, V03RPC)
    assert out["parts"] == [] and notes == [("filled_required", "$.parts", "")]
    assert "content" not in _t({"messageId": "m", "role": "ROLE_AGENT"}, V10, V03REST)[0]


def test_enum_numbers_are_read_in_protojson_dialects() -> None:
    assert _t({"messageId": "m", "role": 2, "content": []}, V03REST, V10)[0]["role"] == "ROLE_AGENT"
    assert _t({**V10_MSG, "role": 1}, V10, V03RPC)[0]["role"] == "user"
    with pytest.raises(TranslationError) as caught:
        translate("message", {"messageId": "m", "role": 1, "parts": []}, src=V03RPC, dst=V10, cx=Cx())
    assert caught.value.path == "$.role"


def test_only_the_json_rpc_dialect_tags_messages() -> None:
    with pytest.raises(TranslationError) as caught:
        translate("message", {"kind": "task", "messageId": "m", "role": "user", "parts": []}, src=V03RPC,
                  dst=V10, cx=Cx())
    assert caught.value.path == "$.kind"
    out, notes = _t({"kind": "message", "messageId": "m", "role": "ROLE_USER", "content": [{"text": "x"}]},
                    V03REST, V10)
    assert "kind" not in out and notes == [("dropped_unknown_member", "$.kind", "")]
    assert _t(V10_MSG, V10, V03RPC)[0]["kind"] == "message"


@pytest.mark.parametrize(("member", "value", "message"), [
    ("contextId", 1, "expected a string"), ("taskId", [], "expected a string"),
    ("metadata", "x", "expected an object, got string"), ("extensions", {}, "expected an array, got object"),
    ("referenceTaskIds", [1], "expected a string, got integer"),
])
@pytest.mark.parametrize(("src", "dst"), [(V03RPC, V10), (V10, V03RPC)])
def test_optional_members_are_type_checked(member: str, value: Any, message: str, src: Any, dst: Any) -> None:
    msg = {**V10_MSG, member: value} if src is V10 else {"messageId": "m", "role": "user",
                                                         "parts": [{"kind": "text", "text": "hi"}], member: value}
    with pytest.raises(TranslationError) as caught:
        translate("message", msg, src=src, dst=dst, cx=Cx())
    assert caught.value.path.startswith(f"$.{member}") and caught.value.message == message


def test_an_unset_role_becomes_agent() -> None:
    for role in (None, "ROLE_UNSPECIFIED", 0):
        msg = {k: v for k, v in {**V10_MSG, "role": role}.items() if v is not None}
        out, notes = _t(msg, V10, V03REST)
        assert out["role"] == "ROLE_AGENT" and notes == [("role_defaulted", "$.role", "agent")]
