"""The front door's A2A wire: calls encoded per agent version (method, params dialect, headers) and
v0.3 results lifted so that a v0.3 and a v1.0 agent replaying one scenario give the same AG-UI events."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gateway.core.agui import wire
from gateway.core.agui.request import Call
from gateway.core.types import Version
from tests.core.agui.conformance import validate
from tests.core.agui.helpers import Driver, body, create, status, task, text, ui, user


def _call() -> Call:
    return Driver(body(user("hi"))).call  # type: ignore[return-value]


def test_v10_call() -> None:
    out = wire.encode(_call(), Version.V10, "r1")
    envelope = json.loads(out.body)
    assert envelope["method"] == "SendStreamingMessage" and envelope["id"] == "r1"
    assert envelope["params"]["message"]["role"] == "ROLE_USER"
    assert out.headers == {
        "Content-Type": "application/json",
        "Accept": "text/event-stream",
        "A2A-Version": "1.0",
        "A2A-Extensions": "https://a2ui.org/a2a-extension/a2ui/v1.0",
    }
    assert out.streaming


def test_v03_call() -> None:
    out = wire.encode(_call(), Version.V03, "r1")
    envelope = json.loads(out.body)
    assert envelope["method"] == "message/stream"
    assert envelope["params"]["message"] == {
        "kind": "message",
        "messageId": "u1",
        "role": "user",
        "parts": [{"kind": "text", "text": "hi"}],
        "extensions": ["https://a2ui.org/a2a-extension/a2ui/v1.0"],
    }
    assert "A2A-Version" not in out.headers
    assert out.headers["X-A2A-Extensions"] == "https://a2ui.org/a2a-extension/a2ui/v1.0"


def test_v03_action_part_keeps_the_media_type_in_metadata() -> None:
    part = {
        "data": {"version": "v0.9", "action": {"name": "b"}},
        "mediaType": "application/json+a2ui",
        "metadata": {"mimeType": "application/json+a2ui"},
    }
    call = Call("send_message", {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [part]}})
    params = json.loads(wire.encode(call, Version.V03, "x").body)["params"]
    assert params["message"]["parts"] == [
        {
            "kind": "data",
            "data": {"version": "v0.9", "action": {"name": "b"}},
            "metadata": {"mimeType": "application/json+a2ui"},
        }
    ]


def _rpc(result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": "r1", "result": result}


V03_SCENARIO = [
    {"kind": "task", "id": "T1", "contextId": "C1", "status": {"state": "submitted"}},
    {
        "kind": "status-update",
        "taskId": "T1",
        "contextId": "C1",
        "final": False,
        "status": {
            "state": "working",
            "message": {
                "kind": "message",
                "messageId": "m1",
                "role": "agent",
                "parts": [{"kind": "text", "text": "Looking"}],
            },
        },
    },
    {
        "kind": "status-update",
        "taskId": "T1",
        "contextId": "C1",
        "final": True,
        "status": {
            "state": "input-required",
            "message": {
                "kind": "message",
                "messageId": "m2",
                "role": "agent",
                "parts": [
                    {"kind": "text", "text": "Pick"},
                    {"kind": "data", "data": create("s1"), "metadata": {"mimeType": "application/a2ui+json"}},
                    {
                        "kind": "data",
                        "data": {"value": [create("s2")]},
                        "metadata": {"mimeType": "application/a2ui+json", "data_part_compat": True},
                    },
                ],
            },
        },
    },
]
V10_SCENARIO = [
    task(),
    status("working", text("Looking"), mid="m1"),
    status(
        "input-required",
        text("Pick"),
        {
            "data": create("s1"),
            "mediaType": "application/a2ui+json",
            "metadata": {"mimeType": "application/a2ui+json"},
        },
        ui(create("s2"), as_list=True, where="metadata"),
        mid="m2",
    ),
]


def _replay(version: Version, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    d = Driver(body(user("show")))
    for item in items:
        result = wire.decode_bytes(json.dumps(_rpc(item)), version, "send_streaming_message")
        assert result.item is not None
        d.events += d.run.on_item(result.item)
    d.events += d.run.on_eof()
    return d.events


def test_v03_and_v10_agents_give_identical_streams() -> None:  # case 45
    v03, v10 = _replay(Version.V03, V03_SCENARIO), _replay(Version.V10, V10_SCENARIO)
    validate(v03)
    assert v03 == v10


def test_errors_and_unary_results() -> None:
    err = wire.decode(
        {"jsonrpc": "2.0", "id": 1, "error": {"code": -32001, "message": "nope"}}, Version.V03, "send_message"
    )
    assert err.error == {"code": -32001, "message": "nope"} and err.item is None
    sent = wire.decode(
        _rpc({"kind": "message", "messageId": "a", "role": "agent", "parts": []}), Version.V03, "send_message"
    )
    assert sent.item == {"message": {"messageId": "a", "role": "ROLE_AGENT", "parts": []}}
    canceled = wire.decode(
        _rpc({"id": "T", "contextId": "C", "status": {"state": "TASK_STATE_CANCELED"}}),
        Version.V10,
        "cancel_task",
    )
    assert canceled.item is not None and list(canceled.item) == ["task"]


@pytest.mark.parametrize(
    "data", [b"{", b"[]", json.dumps(_rpc(5)).encode(), json.dumps(_rpc({"kind": "bogus"})).encode()]
)
def test_broken_replies_are_protocol_errors(data: bytes) -> None:
    version = Version.V03 if b"bogus" in data else Version.V10
    with pytest.raises(wire.ProtocolError):
        wire.decode_bytes(data, version, "send_streaming_message")


def test_resubscribe_calls() -> None:
    call = Call("subscribe_to_task", {"id": "T1"})
    v03 = json.loads(wire.encode(call, Version.V03, "r").body)
    v10 = json.loads(wire.encode(call, Version.V10, "r").body)
    assert (v03["method"], v03["params"]) == ("tasks/resubscribe", {"id": "T1"})
    assert (v10["method"], v10["params"]) == ("SubscribeToTask", {"id": "T1"})
