"""The registry and the front door: every `Family` registered, unknown families and dialect pairs as the
core's own error, hub composition, copies, fast-path dispatch, and the recipe for a new family
(docs/architecture.md)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gateway.core.dialects import V03_SPECS, DialectSpec
from gateway.core.errors import GatewayError, TranslationError, UnknownFamily
from gateway.core.notes import Cx
from gateway.core.translate import (
    ALIASES,
    FAST_PATHS,
    REGISTRY,
    TABLES,
    Family,
    FastPath,
    Registry,
    Table,
    Translator,
    families,
    translate,
)
from gateway.core.translate.shape import drop_unknown, obj, strings, text
from gateway.core.types import V03REST, V03RPC, V10, JsonObj
from tests import golden, oracle

TASK_V03 = {"kind": "task", "id": "t1", "contextId": "c1", "status": {"state": "working"}}


def test_every_family_has_translators_and_nothing_else_is_registered() -> None:
    registered = families()
    assert set(registered) == set(Family)
    assert all(registered[family] for family in Family)


@pytest.mark.parametrize("family", ["nope", "params.nope", ""])
def test_an_unknown_family_is_the_cores_own_error(family: str) -> None:
    with pytest.raises(UnknownFamily) as caught:
        translate(family, {}, src=V03RPC, dst=V10, cx=Cx(), at="$.result")
    assert isinstance(caught.value, GatewayError) and caught.value.path == "$.result"
    assert caught.value.jsonrpc_code == -32603 and repr(family) in caught.value.message
    with pytest.raises(UnknownFamily):
        translate(family, {}, src=V10, dst=V10, cx=Cx())


@pytest.mark.parametrize(("family", "src", "dst"), [
    ("error", V03REST, V10), ("rest_error", V10, V03RPC), ("params.list_tasks", V03RPC, V10),
    ("params.list_tasks", V03RPC, V03REST),   # through the hub: no way up
])
def test_a_missing_dialect_pair_is_the_cores_own_error(family: str, src: Any, dst: Any) -> None:
    with pytest.raises(UnknownFamily) as caught:
        translate(family, {}, src=src, dst=dst, cx=Cx())
    assert "no translator" in caught.value.message


def test_a_family_member_and_its_string_name_the_same_family() -> None:
    assert Family.PARAMS_GET_TASK == "params.get_task" and str(Family.TASK) == "task"
    by_member = translate(Family.TASK, TASK_V03, src=V03RPC, dst=V10, cx=Cx())
    assert by_member == translate("task", TASK_V03, src=V03RPC, dst=V10, cx=Cx())


def test_same_dialect_is_a_deep_copy() -> None:
    out = translate("task", TASK_V03, src=V03RPC, dst=V03RPC, cx=Cx())
    assert out == TASK_V03 and out is not TASK_V03 and out["status"] is not TASK_V03["status"]


def test_v03_to_v03_goes_through_the_hub() -> None:
    cx_direct, cx_hub = Cx(), Cx()
    direct = translate("task", TASK_V03, src=V03RPC, dst=V03REST, cx=cx_direct)
    hub = translate("task", TASK_V03, src=V03RPC, dst=V10, cx=cx_hub)
    assert direct == translate("task", hub, src=V10, dst=V03REST, cx=cx_hub)
    assert cx_direct.notes == cx_hub.notes


def test_the_face_is_built_from_the_family_tables() -> None:
    assert REGISTRY.families() == families()
    assert {str(path.rule) for path in REGISTRY.fast_paths()} >= {"message", "stream_response"}


# ---- the Registry itself -------------------------------------------------------------------------------

def _up(value: Any, cx: Cx, at: str) -> Any:
    return {"up": value}


def _down(value: Any, cx: Cx, at: str) -> Any:
    return {"down": value}


def test_registry_refuses_a_pair_registered_twice() -> None:
    with pytest.raises(ValueError, match="twice"):
        Registry([{"x": {(V03RPC, V10): _up}}, {"x": {(V03RPC, V10): _down}}])


def test_registry_refuses_bad_aliases() -> None:
    with pytest.raises(ValueError, match="alias"):
        Registry([{"x": {(V03RPC, V10): _up}}], aliases={"y": "unknown"})
    with pytest.raises(ValueError, match="alias"):
        Registry([{"x": {(V03RPC, V10): _up}}, {"y": {(V03RPC, V10): _up}}], aliases={"y": "x"})


def test_an_alias_has_its_targets_translators() -> None:
    registry = Registry([{"x": {(V03RPC, V10): _up}}], aliases={"y": "x"})
    assert registry.translate("y", 1, src=V03RPC, dst=V10, cx=Cx()) == {"up": 1}
    assert registry.families()["y"] == registry.families()["x"]


def test_a_fast_path_stands_in_front_of_its_translator() -> None:
    def fast(value: Any, cx: Cx, at: str) -> Any:
        return {"fast": value}

    registry = Registry([{"x": {(V03RPC, V10): _up}}], fast_paths=[FastPath("x", V03RPC, V10, fast, _up)])
    assert registry.translate("x", 1, src=V03RPC, dst=V10, cx=Cx()) == {"fast": 1}
    assert registry.families()["x"][(V03RPC, V10)] is _up   # the full translator, which tests hold it to
    with pytest.raises(ValueError, match="in front"):
        Registry([{"x": {(V03RPC, V10): _up}}], fast_paths=[FastPath("x", V03RPC, V10, fast, _down)])
    inner = Registry([{"x": {(V03RPC, V10): _up}}], fast_paths=[FastPath("parts", V03RPC, V10, fast, _down)])
    assert inner.translate("x", 1, src=V03RPC, dst=V10, cx=Cx()) == {"up": 1}   # a rule inside a family


# ---- the README recipe "To add an object family", followed once ---------------------------------------
# A throwaway family, the push-notification authentication info: v0.3 `{schemes: [...], credentials}`,
# v1.0 `{scheme, credentials}`. Step 1 (a `Family` member) is a plain name in a test registry.

_AUTH_V03 = frozenset(("schemes", "credentials"))
_AUTH_V10 = frozenset(("scheme", "credentials"))


def auth_to_v10(spec: DialectSpec) -> Translator:
    """Step 2: written once against a spec."""
    def convert(value: Any, cx: Cx, at: str) -> JsonObj:
        value = obj(value, at)
        drop_unknown(value, _AUTH_V03, cx, at)
        schemes = strings(value.get("schemes", []), f"{at}.schemes")
        if len(schemes) > 1:
            cx.note("auth_schemes_truncated", f"{at}.schemes")
        out: JsonObj = {"scheme": schemes[0]} if schemes else {}
        if "credentials" in value:
            out["credentials"] = text(value["credentials"], f"{at}.credentials")
        return out
    return convert


def auth_from_v10(spec: DialectSpec) -> Translator:
    fill = not spec.protojson   # the v0.3 JSON schema requires `schemes`; ProtoJSON omits an empty list

    def convert(value: Any, cx: Cx, at: str) -> JsonObj:
        value = obj(value, at)
        drop_unknown(value, _AUTH_V10, cx, at)
        out: JsonObj = {}
        if value.get("scheme") or fill:
            out["schemes"] = [text(value["scheme"], f"{at}.scheme")] if value.get("scheme") else []
        if "credentials" in value:
            out["credentials"] = text(value["credentials"], f"{at}.credentials")
        return out
    return convert


AUTH_TRANSLATORS: Table = {"push_auth": {   # step 2's table
    **{(spec.dialect, V10): auth_to_v10(spec) for spec in V03_SPECS},
    **{(V10, spec.dialect): auth_from_v10(spec) for spec in V03_SPECS},
}}
_GOLDEN = {  # step 4
    "basic.v10.json": {"scheme": "Bearer", "credentials": "k"},
    "basic.v03rpc.json": {"schemes": ["Bearer"], "credentials": "k"},
    "basic.v03rest.json": {"schemes": ["Bearer"], "credentials": "k"},
    "none.v10.json": {},
    "none.to-v03rpc.json": {"schemes": []},   # one way: the JSON schema requires the list
    "empty.v10.json": {},
    "empty.v03rest.json": {},
}


def test_the_add_a_family_recipe_works_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # step 3: the registry is built from the new table next to the others
    registry = Registry([*TABLES, AUTH_TRANSLATORS], fast_paths=FAST_PATHS, aliases=ALIASES)
    # step 4: golden cases in tests/golden/<family>/
    folder = tmp_path / "push_auth"
    folder.mkdir()
    for name, payload in _GOLDEN.items():
        (folder / name).write_text(json.dumps(payload))
    monkeypatch.setattr(golden, "ROOT", tmp_path)
    # step 5: an oracle row
    monkeypatch.setitem(oracle.ORACLES, "push_auth", ("AuthenticationInfo",
                                                     {"$ref": "#/definitions/PushNotificationAuthenticationInfo"},
                                                     "AuthenticationInfo"))
    cases = golden.cases()
    assert len(cases) == 7
    for case in cases:
        cx = Cx()
        source = copy.deepcopy(case.source)
        assert registry.translate(case.family, source, src=case.src, dst=case.dst, cx=cx) == case.expected
        assert [(n.code, n.path) for n in cx.notes] == case.notes
    for fixture in golden.fixtures():
        oracle.check(fixture.family, fixture.dialect, fixture.payload)
    with pytest.raises(TranslationError):
        registry.translate("push_auth", {"schemes": "Bearer"}, src=V03RPC, dst=V10, cx=Cx())
    assert registry.translate("task", TASK_V03, src=V03RPC, dst=V10, cx=Cx()) == \
        translate("task", TASK_V03, src=V03RPC, dst=V10, cx=Cx())

