"""The gRPC door in front of scripted fake agents (faults no real SDK peer produces), called with a real
grpc.aio channel and raw bytes: translation both ways, statuses with ErrorInfo, metadata, limits, the
card's gRPC interfaces, the drain, the v1.0 behaviour composed for v0.3 agents (ListTasks, SubscribeToTask)."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from gateway.core.bindings.grpc import DETAILS_KEY, message_class
from gateway.core.types import Version
from tests.shell.conftest import send_request

V10_SEND = "/lf.a2a.v1.A2AService/SendMessage"
V03_SEND = "/a2a.v1.A2AService/SendMessage"
V10_STREAM = "/lf.a2a.v1.A2AService/SendStreamingMessage"
TASK = {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"}}
V03_TASK = {"kind": "task", "id": "t1", "contextId": "c1", "status": {"state": "completed"}}


async def _unary(channel: grpc.aio.Channel, path: str, data: bytes, **kw: Any) -> tuple[bytes, Any]:
    call = channel.unary_unary(path)(data, **kw)
    reply = await call
    return reply, await call.initial_metadata()


async def test_v10_send_to_v03_jsonrpc_agent(grpc_gateway: Any, fake_agent_factory: Any) -> None:
    fake = await fake_agent_factory("0.3")
    fake.reply_json("message/send", V03_TASK)
    _, _, channel = await grpc_gateway(fake)
    reply, initial = await _unary(channel, V10_SEND, send_request(Version.V10),
                                  metadata=(("authorization", "Bearer x"), ("a2a-extensions", "urn:e")))
    task = message_class(Version.V10, "SendMessageResponse").FromString(reply).task
    assert (task.id, task.status.state) == ("t1", 3)  # TASK_STATE_COMPLETED
    sent = fake.calls("message/send")[0]
    assert sent.headers["Authorization"] == "Bearer x"  # auth forwarded untouched
    assert sent.headers["X-A2A-Extensions"] == "urn:e"  # the extensions in the agent's spelling
    assert sent.params["message"]["parts"] == [{"kind": "text", "text": "hi"}]
    assert any(k == "x-request-id" for k, _ in initial)


async def test_agent_error_is_a_status_with_error_info(grpc_gateway: Any, fake_agent_factory: Any) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_json("SendMessage", error={"code": -32001, "message": "Task not found"})
    _, _, channel = await grpc_gateway(fake)
    for path, version in ((V10_SEND, Version.V10), (V03_SEND, Version.V03)):
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await _unary(channel, path, send_request(version))
        err = caught.value
        assert err.code() is grpc.StatusCode.NOT_FOUND
        details = dict(err.trailing_metadata() or ())[DETAILS_KEY]
        status = status_pb2.Status.FromString(details)
        info = error_details_pb2.ErrorInfo()
        assert status.details[0].Unpack(info) and info.reason == "TASK_NOT_FOUND"
        if version is Version.V03:  # the class name a2a-sdk's v0.3 gRPC clients read
            assert err.details().startswith("TaskNotFoundError: ")


async def test_malformed_request_is_invalid_argument(grpc_gateway: Any, fake_agent_factory: Any) -> None:
    fake = await fake_agent_factory("1.0")
    _, _, channel = await grpc_gateway(fake)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await _unary(channel, V10_SEND, b"\xff\xff\xff")
    assert caught.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert fake.calls("SendMessage") == []


async def test_unknown_method_is_unimplemented(grpc_gateway: Any, fake_agent_factory: Any) -> None:
    _, _, channel = await grpc_gateway(await fake_agent_factory("1.0"))
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await _unary(channel, "/lf.a2a.v1.A2AService/NoSuchRpc", b"")
    assert caught.value.code() is grpc.StatusCode.UNIMPLEMENTED


async def test_message_beyond_the_body_limit_is_refused(grpc_gateway: Any, fake_agent_factory: Any) -> None:
    fake = await fake_agent_factory("1.0")
    _, _, channel = await grpc_gateway(fake, limits__max_body_bytes=2048)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await _unary(channel, V10_SEND, send_request(Version.V10, "x" * 4096))
    assert caught.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert fake.calls("SendMessage") == []


async def test_agent_gone_is_unavailable(grpc_gateway: Any, fake_agent_factory: Any) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_disconnect("SendMessage", mid_body=False)
    _, _, channel = await grpc_gateway(fake)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await _unary(channel, V10_SEND, send_request(Version.V10))
    assert caught.value.code() is grpc.StatusCode.UNAVAILABLE


async def test_a_result_the_proto_cannot_hold_is_the_agents_fault(grpc_gateway: Any, fake_agent_factory: Any) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_json("SendMessage", {"task": TASK, "surprise": 1})
    _, _, channel = await grpc_gateway(fake)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await _unary(channel, V10_SEND, send_request(Version.V10))
    info = error_details_pb2.ErrorInfo()
    status = status_pb2.Status.FromString(dict(caught.value.trailing_metadata() or ())[DETAILS_KEY])
    assert status.details[0].Unpack(info) and info.reason == "INVALID_AGENT_RESPONSE", info
    assert caught.value.code() is grpc.StatusCode.INTERNAL


async def test_agent_authentication_challenge_passes_as_status(grpc_gateway: Any, fake_agent_factory: Any) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_json("SendMessage", {"error": "who are you"}, status=401)
    _, _, channel = await grpc_gateway(fake)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await _unary(channel, V10_SEND, send_request(Version.V10))
    assert caught.value.code() is grpc.StatusCode.UNAUTHENTICATED


async def test_stream_from_v03_sse_agent(grpc_gateway: Any, fake_agent_factory: Any) -> None:
    fake = await fake_agent_factory("0.3")
    fake.reply_sse("message/stream", [
        {**V03_TASK, "status": {"state": "working"}},
        {"kind": "status-update", "taskId": "t1", "contextId": "c1", "status": {"state": "completed"}, "final": True},
    ])
    _, _, channel = await grpc_gateway(fake)
    call = channel.unary_stream(V10_STREAM)(send_request(Version.V10))
    cls = message_class(Version.V10, "StreamResponse")
    items = [cls.FromString(m) async for m in call]
    assert [i.WhichOneof("payload") for i in items] == ["task", "status_update"]
    assert await call.code() is grpc.StatusCode.OK


async def test_stream_error_event_ends_the_call_with_its_status(grpc_gateway: Any, fake_agent_factory: Any) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_sse("SendStreamingMessage", [
        {"task": {**TASK, "status": {"state": "TASK_STATE_WORKING"}}},
        {"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "boom"}},
    ])
    _, _, channel = await grpc_gateway(fake)
    call = channel.unary_stream(V10_STREAM)(send_request(Version.V10))
    got = []
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        async for message in call:
            got.append(message)
    assert len(got) == 1 and caught.value.code() is grpc.StatusCode.INTERNAL


async def test_card_lists_the_grpc_listener(grpc_gateway: Any, fake_agent_factory: Any) -> None:
    client, listener, _ = await grpc_gateway(await fake_agent_factory("1.0"))
    port = listener.lifecycle.grpc_port
    v10 = await (await client.get("/.well-known/agent-card.json", headers={"A2A-Version": "1.0"})).json()
    grpc_ifaces = [i for i in v10["supportedInterfaces"] if i["protocolBinding"] == "GRPC"]
    assert [(i["url"], i["protocolVersion"]) for i in grpc_ifaces] == [(f"127.0.0.1:{port}", "1.0"),
                                                                       (f"127.0.0.1:{port}", "0.3")]
    v03 = await (await client.get("/.well-known/agent-card.json")).json()
    assert {"url": f"127.0.0.1:{port}", "transport": "GRPC"} in v03["additionalInterfaces"]


async def test_stop_refuses_new_calls(grpc_gateway: Any, fake_agent_factory: Any) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_json("SendMessage", {"task": TASK})
    _, listener, channel = await grpc_gateway(fake)
    await _unary(channel, V10_SEND, send_request(Version.V10))
    await listener.stop(0.1)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await asyncio.wait_for(_unary(channel, V10_SEND, send_request(Version.V10), timeout=2), 5)
    assert caught.value.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)


# ---- v1.0 behaviour composed for v0.3 agents (shell.carrier.compose, as for the HTTP doors) ---------------------

V10_LIST = "/lf.a2a.v1.A2AService/ListTasks"
V10_SUBSCRIBE = "/lf.a2a.v1.A2AService/SubscribeToTask"


def _v03_task(task_id: str, state: str) -> dict[str, Any]:
    return {"kind": "task", "id": task_id, "contextId": "c1", "status": {"state": state}}


async def test_v10_list_tasks_from_the_index_in_the_callers_scope(grpc_gateway: Any, fake_agent_factory: Any) -> None:
    """The gRPC door records what it relays and lists it as the HTTP doors do: one index, one scope rule (the
    credentials, as headers or as metadata), each listed task read again with the caller's credentials."""
    fake = await fake_agent_factory("0.3")
    fake.reply_json("message/send", _v03_task("t1", "working")).reply_json("message/send", _v03_task("t2", "working"))
    client, _, channel = await grpc_gateway(fake)
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {
        "messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}}
    resp = await client.post("/", json=body, headers={"A2A-Version": "1.0", "Authorization": "Bearer alice"})
    assert resp.status == 200   # t1 made over JSON-RPC by alice
    await _unary(channel, V10_SEND, send_request(Version.V10), metadata=(("authorization", "Bearer bob"),))   # t2, bob
    fake.reply_json("tasks/get", _v03_task("t1", "completed")).reply_json("tasks/get", _v03_task("t2", "working"))
    listing = message_class(Version.V10, "ListTasksRequest")(page_size=10).SerializeToString()
    reply, _ = await _unary(channel, V10_LIST, listing, metadata=(("authorization", "Bearer alice"),))
    listed = message_class(Version.V10, "ListTasksResponse").FromString(reply)
    assert [(t.id, t.status.state) for t in listed.tasks] == [("t1", 3)]   # refreshed: TASK_STATE_COMPLETED
    assert (listed.total_size, listed.page_size, listed.next_page_token) == (1, 10, "")
    assert [r.headers["Authorization"] for r in fake.calls("tasks/get")] == ["Bearer alice"]
    reply, _ = await _unary(channel, V10_LIST, listing, metadata=(("authorization", "Bearer bob"),))
    assert [t.id for t in message_class(Version.V10, "ListTasksResponse").FromString(reply).tasks] == ["t2"]
    reply, _ = await _unary(channel, V10_LIST, listing)   # no credentials: nothing of alice's or bob's
    assert not message_class(Version.V10, "ListTasksResponse").FromString(reply).tasks
    with pytest.raises(grpc.aio.AioRpcError) as caught:   # out of the spec's bounds: the caller's fault
        await _unary(channel, V10_LIST, message_class(Version.V10, "ListTasksRequest")(page_size=500)
                     .SerializeToString())
    assert caught.value.code() is grpc.StatusCode.INVALID_ARGUMENT


async def test_v10_subscribe_opens_with_the_task_and_refuses_a_terminal_one(grpc_gateway: Any,
                                                                           fake_agent_factory: Any) -> None:
    fake = await fake_agent_factory("0.3")
    fake.reply_json("tasks/get", _v03_task("t1", "working")).reply_json("tasks/get", _v03_task("t2", "completed"))
    update = {"kind": "status-update", "taskId": "t1", "contextId": "c1", "final": False,
              "status": {"state": "working"}}
    fake.reply_sse("tasks/resubscribe", [update, {**update, "final": True, "status": {"state": "completed"}}, update],
                   then="hang")
    _, _, channel = await grpc_gateway(fake)
    subscribe = message_class(Version.V10, "SubscribeToTaskRequest")
    call = channel.unary_stream(V10_SUBSCRIBE)(subscribe(id="t1").SerializeToString())
    cls = message_class(Version.V10, "StreamResponse")
    items = [cls.FromString(m) async for m in call]
    assert [i.WhichOneof("payload") for i in items] == ["task", "status_update", "status_update"]
    assert items[0].task.id == "t1" and items[-1].status_update.status.state == 3   # ended at the terminal state
    assert await call.code() is grpc.StatusCode.OK
    refused = channel.unary_stream(V10_SUBSCRIBE)(subscribe(id="t2").SerializeToString())
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        async for _ in refused:
            pass
    info = error_details_pb2.ErrorInfo()
    status = status_pb2.Status.FromString(dict(caught.value.trailing_metadata() or ())[DETAILS_KEY])
    assert status.details[0].Unpack(info) and info.reason == "UNSUPPORTED_OPERATION", info
    assert len(fake.calls("tasks/resubscribe")) == 1   # the terminal task's was never asked for


async def test_an_agents_naive_timestamp_reaches_a_grpc_caller(grpc_gateway: Any, fake_agent_factory: Any) -> None:
    """fasta2a writes `datetime.now().isoformat()`: the protobuf Timestamp is written from it taken as UTC."""
    fake = await fake_agent_factory("1.0")
    fake.reply_json("SendMessage", {"task": {**TASK, "status": {"state": "TASK_STATE_COMPLETED",
                                                                "timestamp": "2025-04-02T16:59:25.331844"}}})
    _, _, channel = await grpc_gateway(fake)
    reply, _ = await _unary(channel, V10_SEND, send_request(Version.V10))
    task = message_class(Version.V10, "SendMessageResponse").FromString(reply).task
    assert task.status.timestamp.ToJsonString() == "2025-04-02T16:59:25.331844Z"
