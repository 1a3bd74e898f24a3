"""The fast paths (core/translate/fastpath.py, the message and SendMessage-configuration short paths)
against the full translators they stand in front of: on valid objects and on every kind of damage,
both give the same bytes (member order included), the same notes, or the same error."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gateway.core import jsoncodec
from gateway.core.errors import GatewayError
from gateway.core.notes import Cx
from gateway.core.translate import messages, parts, requests_send
from gateway.core.translate.registry import families, translate
from gateway.core.translate.shape import arr
from gateway.core.types import Dialect
from tests import strategies
from tests.profiles import examples

R, V = Dialect.V03RPC, Dialect.V10
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


def _via_translate(family: str, src: Dialect, dst: Dialect) -> Fn:
    return lambda value, cx, at: translate(family, value, src=src, dst=dst, cx=cx, at=at)


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


def _conf_down(conf: Any) -> Any:
    """A v0.3 configuration as clients send it: the translated one, `blocking` usually explicit."""
    return requests_send._conf_from_v10_full(conf, Cx(), "$", False)


def _conf(to_v10: bool) -> tuple[Fn, Fn]:
    fast = requests_send._conf_to_v10(False) if to_v10 else requests_send._conf_from_v10(False)
    full = requests_send._conf_to_v10_full if to_v10 else requests_send._conf_from_v10_full
    return fast, lambda conf, cx, at: full(conf, cx, at + ".configuration", False)


def _each_part(part_fn: Fn) -> Fn:
    return lambda items, cx, at: [part_fn(p, cx, f"{at}.parts[{i}]") for i, p in enumerate(obj_list(items, at))]


def obj_list(items: Any, at: str) -> list[Any]:
    return arr(items, f"{at}.parts")


_v10_parts = st.lists(strategies.v10_part() | st.builds(lambda t: {"text": t}, strategies.texts), max_size=3)


# name: (the fast path, the full path it stands in front of, a v1.0 strategy, how to make the input
# from a v1.0 value (None: it is the input), the path the caller passes)
CASES: dict[str, tuple[Fn, Fn, Any, Callable[[Any], Any] | None, str]] = {
    "stream item v1.0 -> v0.3": (_via_translate("stream_response", V, R), _full("stream_response", V, R),
                                 v10_status_item(), None, "$[3]"),
    "stream item v0.3 -> v1.0": (_via_translate("stream_response", R, V), _full("stream_response", R, V),
                                 v10_status_item(), lambda v: _down("stream_response", v), "$[3]"),
    "message v1.0 -> v0.3": (messages.rpc_from_v10, messages._rpc_from_v10_full, strategies.v10_message(),
                             None, "$.message"),
    "message v0.3 -> v1.0": (messages.rpc_to_v10, messages._rpc_to_v10_full, strategies.v10_message(),
                             lambda v: _down("message", v), "$.message"),
    "parts v1.0 -> v0.3": (messages.rpc_parts_from_v10, _each_part(parts.rpc_from_v10), _v10_parts, None, "$.a"),
    "parts v0.3 -> v1.0": (messages.rpc_parts_to_v10, _each_part(parts.rpc_to_v10), _v10_parts,
                           lambda v: _down("artifact", {"artifactId": "a", "parts": v})["parts"], "$.a"),
    "configuration v1.0 -> v0.3": (*_conf(False), v10_configuration(), None, "$.params"),
    "configuration v0.3 -> v1.0": (*_conf(True), v10_configuration(), _conf_down, "$.params"),
}


@pytest.mark.parametrize("case", sorted(CASES))
@settings(suppress_health_check=[HealthCheck.too_slow], max_examples=examples(300))
@given(data=st.data())
def test_fast_path_equals_full_path(case: str, data: st.DataObject) -> None:
    fast, full, strategy, make, at = CASES[case]
    value = data.draw(strategy)
    value = damaged(data, make(value) if make else value)
    before = copy.deepcopy(value)
    assert outcome(fast, value, at) == outcome(full, value, at)
    assert value == before


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_common_shape_takes_the_fast_path(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bench's shapes never reach the full path (else the fast path would be dead code)."""
    samples = {
        "stream item": {"statusUpdate": {"taskId": "t", "contextId": "c", "status": {
            "state": "TASK_STATE_WORKING", "timestamp": "2025-04-02T16:59:25Z",
            "message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "hi"}]}}}},
        "message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}], "contextId": "c"},
        "configuration": {"acceptedOutputModes": ["text/plain"]},
        "parts": [{"text": "hi"}, {"text": "there"}],
    }
    fast, _, _, make, at = CASES[case]
    values = [samples[case.split(" v")[0]]]
    if case.startswith("stream item"):
        values.append({"artifactUpdate": {"taskId": "t", "contextId": "c", "append": True, "lastChunk": False,
                                          "artifact": {"artifactId": "a", "parts": [{"text": "chunk"}]}}})
    values = [make(v) if make else v for v in values]   # before the full paths are replaced below
    calls: list[str] = []
    for module, name in [(messages, "_rpc_to_v10_full"), (messages, "_rpc_from_v10_full"),
                         (requests_send, "_conf_to_v10_full"), (requests_send, "_conf_from_v10_full"),
                         (parts, "rpc_to_v10"), (parts, "rpc_from_v10")]:
        monkeypatch.setattr(module, name, lambda *a, _n=name: calls.append(_n))
    from gateway.core.translate import fastpath
    for name in ("_full_item_to_v10", "_full_item_from_v10"):
        monkeypatch.setattr(fastpath, name, lambda *a, _n=name: calls.append(_n))
    for value in values:
        out = fast(copy.deepcopy(value), Cx(), at)
        assert calls == [] and out is not None
