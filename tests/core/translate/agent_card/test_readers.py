"""The card readers: JSON paths of odd member names, members filtered with the spec's ProtoJSON leniency,
required members, defaults, and how a union card's two versions are resolved."""

from __future__ import annotations

import pytest

from gateway.core.dialects import V03RPC_SPEC, V10_SPEC
from gateway.core.errors import TranslationError
from gateway.core.notes import Cx
from gateway.core.translate.agent_card.readers import TEXT, child, fill, members, need, union


def _notes(cx: Cx) -> list[tuple[str, str]]:
    return [(n.code, n.path) for n in cx.notes]


def test_child_paths() -> None:
    assert child("$", "name") == "$.name"
    assert child("$.s", "a#implicit") == "$.s.a#implicit"
    assert child("$.s", "with space") == '$.s["with space"]'


def test_members_read_proto_field_names_in_protojson_dialects_only() -> None:
    value = {"icon_url": "x", "name": None, "odd": 1}
    cx = Cx()
    assert members(value, ("iconUrl", "name"), cx, "$", V10_SPEC) == {"iconUrl": "x"}
    assert _notes(cx) == [("proto_field_name_read", "$.icon_url"), ("null_member_dropped", "$.name"),
                          ("dropped_unknown_member", "$.odd")]
    cx = Cx()
    assert members(value, ("iconUrl", "name"), cx, "$", V03RPC_SPEC) == {}
    assert _notes(cx)[0] == ("dropped_unknown_member", "$.icon_url")
    cx = Cx()   # a proto name never shadows the JSON name when both are present
    assert members({"iconUrl": "a", "icon_url": "b"}, ("iconUrl",), cx, "$", V10_SPEC) == {"iconUrl": "a"}


def test_need_and_fill() -> None:
    with pytest.raises(TranslationError) as caught:
        need({"a": 1}, ("a", "b"), "$.x")
    assert caught.value.path == "$.x.b"
    cx, out = Cx(), {"a": 1}
    fill(out, {"a": str, "b": list}, cx, "$")
    assert out == {"a": 1, "b": []} and _notes(cx) == [("required_member_defaulted", "$.b")]


def test_union_prefers_the_own_version_and_notes_a_disagreeing_other() -> None:
    cx = Cx()
    assert union(cx, lambda c: "own", lambda c: "own", ["$.other"], lambda c: "default") == "own"
    assert cx.notes == []
    assert union(cx, lambda c: "own", lambda c: "other", ["$.other"], lambda c: "default") == "own"
    assert _notes(cx) == [("union_member_ignored", "$.other")]
    cx = Cx()
    assert union(cx, None, lambda c: TEXT("other", "$.o"), ["$.o"], lambda c: "default") == "other"
    assert _notes(cx) == [("union_member_used", "$.o")]
    assert union(Cx(), None, None, [], lambda c: "default") == "default"
