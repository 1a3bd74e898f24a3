"""The compact form of A2UI surface logs (agui-a2ui.md §3.5, case 54): folding rules per version, logs
kept as they are, the threshold switch through AguiRun, and a property: a renderer ends in the same
state from a log and from its compact form."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.core import jsoncodec
from gateway.core.agui.compact import fold, for_snapshot
from gateway.core.agui.request import Options
from gateway.core.agui.session import ThreadSession
from tests.core.agui.conformance import snapshots, validate
from tests.core.agui.helpers import Driver, body, create, delete, status, ui, user
from tests.profiles import examples

Msg = dict[str, Any]


def comps(sid: str, *components: Msg, version: str | None = "v0.9") -> Msg:
    return _versioned(version, {"updateComponents": {"surfaceId": sid, "components": list(components)}})


def data(sid: str, path: str | None = None, *value: Any, version: str | None = "v0.9") -> Msg:
    """`updateDataModel`; no `value` argument: the member is absent."""
    inner: Msg = {"surfaceId": sid}
    if path is not None:
        inner["path"] = path
    if value:
        (inner["value"],) = value
    return _versioned(version, {"updateDataModel": inner})


def _versioned(version: str | None, message: Msg) -> Msg:
    return message if version is None else {"version": version, **message}


def text(cid: str, words: str) -> Msg:
    return {"id": cid, "component": "Text", "text": words}


def folded_model(ops: list[Msg]) -> Any:
    (last,) = [m for m in ops if "updateDataModel" in m]
    assert last["updateDataModel"]["path"] == "/"
    return last["updateDataModel"]["value"]


# ---- components ------------------------------------------------------------------------------------


def test_components_are_merged_by_id_in_order_of_first_appearance() -> None:
    log = [
        create("s1", "v0.9"),
        comps("s1", text("root", "a"), text("c1", "b")),
        comps("s1", text("c2", "c"), text("root", "A")),
    ]
    assert fold(log) == [
        create("s1", "v0.9"),
        comps("s1", text("root", "A"), text("c1", "b"), text("c2", "c")),
    ]


def test_a_surface_with_only_its_creation_folds_to_itself() -> None:
    assert fold([create("s1", "v0.10")]) == [create("s1", "v0.10")]


def test_v10_create_surface_components_and_data_model_join_the_folded_messages() -> None:
    first = {"version": "v1.0", "createSurface": {
        "surfaceId": "s1", "catalogId": "cat", "sendDataModel": True,
        "components": [text("root", "a"), text("c1", "b")], "dataModel": {"user": {"name": "Ann"}}}}
    log = [first, comps("s1", text("c1", "B"), version="v1.0"), data("s1", "/user/age", 7, version="v1.0")]
    assert fold(log) == [
        {"version": "v1.0", "createSurface": {"surfaceId": "s1", "catalogId": "cat", "sendDataModel": True}},
        comps("s1", text("root", "a"), text("c1", "B"), version="v1.0"),
        data("s1", "/", {"user": {"name": "Ann", "age": 7}}, version="v1.0"),
    ]
    assert first["createSurface"]["dataModel"] == {"user": {"name": "Ann"}}   # the log is not touched


# ---- the data model --------------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["v0.9", "v0.10", "v1.0"])
def test_data_model_sets_replace_and_create_nested_paths(version: str) -> None:
    log = [
        create("s1", version),
        data("s1", "/user/name", "Ann", version=version),       # intermediate object made
        data("s1", "/user/name", "Bo", version=version),        # replaced
        data("s1", "/items/0/title", "x", version=version),     # numeric next segment: an array
        data("s1", "/items/1", {"title": "y"}, version=version),  # the end of an array: appended
        data("s1", "/items/0", {"title": "z"}, version=version),  # an element replaced
        data("s1", "/a~1b/~0c", 1, version=version),            # escaped segments
    ]
    out = fold(log)
    assert [m["version"] for m in out] == [version, version]
    assert out[1] == data("s1", "/", {
        "user": {"name": "Bo"}, "items": [{"title": "z"}, {"title": "y"}], "a/b": {"~c": 1},
    }, version=version)


def test_a_root_update_replaces_the_whole_model() -> None:
    log = [create("s1", "v0.9"), data("s1", "/a", 1), data("s1", None, {"b": 2}), data("s1", "/c", 3)]
    assert folded_model(fold(log)) == {"b": 2, "c": 3}


@pytest.mark.parametrize("version", ["v0.9", "v0.10"])
def test_before_v10_an_absent_value_deletes_and_null_is_a_value(version: str) -> None:
    log = [
        create("s1", version),
        data("s1", "/user", {"name": "Ann", "age": 3, "nick": "A"}, version=version),
        data("s1", "/user/age", version=version),
        data("s1", "/user/nick", None, version=version),
        data("s1", "/gone", version=version),                   # deleting what is not there
    ]
    assert folded_model(fold(log)) == {"user": {"name": "Ann", "nick": None}}


def test_in_v10_null_deletes_and_an_absent_value_is_malformed() -> None:
    log = [
        create("s1"),
        data("s1", "/user", {"name": "Ann", "age": 3, "tags": [None]}, version="v1.0"),
        data("s1", "/user/age", None, version="v1.0"),
    ]
    assert folded_model(fold(log)) == {"user": {"name": "Ann", "tags": [None]}}   # nested nulls are values
    malformed = [*log, data("s1", "/user/name", version="v1.0")]
    assert fold(malformed) is malformed


def test_deleting_everything_still_sends_the_empty_model() -> None:
    log = [create("s1", "v0.9"), data("s1", "/a", 1), data("s1", "/a")]
    assert fold(log) == [create("s1", "v0.9"), data("s1", "/", {})]


def test_folding_never_reaches_into_the_log() -> None:
    log = [create("s1", "v0.9"), data("s1", "/user", {"name": "Ann"}), data("s1", "/user/age", 3)]
    before = copy.deepcopy(log)
    out = fold(log)
    assert log == before
    out[1]["updateDataModel"]["value"]["user"]["x"] = 1
    assert log == before


# ---- restarts, deletes and what stays as it is -----------------------------------------------------


def test_the_last_create_surface_restarts_the_log() -> None:
    log = [
        create("s1", "v0.9"),
        comps("s1", text("old", "x")),
        data("s1", "/old", 1),
        {"version": "v0.9", "createSurface": {"surfaceId": "s1", "catalogId": "other"}},
        comps("s1", text("root", "new")),
    ]
    assert fold(log) == [log[3], comps("s1", text("root", "new"))]


def test_a_log_ending_with_delete_surface_is_kept() -> None:
    log = [create("s1"), {"version": "v1.0", "updateComponents": {"surfaceId": "s1", "components": [{"id": "c"}]}},
           delete("s1")]
    assert fold(log) is log
    assert fold([delete("ghost")]) == [delete("ghost")]


def test_v08_logs_pass_as_received() -> None:
    log = [
        {"beginRendering": {"surfaceId": "s1", "root": "root"}},
        {"surfaceUpdate": {"surfaceId": "s1", "components": [{"id": "root", "component": {"Text": {}}}]}},
        {"surfaceUpdate": {"surfaceId": "s1", "components": [{"id": "root", "component": {"Row": {}}}]}},
        {"dataModelUpdate": {"surfaceId": "s1", "contents": [{"key": "a", "valueString": "b"}]}},
    ]
    assert fold(log) is log


def test_messages_without_a_version_fold_only_without_deletes_or_nulls() -> None:
    plain = [{"createSurface": {"surfaceId": "s1", "catalogId": "c"}}, comps("s1", {"id": "root"}, version=None),
             data("s1", "/a", 1, version=None)]
    assert fold(plain) == [plain[0], plain[1], data("s1", "/", {"a": 1}, version=None)]
    for ambiguous in (data("s1", "/a", None, version=None), data("s1", "/a", version=None)):
        log = [*plain, ambiguous]
        assert fold(log) is log


UNFOLDABLE = {
    "no createSurface": [comps("s1", {"id": "root"}), data("s1", "/a", 1)],
    "unknown op": [create("s1", "v0.9"), {"version": "v0.9", "watchDataModel": {"surfaceId": "s1"}}],
    "surfaceless op": [create("s1", "v0.10"), {"version": "v0.10", "callFunction": {"call": "f"}}],
    "delete mid-log": [create("s1", "v0.9"), delete("s1", "v0.9"), comps("s1", {"id": "root"})],
    "other surface": [create("s1", "v0.9"), comps("s2", {"id": "root"})],
    "mixed versions": [create("s1", "v0.9"), comps("s1", {"id": "root"}, version="v0.10")],
    "unknown version": [create("s1", "v2.0"), comps("s1", {"id": "root"}, version="v2.0")],
    "non-string version": [{"version": 1, "createSurface": {"surfaceId": "s1", "catalogId": "c"}}],
    "v0.8 op after create": [create("s1", "v0.9"), {"surfaceUpdate": {"surfaceId": "s1", "components": []}}],
    "extra message member": [create("s1", "v0.9"), {**data("s1", "/a", 1), "note": "x"}],
    "extra body member": [create("s1", "v0.9"), data("s1", "/a", 1) | {"updateDataModel": {
        "surfaceId": "s1", "path": "/a", "value": 1, "op": "merge"}}],
    "component without id": [create("s1", "v0.9"), comps("s1", {"component": "Text"})],
    "components not a list": [create("s1", "v0.9"), {"version": "v0.9", "updateComponents": {
        "surfaceId": "s1", "components": {"id": "root"}}}],
    "v0.9 create with a data model": [{"version": "v0.9", "createSurface": {
        "surfaceId": "s1", "catalogId": "c", "dataModel": {"a": 1}}}],
    "v1.0 create with a non-object data model": [{"version": "v1.0", "createSurface": {
        "surfaceId": "s1", "catalogId": "c", "dataModel": [1]}}],
    "relative path": [create("s1", "v0.9"), data("s1", "a/b", 1)],
    "empty pointer": [create("s1", "v0.9"), data("s1", "", 1)],
    "empty segment": [create("s1", "v0.9"), data("s1", "/a//b", 1)],
    "trailing slash": [create("s1", "v0.9"), data("s1", "/a/", 1)],
    "bad escape": [create("s1", "v0.9"), data("s1", "/a~2", 1)],
    "path not a string": [create("s1", "v0.9"), data("s1", None, 1) | {"updateDataModel": {
        "surfaceId": "s1", "path": 3, "value": 1}}],
    "through a scalar": [create("s1", "v0.9"), data("s1", "/a", 1), data("s1", "/a/b", 2)],
    "through null": [create("s1", "v0.9"), data("s1", "/a", None), data("s1", "/a/b", 2)],
    "array hole": [create("s1", "v0.9"), data("s1", "/l", []), data("s1", "/l/1", 2)],
    "array leading zero": [create("s1", "v0.9"), data("s1", "/l", [1]), data("s1", "/l/00", 2)],
    "array append token": [create("s1", "v0.9"), data("s1", "/l", [1]), data("s1", "/l/-", 2)],
    "key into an array": [create("s1", "v0.9"), data("s1", "/l", [1]), data("s1", "/l/k", 2)],
    "delete from an array": [create("s1", "v0.9"), data("s1", "/l", [1, 2]), data("s1", "/l/0")],
    "delete below something missing": [create("s1", "v0.9"), data("s1", "/a/b")],
    "delete the whole model": [create("s1", "v0.9"), data("s1", "/a", 1), data("s1", "/")],
    "v1.0 null at the root": [create("s1"), data("s1", "/", None, version="v1.0")],
    "number-like new segment": [create("s1", "v0.9"), data("s1", "/a/1e3", 1)],
    "huge index": [create("s1", "v0.9"), data("s1", "/l", []), data("s1", "/l/" + "9" * 5000, 1)],
}


@pytest.mark.parametrize("log", UNFOLDABLE.values(), ids=UNFOLDABLE.keys())
def test_what_cannot_be_folded_exactly_is_kept_as_it_is(log: list[Msg]) -> None:
    assert fold(log) is log


# ---- the switch ------------------------------------------------------------------------------------


def test_for_snapshot_compacts_in_compact_mode_or_strictly_above_the_threshold() -> None:
    log = [create("s1", "v0.9"), comps("s1", text("root", "a")), comps("s1", text("root", "b"))]
    size = len(jsoncodec.dumpb(log))
    assert for_snapshot(log, "log", size) is log
    assert for_snapshot(log, "log", size - 1) == fold(log) == [create("s1", "v0.9"), comps("s1", text("root", "b"))]
    assert for_snapshot(log, "compact", 10**9) == fold(log)


def test_for_snapshot_gives_up_on_a_surface_too_large_even_compacted() -> None:
    log = [create("s1", "v0.9"), comps("s1", text("root", "a")), comps("s1", text("root", "b"))]
    folded = len(jsoncodec.dumpb(fold(log)))
    assert for_snapshot(log, "log", 10**9, limit=folded - 1) is None   # the log itself is over the limit
    assert for_snapshot(log, "log", 0, limit=folded) == fold(log)
    assert for_snapshot(log, "compact", 10**9, limit=folded - 1) is None


def test_a_surface_too_large_for_one_event_becomes_a_warning_and_the_run_goes_on() -> None:  # case 54
    d = Driver(body(user("show")), options=Options())
    huge = "x" * (9 * 1024 * 1024)
    d.feed(status("working", ui(create("s1", "v0.9"), data("s1", "/blob", huge), as_list=True), mid="m1"),
           status("completed", ui(create("s2", "v0.9"), as_list=True), mid="m2"))
    validate(d.events, protocol10=True)
    assert [e["value"]["code"] for e in d.events if e["type"] == "CUSTOM" and e["name"] == "a2ui.warning"] == [
        "a2ui.snapshot_too_large"]
    assert [sid for sid, _ in snapshots(d.events)] == ["a2ui-surface-s2"]
    assert max(len(jsoncodec.dumpb(e)) for e in d.events) < 1024 * 1024
    assert d.events[-1]["type"] == "RUN_FINISHED" and len(d.session.surfaces.live["s1"].ops) == 2


def _surface_run(options: Options) -> Driver:
    d = Driver(body(user("show")), options=options)
    d.feed(
        status("working", ui(create("s1", "v0.9"), comps("s1", text("root", "a")), as_list=True), mid="m1"),
        status("input-required", ui(comps("s1", text("root", "b")), data("s1", "/n", 1), as_list=True), mid="m2"),
    )
    validate(d.events, protocol10=True)
    return d


def test_the_run_sends_the_log_by_default() -> None:
    d = _surface_run(Options())
    assert [ops for _, ops in snapshots(d.events)] == [
        [create("s1", "v0.9"), comps("s1", text("root", "a"))],
        [create("s1", "v0.9"), comps("s1", text("root", "a")), comps("s1", text("root", "b")), data("s1", "/n", 1)],
    ]


def test_the_run_sends_compact_snapshots_in_compact_mode_and_keeps_the_log() -> None:
    d = _surface_run(Options(snapshot_mode="compact"))
    assert [ops for _, ops in snapshots(d.events)] == [
        [create("s1", "v0.9"), comps("s1", text("root", "a"))],
        [create("s1", "v0.9"), comps("s1", text("root", "b")), data("s1", "/", {"n": 1})],
    ]
    assert len(d.session.surfaces.live["s1"].ops) == 4   # the session still holds every message


def test_the_run_compacts_only_snapshots_above_the_threshold() -> None:  # case 54
    small = len(jsoncodec.dumpb([create("s1", "v0.9"), comps("s1", text("root", "a"))]))
    d = _surface_run(Options(compact_above_bytes=small))
    first, second = [ops for _, ops in snapshots(d.events)]
    assert first == [create("s1", "v0.9"), comps("s1", text("root", "a"))]        # not above: the log
    assert second == [create("s1", "v0.9"), comps("s1", text("root", "b")), data("s1", "/", {"n": 1})]


def test_replayed_surfaces_are_compacted_too() -> None:
    session = ThreadSession()
    first = Driver(body(user("show")), session)
    first.feed(status("input-required", ui(create("s1", "v0.9"), comps("s1", text("root", "a")),
                                           comps("s1", text("root", "b")), as_list=True)))
    again = Driver(body(user("show"), run="r2", forwardedProps={"a2a": {"replaySurfaces": True}}), session,
                   options=Options(snapshot_mode="compact"))
    assert snapshots(again.events) == [("a2ui-surface-s1", [create("s1", "v0.9"), comps("s1", text("root", "b"))])]


def test_a_deleted_surface_snapshot_keeps_its_delete_in_compact_mode() -> None:
    d = Driver(body(user("show")), options=Options(snapshot_mode="compact"))
    d.feed(status("input-required", ui(create("s1"), data("s1", "/a", 1, version="v1.0"), delete("s1"),
                                       as_list=True)))
    assert snapshots(d.events) == [("a2ui-surface-s1", [create("s1"), data("s1", "/a", 1, version="v1.0"),
                                                        delete("s1")])]


# ---- property: a renderer ends in the same state ---------------------------------------------------


class Broken(Exception):
    """The reference renderer cannot apply a message."""


def render(ops: list[Msg]) -> Any:
    """What a renderer holds after `ops`: the surface's settings, components by id and data model;
    "deleted" after deleteSurface; "broken" from a message it cannot apply until a createSurface starts
    over. Written apart from the module under test, after the A2UI renderer guide's JSON Pointer rules."""
    state: Any = None
    for message in ops:
        try:
            state = _apply(state, message)
        except Broken:
            state = "broken"
    return state


