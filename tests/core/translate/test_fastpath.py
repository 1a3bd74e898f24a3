"""Every declared fast path (`fast_paths()`: the stream-item, message, parts-list and SendMessage
configuration short paths) against the full translator it stands in front of: on valid objects and on
every kind of damage, both give the same bytes (member order included), the same notes, or the same error."""

from __future__ import annotations

import copy
import sys
from collections.abc import Callable
from types import CodeType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gateway.core import jsoncodec
from gateway.core.errors import GatewayError
from gateway.core.notes import Cx
from gateway.core.translate import FastPath, calls, families, fast_paths, parts
from gateway.core.types import Dialect
from tests import strategies
from tests.profiles import examples

R, S, V = Dialect.V03RPC, Dialect.V03REST, Dialect.V10
Fn = Callable[[Any, Cx, str], Any]

# values that steer damage toward the branches the fast paths test
_SPECIAL = st.sampled_from([
    None, True, False, 0, 2, "", "x", [], {}, ["text/plain"], [1], {"text": "t"}, {"kind": "text", "text": "t"},
    "working", "completed", "input-required", "unknown", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED",
    "TASK_STATE_UNSPECIFIED", "TASK_STATE_CANCELLED", "ROLE_USER", "ROLE_UNSPECIFIED", "user", "agent",
    "message", "status-update", "artifact-update", "task", "2025-04-02T16:59:25Z", "2025-04-02T16:59:25+02:00",
    "2025-04-02 16:59:25",
])
_NAMES = st.sampled_from([
    "kind", "final", "metadata", "contextId", "taskId", "extensions", "referenceTaskIds", "blocking",
    "returnImmediately", "historyLength", "tenant", "status_update", "statusUpdate", "message", "unknown",
])


def _slots(value: Any) -> list[tuple[Any, Any]]:
    """Every (container, key) in a JSON value, depth first."""
    found: list[tuple[Any, Any]] = []
    items = value.items() if type(value) is dict else enumerate(value) if type(value) is list else ()
    for key, child in items:
        found.append((value, key))
        found.extend(_slots(child))
    return found


def damaged(data: st.DataObject, value: Any) -> Any:
    """`value` as is, or with one or two members deleted, replaced, nulled or added."""
    value = copy.deepcopy(value)
    for _ in range(data.draw(st.integers(0, 2))):
        slots = _slots(value)
        if not slots:
            break
        container, key = data.draw(st.sampled_from(slots))
        action = data.draw(st.sampled_from(["delete", "replace", "special", "add"]))
        if action == "delete":
            del container[key]
        elif action == "replace":
            container[key] = data.draw(strategies.json_values)
        elif action == "special":
            container[key] = copy.deepcopy(data.draw(_SPECIAL))  # a fresh copy: later damage may reach into it
        elif type(container) is dict:
            container[data.draw(_NAMES)] = copy.deepcopy(data.draw(_SPECIAL | strategies.json_values))
    return value


def outcome(fn: Fn, value: Any, at: str) -> tuple[Any, ...]:
    cx = Cx()
    try:
        out = fn(copy.deepcopy(value), cx, at)
    except GatewayError as exc:
        return ("error", type(exc).__name__, exc.path, exc.message)
    return ("ok", jsoncodec.dumpb(out), [(n.code, n.path, n.detail) for n in cx.notes])


def _full(family: str, src: Dialect, dst: Dialect) -> Fn:
    return families()[family][(src, dst)]


def _down(family: str, value: Any) -> Any:
    return _full(family, V, R)(value, Cx(), "$")


@st.composite
def v10_configuration(draw: st.DrawFn) -> dict[str, Any]:
    return draw(st.just({"acceptedOutputModes": ["text/plain"]}) | st.fixed_dictionaries({}, optional={
        "acceptedOutputModes": st.lists(strategies.mimes, max_size=2), "historyLength": st.integers(0, 3),
        "returnImmediately": st.booleans()}))


@st.composite
def v10_status_item(draw: st.DrawFn) -> dict[str, Any]:
    """Stream items, status and artifact updates most of all (the fast paths' shapes)."""
    pick = draw(st.integers(0, 4))
    if pick in (1, 2):
        return {"statusUpdate": draw(strategies.v10_status_update())}
    if pick in (3, 4):
        return {"artifactUpdate": draw(strategies.v10_artifact_update())}
    return draw(strategies.v10_stream_response())


