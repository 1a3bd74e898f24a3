"""The front door's A2A calls, carried by the exchange like every other door's: encoded per agent interface
(method, params dialect, binding) and v0.3 results read through the v1.0 hub so that a v0.3 and a v1.0
agent replaying one scenario give the same AG-UI events."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gateway.core.agui.request import Call
from gateway.core.card import Interface
from gateway.core.exchange import Exchange, Reply, Result
from gateway.core.stream import HubItem
from gateway.core.types import Binding, Version
from tests.core.agui.conformance import validate
from tests.core.agui.helpers import Driver, body, create, status, task, text, ui, user


def _call() -> Call:
    return Driver(body(user("hi"))).call  # type: ignore[return-value]


def exchange(call: Call, version: Version, binding: Binding = Binding.JSONRPC, rpc_id: str = "r1") -> Exchange:
    return Exchange(call.a2a(rpc_id), Interface(version, binding, "http://agent"))


def encode(call: Call, version: Version, rpc_id: str = "r1", binding: Binding = Binding.JSONRPC) -> Any:
    out = exchange(call, version, binding, rpc_id).upstream_request()
    return json.loads(out.body or b"null") if binding is Binding.JSONRPC else out


def test_v10_call() -> None:
    call = _call()
    envelope = encode(call, Version.V10)
    assert envelope["method"] == "SendStreamingMessage" and envelope["id"] == "r1"
    assert envelope["params"]["message"]["role"] == "ROLE_USER"
    assert call.extensions == ("https://a2ui.org/a2a-extension/a2ui/v1.0",)
    assert call.a2a("r1").op.streaming


def test_calls_reach_rest_only_agents_of_both_versions() -> None:
    v10 = encode(_call(), Version.V10, binding=Binding.REST)
    assert (v10.method, v10.path) == ("POST", "/message:stream")
    assert json.loads(v10.body)["message"]["role"] == "ROLE_USER"
    v03 = encode(_call(), Version.V03, binding=Binding.REST)
    assert (v03.method, v03.path) == ("POST", "/v1/message:stream")
    assert json.loads(v03.body)["message"]["content"] == [{"text": "hi"}]


def test_v03_call() -> None:
    envelope = encode(_call(), Version.V03)
    assert envelope["method"] == "message/stream"
    assert envelope["params"]["message"] == {
        "kind": "message",
        "messageId": "u1",
        "role": "user",
        "parts": [{"kind": "text", "text": "hi"}],
        "extensions": ["https://a2ui.org/a2a-extension/a2ui/v1.0"],
    }


def test_v03_action_part_keeps_the_media_type_in_metadata() -> None:
    part = {
        "data": {"version": "v0.9", "action": {"name": "b"}},
        "mediaType": "application/json+a2ui",
        "metadata": {"mimeType": "application/json+a2ui"},
    }
    call = Call("send_message", {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [part]}})
    params = encode(call, Version.V03, "x")["params"]
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
    relay = exchange(Call("send_streaming_message", {}), version).hub_stream(max_event_bytes=1 << 20)
    for item in items:
        for got in relay.feed(b"data: " + json.dumps(_rpc(item)).encode() + b"\n\n"):
            assert got.item is not None
            d.events += d.run.on_item(got.item)
    d.events += d.run.on_eof()
    return d.events


def test_v03_and_v10_agents_give_identical_streams() -> None:  # case 45
    v03, v10 = _replay(Version.V03, V03_SCENARIO), _replay(Version.V10, V10_SCENARIO)
    validate(v03)
    assert v03 == v10


def read(version: Version, operation: str, reply: Any, status: int = 200) -> Result | Reply:
    ex = exchange(Call(operation, {"id": "T"} if operation == "cancel_task" else {}), version)
    step = ex.read_reply(status, reply if isinstance(reply, bytes) else json.dumps(reply).encode())
    assert isinstance(step, Result | Reply)
    return step


def test_errors_and_unary_results() -> None:
    err = read(Version.V03, "send_message", {"jsonrpc": "2.0", "id": 1, "error": {"code": -32001, "message": "nope"}})
    info = {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "TASK_NOT_FOUND",
            "domain": "a2a-protocol.org"}
    assert err == Result(False, {"code": -32001, "message": "nope", "data": [info]})  # read as the v1.0 error
    sent = read(Version.V03, "send_message", _rpc({"kind": "message", "messageId": "a", "role": "agent", "parts": []}))
    assert sent == Result(True, {"message": {"messageId": "a", "role": "ROLE_AGENT", "parts": [{"text": ""}]}})
    canceled = read(Version.V10, "cancel_task",
                    _rpc({"id": "T", "contextId": "C", "status": {"state": "TASK_STATE_CANCELED"}}))
    assert isinstance(canceled, Result) and canceled.ok and canceled.value["id"] == "T"


@pytest.mark.parametrize(
    "data", [b"{", b"[]", json.dumps(_rpc(5)).encode(), json.dumps(_rpc({"kind": "bogus"})).encode()]
)
def test_broken_replies_are_protocol_errors(data: bytes) -> None:
    version = Version.V03 if b"bogus" in data else Version.V10
    relay = exchange(Call("send_streaming_message", {}), version).hub_stream(max_event_bytes=1 << 20)
    (got,) = relay.feed(b"data: " + data + b"\n\n")
    assert got == HubItem(fault=got.fault) and got.fault is not None and got.fault.jsonrpc_code == -32006


def test_resubscribe_calls() -> None:
    call = Call("subscribe_to_task", {"id": "T1"})
    v03, v10 = encode(call, Version.V03, "r"), encode(call, Version.V10, "r")
    assert (v03["method"], v03["params"]) == ("tasks/resubscribe", {"id": "T1"})
    assert (v10["method"], v10["params"]) == ("SubscribeToTask", {"id": "T1"})