def _apply(state: Any, message: Msg) -> Any:
    version = message.get("version")
    (op,) = [k for k in message if k != "version"]
    inner = message[op]
    if op == "createSurface":
        settings_ = {k: v for k, v in inner.items() if k not in ("components", "dataModel")}
        fresh = {"settings": settings_, "components": {}, "data": {}}
        if version == "v1.0":
            for c in inner.get("components", []):
                fresh["components"][c["id"]] = c
            fresh["data"] = copy.deepcopy(inner.get("dataModel", {}))
        return fresh
    if op == "deleteSurface":
        return "deleted"
    if not isinstance(state, dict):
        raise Broken(op)
    if op == "updateComponents":
        for c in inner["components"]:
            state["components"][c["id"]] = c
        return state
    remove = inner.get("value", "absent") is None if version == "v1.0" else "value" not in inner
    path = inner.get("path", "/")
    segments = [] if path == "/" else [s.replace("~1", "/").replace("~0", "~") for s in path.split("/")[1:]]
    state["data"] = _at(state["data"], segments, None if remove else copy.deepcopy(inner["value"]), remove)
    return state


def _at(node: Any, segments: list[str], value: Any, remove: bool) -> Any:
    if not segments:
        if remove:
            raise Broken("root delete")
        return value
    head, rest = segments[0], segments[1:]
    if isinstance(node, list):
        if not head.isdigit() or int(head) > len(node) or (remove and not rest):
            raise Broken(head)
        i = int(head)
        current = node[i] if i < len(node) else ([] if rest and rest[0].isdigit() else {})
        updated = _at(current, rest, value, remove)
        return [*node[:i], updated, *node[i + 1:]]
    if not isinstance(node, dict):
        raise Broken(head)
    if remove and not rest:
        return {k: v for k, v in node.items() if k != head}
    current = node.get(head, [] if rest and rest[0].isdigit() else {})
    return {**node, head: _at(current, rest, value, remove)}