def _conf_down(dialect: Dialect) -> Callable[[Any], Any]:
    """A v0.3 configuration as clients send it: the translated one, `blocking` usually explicit."""
    return lambda conf: calls.CONF_FROM_V10[dialect](conf, Cx(), "$")


_v10_parts = st.lists(strategies.v10_part() | st.builds(lambda t: {"text": t}, strategies.texts), max_size=3)


# (rule, src, dst) of a declared fast path: (a v1.0 strategy, how to make the input from a v1.0 value
# (None: it is the input), the path the caller passes)
Key = tuple[str, Dialect, Dialect]
CASES: dict[Key, tuple[Any, Callable[[Any], Any] | None, str]] = {
    ("stream_response", V, R): (v10_status_item(), None, "$[3]"),
    ("stream_response", R, V): (v10_status_item(), lambda v: _down("stream_response", v), "$[3]"),
    ("message", V, R): (strategies.v10_message(), None, "$.message"),
    ("message", R, V): (strategies.v10_message(), lambda v: _down("message", v), "$.message"),
    ("parts", V, R): (_v10_parts, None, "$.a"),
    ("parts", R, V): (_v10_parts, lambda v: _down("artifact", {"artifactId": "a", "parts": v})["parts"], "$.a"),
    ("send_configuration", V, R): (v10_configuration(), None, "$.params"),
    ("send_configuration", R, V): (v10_configuration(), _conf_down(R), "$.params"),
    ("send_configuration", V, S): (v10_configuration(), None, "$.params"),
    ("send_configuration", S, V): (v10_configuration(), _conf_down(S), "$.params"),
}
DECLARED: dict[Key, FastPath] = {(str(p.rule), p.src, p.dst): p for p in fast_paths()}


def _name(key: Key) -> str:
    return f"{key[0]} {key[1].value}->{key[2].value}"


def test_every_declared_fast_path_has_a_case() -> None:
    assert len(DECLARED) == len(fast_paths()), "a fast path is declared twice"
    assert set(CASES) == set(DECLARED)


@pytest.mark.parametrize("case", sorted(CASES, key=_name), ids=_name)
@settings(suppress_health_check=[HealthCheck.too_slow], max_examples=examples(300))
@given(data=st.data())
def test_fast_path_equals_full_path(case: Key, data: st.DataObject) -> None:
    strategy, make, at = CASES[case]
    fast, full = DECLARED[case].fast, DECLARED[case].full
    value = data.draw(strategy)
    value = damaged(data, make(value) if make else value)
    before = copy.deepcopy(value)
    assert outcome(fast, value, at) == outcome(full, value, at)
    assert value == before


def _called(fn: Fn, value: Any, at: str) -> set[CodeType]:
    """The code of every Python function `fn(value, …)` calls."""
    seen: set[CodeType] = set()

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            seen.add(frame.f_code)

    sys.setprofile(profile)
    try:
        out = fn(copy.deepcopy(value), Cx(), at)
    finally:
        sys.setprofile(None)
    assert out is not None
    return seen


# the full translators a fast path must not reach for the common shapes: every declared one, and the
# per-part translators behind the parts lists
_FULL_CODE = {p.full.__code__ for p in fast_paths()} | {fn.__code__ for fn in (*parts.TO_V10.values(),
                                                                               *parts.FROM_V10.values())}


@pytest.mark.parametrize("case", sorted(CASES, key=_name), ids=_name)
def test_the_common_shape_takes_the_fast_path(case: Key) -> None:
    """The bench's shapes never reach a full path (else the fast path would be dead code)."""
    samples = {
        "stream_response": {"statusUpdate": {"taskId": "t", "contextId": "c", "status": {
            "state": "TASK_STATE_WORKING", "timestamp": "2025-04-02T16:59:25Z",
            "message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "hi"}]}}}},
        "message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}], "contextId": "c"},
        "send_configuration": {"acceptedOutputModes": ["text/plain"]},
        "parts": [{"text": "hi"}, {"text": "there"}],
    }
    _, make, at = CASES[case]
    values = [samples[case[0]]]
    if case[0] == "stream_response":
        values.append({"artifactUpdate": {"taskId": "t", "contextId": "c", "append": True, "lastChunk": False,
                                          "artifact": {"artifactId": "a", "parts": [{"text": "chunk"}]}}})
    for value in (make(v) if make else v for v in values):
        assert not _called(DECLARED[case].fast, value, at) & _FULL_CODE
