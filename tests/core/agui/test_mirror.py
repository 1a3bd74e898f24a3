"""mirror_ids_in_state (core/agui/mirror.py): the A2A ids written into the AG-UI state before a run
ends, and read back from `input.state.a2a` when the thread's session is gone (case 50)."""

from __future__ import annotations

from typing import Any

import pytest

from gateway.core.agui import mirror
from gateway.core.agui.request import Options
from gateway.core.agui.session import ThreadSession
from tests.core.agui.conformance import validate
from tests.core.agui.helpers import Driver, body, status, task, text, user

ON = Options(mirror_ids_in_state=True)


def _state_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] in ("STATE_DELTA", "STATE_SNAPSHOT")]


def test_ids_are_added_to_an_object_state_before_the_run_ends() -> None:
    d = Driver(body(user("go"), state={"cart": [1]}), options=ON)
    events = d.feed(task(), status("input-required", text("Which one?")))
    validate(events, protocol10=True)
    assert _state_events(events) == [{"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/a2a", "value": {
        "contextId": "C1", "taskId": "T1", "taskState": "TASK_STATE_INPUT_REQUIRED"}}]}]
    assert events[-2]["type"] == "STATE_DELTA" and events[-1]["type"] == "RUN_FINISHED"


def test_a_client_without_state_gets_a_snapshot_and_a_finished_task_keeps_only_its_context() -> None:
    d = Driver(body(user("go")), options=ON)
    events = d.feed(task(), status("completed", text("Done")))
    validate(events, protocol10=True)
    assert _state_events(events) == [{"type": "STATE_SNAPSHOT", "snapshot": {"a2a": {"contextId": "C1"}}}]


def test_nothing_is_sent_when_the_state_already_holds_the_ids_or_the_option_is_off() -> None:
    held = {"a2a": {"contextId": "C1", "taskId": "T1", "taskState": "TASK_STATE_INPUT_REQUIRED"}}
    d = Driver(body(user("go"), state=held), options=ON)
    assert _state_events(d.feed(task(), status("input-required", text("Which one?")))) == []
    off = Driver(body(user("go"), state={}))
    assert _state_events(off.feed(task(), status("input-required", text("Which one?")))) == []


def test_errors_also_mirror_and_a_list_state_is_left_alone() -> None:
    d = Driver(body(user("go"), state={}), options=ON)
    events = d.feed(task(), status("failed", text("boom")))
    assert events[-1]["type"] == "RUN_ERROR" and events[-2]["type"] == "STATE_DELTA"
    listed = Driver(body(user("go"), state=[1, 2]), options=ON)
    assert _state_events(listed.feed(task(), status("completed", text("ok")))) == []


def test_a_restarted_gateway_continues_the_task_from_the_clients_state() -> None:  # case 50
    first = Driver(body(user("go"), state={}), options=ON)
    delta = _state_events(first.feed(task(), status("input-required", text("Which one?"))))[0]
    state = {"a2a": delta["delta"][0]["value"]}
    # a fresh session (the gateway restarted): the ids come back from the state the client sends
    nxt = Driver(body(user("go"), user("the red one", mid="u2"), run="r2", state=state), ThreadSession(), options=ON)
    assert nxt.message["contextId"] == "C1" and nxt.message["taskId"] == "T1"
    assert nxt.message["parts"] == [{"text": "the red one"}]
    without = Driver(body(user("go"), user("the red one", mid="u2"), run="r2", state=state), ThreadSession())
    assert "taskId" not in without.message and "contextId" not in without.message


@pytest.mark.parametrize("state", [
    None, [], {"a2a": None}, {"a2a": {"contextId": 5, "taskId": ["T"]}}, {"a2a": {"taskState": "working"}},
])
def test_recover_takes_only_well_formed_ids(state: Any) -> None:
    session = ThreadSession()
    assert mirror.recover(state, session) is False
    assert (session.context_id, session.task_id, session.task_state) == (None, None, None)


def test_recover_never_overrides_what_the_gateway_knows() -> None:
    session = ThreadSession(context_id="mine")
    assert mirror.recover({"a2a": {"contextId": "theirs", "taskId": "T"}}, session) is False
    assert session.context_id == "mine" and session.task_id is None
    fresh = ThreadSession()
    assert mirror.recover({"a2a": {"taskId": "T", "taskState": "TASK_STATE_BOGUS"}}, fresh) is True
    assert fresh.task_id == "T" and fresh.task_state is None