KEYS = ["a", "b", "0", "1"]
SCALARS = st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["", "x", "y"])
VALUES = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=3),
    max_leaves=6,
)
# objects all the way down along the keys paths use ("a", "b"); scalars only under "v"
OBJECTS = st.recursive(
    st.fixed_dictionaries({}, optional={"v": SCALARS}),
    lambda inner: st.fixed_dictionaries({}, optional={"a": inner, "b": inner, "v": SCALARS}),
    max_leaves=4,
)
COMPONENT = st.builds(lambda cid, words: {"id": cid, "component": "Text", "text": words},
                      st.sampled_from(["root", "c1", "c2", "c3"]), st.sampled_from(["p", "q", "r"]))


@st.composite
def surface_logs(draw: st.DrawFn, *, objects_only: bool = False) -> list[Msg]:
    """A v0.9+ surface log over a few keys: creations (v1.0 ones with components and a data model),
    component updates, data sets and deletes, and now and then a final deleteSurface. `objects_only`:
    every path runs through objects and deletes touch the top level only, so the log always folds."""
    version = draw(st.sampled_from(["v0.9", "v0.10", "v1.0"]))
    keys = ["a", "b"] if objects_only else KEYS
    values = OBJECTS if objects_only else VALUES

    def path() -> str | None:
        segments = st.lists(st.sampled_from(keys), min_size=1, max_size=3).map(lambda s: "/" + "/".join(s))
        return draw(st.none() | st.just("/") | segments)

    def one() -> Msg:
        kind = draw(st.sampled_from(["create", "components", "data", "data", "delete"]))
        if kind == "create":
            inner: Msg = {"surfaceId": "s1", "catalogId": draw(st.sampled_from(["c", "d"]))}
            if version == "v1.0" and draw(st.booleans()):
                inner["components"] = draw(st.lists(COMPONENT, min_size=1, max_size=2))
                inner["dataModel"] = draw(OBJECTS if objects_only else st.dictionaries(st.sampled_from(keys), VALUES))
            return {"version": version, "createSurface": inner}
        if kind == "components":
            return comps("s1", *draw(st.lists(COMPONENT, min_size=1, max_size=3)), version=version)
        if kind == "data":
            return data("s1", path(), draw(values), version=version)
        target = "/" + draw(st.sampled_from(keys)) if objects_only else path()
        return data("s1", target, None, version=version) if version == "v1.0" else data("s1", target, version=version)

    log = [{"version": version, "createSurface": {"surfaceId": "s1", "catalogId": "c"}}]
    log += [one() for _ in range(draw(st.integers(0, 10)))]
    if not objects_only and draw(st.integers(0, 9)) == 0:
        log.append(delete("s1", version))
    return log


@settings(max_examples=examples(400), deadline=None)
@given(log=surface_logs())
def test_a_log_and_its_compact_form_render_the_same(log: list[Msg]) -> None:
    before = copy.deepcopy(log)
    out = fold(log)
    assert log == before
    assert render(out) == render(log)
    if out is not log:
        assert len(out) <= 3 and {m["version"] for m in out} == {log[0]["version"]}
        assert render(log) != "broken"


@settings(max_examples=examples(200), deadline=None)
@given(log=surface_logs(objects_only=True))
def test_object_only_logs_always_fold(log: list[Msg]) -> None:
    out = fold(log)
    assert out is not log and len(out) <= 3
    assert render(out) == render(log)
