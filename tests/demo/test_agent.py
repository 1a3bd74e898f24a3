"""Tests for gateway/demo/ (agent, proto, tasks): every JSON-RPC method of the bundled v1.0 demo agent, its
streams, the A2A-Version requirement and strict params. Every result, event and card is checked by strict
ProtoJSON parsing into a2a-sdk's v1.0 types, and must be exactly what protobuf itself would print."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest
from a2a.types import a2a_pb2 as pb10
from aiohttp import ClientResponse
from aiohttp.test_utils import TestClient
from google.protobuf import any_pb2, json_format
from google.protobuf.message import Message as ProtoMessage
from google.rpc import error_details_pb2

from gateway.core import jsoncodec
from gateway.core.sse import SseEvent, SseParser
from gateway.demo import AGENT_NAME, demo_agent_app

PUBLIC = "http://demo.example:8001"
V10 = {"A2A-Version": "1.0"}
_ids = itertools.count(1)


@pytest.fixture
async def client(aiohttp_client: Any) -> TestClient[Any, Any]:
    started: TestClient[Any, Any] = await aiohttp_client(demo_agent_app(PUBLIC, step_delay=0))
    return started


@pytest.fixture
async def slow(aiohttp_client: Any) -> TestClient[Any, Any]:
    started: TestClient[Any, Any] = await aiohttp_client(demo_agent_app(PUBLIC, step_delay=0.05))
    return started


# --- helpers -------------------------------------------------------------------------------------------


def v10(payload: Any, message: type[ProtoMessage]) -> Any:
    """Strictly parse as the v1.0 type and require protobuf's own printing to be identical."""
    parsed = json_format.ParseDict(payload, message())
    assert json_format.MessageToDict(parsed) == payload
    return payload


def msg(*texts: str, **extra: Any) -> dict[str, Any]:
    parts = [{"text": t} for t in texts]
    return {"messageId": f"m{next(_ids)}", "role": "ROLE_USER", "parts": parts, **extra}


async def post(client: TestClient[Any, Any], method: str, params: Any = None, *,
               headers: dict[str, str] | None = V10, rpc_id: Any = 1, body: bytes | None = None) -> Any:
    payload = {"jsonrpc": "2.0", "id": rpc_id, "method": method, "params": {} if params is None else params}
    resp = await client.post("/", data=body if body is not None else jsoncodec.dumpb(payload),
                             headers=headers or {})
    assert resp.status == 200
    assert resp.content_type == "application/json"
    return jsoncodec.loads(await resp.read())


async def call(client: TestClient[Any, Any], method: str, params: Any = None, **kwargs: Any) -> Any:
    envelope = await post(client, method, params, **kwargs)
    assert "error" not in envelope, envelope
    assert envelope["jsonrpc"] == "2.0" and envelope["id"] == kwargs.get("rpc_id", 1)
    return envelope["result"]


def check_error(envelope: Any, code: int, reason: str, rpc_id: Any = 1) -> dict[str, Any]:
    assert envelope["jsonrpc"] == "2.0" and envelope["id"] == rpc_id and "result" not in envelope
    error: dict[str, Any] = envelope["error"]
    assert error["code"] == code and error["message"]
    [detail] = error["data"]
    info = error_details_pb2.ErrorInfo()
    assert json_format.ParseDict(detail, any_pb2.Any()).Unpack(info)
    assert (info.reason, info.domain) == (reason, "a2a-protocol.org")
    return error


async def fail(client: TestClient[Any, Any], method: str, params: Any, code: int, reason: str,
               **kwargs: Any) -> dict[str, Any]:
    return check_error(await post(client, method, params, **kwargs), code, reason, kwargs.get("rpc_id", 1))


def sse_results(raw: bytes, rpc_id: Any = 1) -> list[dict[str, Any]]:
    parser = SseParser()
    events = parser.feed(raw)
    assert raw.endswith(b"\n\n") and all(isinstance(e, SseEvent) and e.event is None for e in events)
    results = []
    for event in events:
        assert isinstance(event, SseEvent)
        envelope = jsoncodec.loads(event.data)
        assert (envelope["jsonrpc"], envelope["id"]) == ("2.0", rpc_id) and set(envelope) == {"jsonrpc", "id",
                                                                                              "result"}
        results.append(v10(envelope["result"], pb10.StreamResponse))
    return results


async def stream(client: TestClient[Any, Any], method: str, params: Any, rpc_id: Any = 1) -> list[Any]:
    body = {"jsonrpc": "2.0", "id": rpc_id, "method": method, "params": params}
    resp = await client.post("/", data=jsoncodec.dumpb(body), headers=V10)
    assert (resp.status, resp.content_type) == (200, "text/event-stream")
    return sse_results(await resp.read(), rpc_id)


async def open_stream(client: TestClient[Any, Any], text: str) -> tuple[ClientResponse, bytes, str]:
    """SendStreamingMessage of `text`, read to the end of its first event: (response, bytes read, task id)."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": {"message": msg(text)}}
    resp = await client.post("/", data=jsoncodec.dumpb(body), headers=V10)
    raw = await resp.content.readuntil(b"\n\n")
    return resp, raw, sse_results(raw)[0]["task"]["id"]


def states(events: list[dict[str, Any]]) -> list[str]:
    out = []
    for event in events:
        if "task" in event:
            out.append("task:" + event["task"]["status"]["state"])
        elif "statusUpdate" in event:
            out.append(event["statusUpdate"]["status"]["state"])
        else:
            out.append("artifact")
    return out


async def send(client: TestClient[Any, Any], message: dict[str, Any], **params: Any) -> dict[str, Any]:
    result = v10(await call(client, "SendMessage", {"message": message, **params}), pb10.SendMessageResponse)
    task: dict[str, Any] = result["task"]
    return task


# --- card ----------------------------------------------------------------------------------------------


async def test_card_is_a_v10_card_pointing_at_the_public_url(client: TestClient[Any, Any]) -> None:
    resp = await client.get("/.well-known/agent-card.json")  # no A2A-Version needed
    assert (resp.status, resp.content_type) == (200, "application/json")
    card = v10(await resp.json(), pb10.AgentCard)
    assert card["name"] == AGENT_NAME
    assert card["supportedInterfaces"] == [
        {"url": PUBLIC + "/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]
    assert card["capabilities"] == {"streaming": True, "pushNotifications": False}
    assert card["defaultInputModes"] == card["defaultOutputModes"] == ["text/plain", "application/json"]
    assert [s["id"] for s in card["skills"]] == ["echo"]


# --- SendMessage -----------------------------------------------------------------------------------------


async def test_send_message_echoes(client: TestClient[Any, Any]) -> None:
    parts = [{"text": "hello world"}, {"data": {"n": 1, "list": [1, "x"]}},
             {"url": "https://example.com/a.png", "mediaType": "image/png", "filename": "a.png"},
             {"raw": "aGk=", "mediaType": "text/plain"}, {"data": None}, {"data": [1, 2]}]
    message = msg(metadata={"trace": "x"}) | {"parts": parts}
    task = await send(client, message, metadata={"k": "v"})
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    reply = task["status"]["message"]
    assert (reply["role"], reply["parts"]) == ("ROLE_AGENT", [{"text": "echo: hello world"}])
    assert (reply["taskId"], reply["contextId"]) == (task["id"], task["contextId"])
    assert task["artifacts"] == [{"artifactId": "echo", "name": "echo", "parts": parts}]
    assert task["history"] == [message | {"taskId": task["id"], "contextId": task["contextId"]}]
    assert task["status"]["timestamp"].endswith("Z")


async def test_send_message_keeps_the_context_and_mints_new_ids(client: TestClient[Any, Any]) -> None:
    first = await send(client, msg("a", contextId="my-context"))
    second = await send(client, msg("b", contextId="my-context"))
    third = await send(client, msg("c"))
    assert first["contextId"] == second["contextId"] == "my-context" != third["contextId"]
    assert len({first["id"], second["id"], third["id"]}) == 3


async def test_send_message_history_length(client: TestClient[Any, Any]) -> None:
    assert "history" not in await send(client, msg("x"), configuration={"historyLength": 0})
    assert len((await send(client, msg("x"), configuration={"historyLength": 5}))["history"]) == 1
    await fail(client, "SendMessage", {"message": msg("x"), "configuration": {"historyLength": -1}},
               -32602, "INVALID_PARAMS")


async def test_send_message_accepts_every_configuration_member(client: TestClient[Any, Any]) -> None:
    config = {"acceptedOutputModes": ["text/plain"], "returnImmediately": True, "historyLength": 3,
              "taskPushNotificationConfig": {"url": "https://hook.example/cb", "token": "t",
                                             "authentication": {"scheme": "Bearer", "credentials": "c"}}}
    task = await send(client, msg("x"), configuration=config, tenant="acme")
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"


async def test_ask_then_follow_up(client: TestClient[Any, Any]) -> None:
    asked = await send(client, msg("ask me something"))
    assert asked["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    assert asked["id"] in asked["status"]["message"]["parts"][0]["text"]
    assert "artifacts" not in asked
    follow_up = msg("here you go", taskId=asked["id"])
    done = await send(client, follow_up)
    assert (done["id"], done["contextId"]) == (asked["id"], asked["contextId"])
    assert done["status"]["state"] == "TASK_STATE_COMPLETED"
    assert done["status"]["message"]["parts"] == [{"text": "echo: here you go"}]
    assert [m["role"] for m in done["history"]] == ["ROLE_USER", "ROLE_AGENT", "ROLE_USER"]
    assert done["history"][1] == asked["status"]["message"]
    assert done["history"][2] == follow_up | {"contextId": asked["contextId"]}
    assert done["artifacts"][0]["parts"] == follow_up["parts"]


async def test_send_message_errors(client: TestClient[Any, Any]) -> None:
    error = await fail(client, "SendMessage", {"message": msg("x", taskId="nope")}, -32001, "TASK_NOT_FOUND")
    assert error["message"] == "Task not found"
    done = await send(client, msg("x"))
    await fail(client, "SendMessage", {"message": msg("x", taskId=done["id"])},
               -32004, "UNSUPPORTED_OPERATION")
    asked = await send(client, msg("ask"))
    await fail(client, "SendMessage", {"message": msg("x", taskId=asked["id"], contextId="other")},
               -32602, "INVALID_PARAMS")


# --- SendStreamingMessage ----------------------------------------------------------------------------------


async def test_streaming_echo_sequence(client: TestClient[Any, Any]) -> None:
    text = "hello  big\nworld "
    message = msg(text) | {"parts": [{"text": text}, {"data": {"k": 1}}]}
    events = await stream(client, "SendStreamingMessage", {"message": message}, rpc_id="s-1")
    assert states(events) == ["task:TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", *["artifact"] * 4,
                              "TASK_STATE_COMPLETED"]
    task = events[0]["task"]
    assert task["history"] == [message | {"taskId": task["id"], "contextId": task["contextId"]}]
    chunks = [e["artifactUpdate"] for e in events[2:6]]
    assert all((c["taskId"], c["contextId"]) == (task["id"], task["contextId"]) for c in chunks)
    assert [c.get("append", False) for c in chunks] == [False, True, True, True]
    assert [c.get("lastChunk", False) for c in chunks] == [False, False, False, True]
    assert {c["artifact"]["artifactId"] for c in chunks} == {"echo"}
    pieces = [p for c in chunks for p in c["artifact"]["parts"]]
    assert pieces == [{"text": "hello  "}, {"text": "big\n"}, {"text": "world "}, {"data": {"k": 1}}]
    final = events[-1]["statusUpdate"]["status"]
    assert final["message"]["parts"] == [{"text": f"echo: {text}"}]
    stored = v10(await call(client, "GetTask", {"id": task["id"]}), pb10.Task)
    assert stored["status"] == final
    assert stored["artifacts"] == [{"artifactId": "echo", "name": "echo", "parts": pieces}]
    assert stored["history"] == task["history"]


async def test_streaming_caps_the_number_of_chunks(client: TestClient[Any, Any]) -> None:
    text = " ".join(f"w{i}" for i in range(1000))
    events = await stream(client, "SendStreamingMessage", {"message": msg(text)})
    chunks = [e["artifactUpdate"]["artifact"]["parts"][0]["text"] for e in events if "artifactUpdate" in e]
    assert len(chunks) <= 64 and "".join(chunks) == text


async def test_streaming_ask_then_streamed_follow_up(client: TestClient[Any, Any]) -> None:
    events = await stream(client, "SendStreamingMessage", {"message": msg("ask away")})
    assert states(events) == ["task:TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED"]
    task_id = events[0]["task"]["id"]
    events = await stream(client, "SendStreamingMessage", {"message": msg("done", taskId=task_id)})
    assert states(events) == ["task:TASK_STATE_INPUT_REQUIRED", "TASK_STATE_WORKING", "artifact",
                              "TASK_STATE_COMPLETED"]
    assert [m["role"] for m in events[0]["task"]["history"]] == ["ROLE_USER", "ROLE_AGENT", "ROLE_USER"]


async def test_streaming_errors_come_before_the_stream(client: TestClient[Any, Any]) -> None:
    await fail(client, "SendStreamingMessage", {"message": msg("x", taskId="nope")}, -32001, "TASK_NOT_FOUND")
    await fail(client, "SendStreamingMessage", {"message": msg("x")}, -32009, "VERSION_NOT_SUPPORTED",
               headers=None)


async def test_client_leaving_a_stream_still_finishes_the_task(slow: TestClient[Any, Any]) -> None:
    resp, _, task_id = await open_stream(slow, "one two three four five six")
    resp.close()
    for _ in range(100):
        task = await call(slow, "GetTask", {"id": task_id})
        if task["status"]["state"] == "TASK_STATE_COMPLETED":
            break
        await asyncio.sleep(0.01)
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    assert "".join(p["text"] for p in task["artifacts"][0]["parts"]) == "one two three four five six"
    await send(slow, msg("still serving"))


async def test_cancel_during_a_stream_ends_it(slow: TestClient[Any, Any]) -> None:
    resp, raw, task_id = await open_stream(slow, "a b c d e f g h i j")
    canceled = v10(await call(slow, "CancelTask", {"id": task_id}), pb10.Task)
    assert canceled["status"]["state"] == "TASK_STATE_CANCELED"
    events = sse_results(raw + await resp.read())
    assert states(events)[-1] == "TASK_STATE_CANCELED"
    assert "TASK_STATE_COMPLETED" not in states(events)
    assert events[-1]["statusUpdate"]["status"] == canceled["status"]
    assert (await call(slow, "GetTask", {"id": task_id}))["status"]["state"] == "TASK_STATE_CANCELED"


# --- GetTask, CancelTask, SubscribeToTask ----------------------------------------------------------------


async def test_get_task_history_length(client: TestClient[Any, Any]) -> None:
    asked = await send(client, msg("ask"))
    await send(client, msg("more", taskId=asked["id"]))
    full = v10(await call(client, "GetTask", {"id": asked["id"]}), pb10.Task)
    assert len(full["history"]) == 3
    none = v10(await call(client, "GetTask", {"id": asked["id"], "historyLength": 0}), pb10.Task)
    assert "history" not in none and none["status"] == full["status"]
    last = await call(client, "GetTask", {"id": asked["id"], "historyLength": 1})
    assert last["history"] == full["history"][-1:]
    await fail(client, "GetTask", {"id": asked["id"], "historyLength": -1}, -32602, "INVALID_PARAMS")
    error = await fail(client, "GetTask", {"id": "missing"}, -32001, "TASK_NOT_FOUND", rpc_id="x")
    assert error["data"][0]["metadata"] == {"taskId": "missing"}


async def test_cancel_task(client: TestClient[Any, Any]) -> None:
    done = await send(client, msg("x"))
    await fail(client, "CancelTask", {"id": done["id"]}, -32002, "TASK_NOT_CANCELABLE")
    asked = await send(client, msg("ask"))
    params = {"id": asked["id"], "metadata": {"why": "test"}}
    canceled = v10(await call(client, "CancelTask", params), pb10.Task)
    assert canceled["status"]["state"] == "TASK_STATE_CANCELED" and "message" not in canceled["status"]
    assert canceled["history"][-1] == asked["status"]["message"]
    await fail(client, "CancelTask", {"id": asked["id"]}, -32002, "TASK_NOT_CANCELABLE")
    await fail(client, "CancelTask", {"id": "missing"}, -32001, "TASK_NOT_FOUND")


async def test_subscribe_to_task(client: TestClient[Any, Any]) -> None:
    done = await send(client, msg("x"))
    await fail(client, "SubscribeToTask", {"id": done["id"]}, -32004, "UNSUPPORTED_OPERATION")
    await fail(client, "SubscribeToTask", {"id": "missing"}, -32001, "TASK_NOT_FOUND")
    asked = await send(client, msg("ask"))
    events = await stream(client, "SubscribeToTask", {"id": asked["id"]})
    assert events == [{"task": asked}]


async def test_subscribe_follows_a_running_stream(slow: TestClient[Any, Any]) -> None:
    resp, raw, task_id = await open_stream(slow, "a b c d")
    followed = await stream(slow, "SubscribeToTask", {"id": task_id}, rpc_id=2)
    original = sse_results(raw + await resp.read())
    assert "task" in followed[0] and followed[0]["task"]["id"] == task_id
    assert followed[1:] == original[-len(followed) + 1:]
    assert states(followed)[-1] == "TASK_STATE_COMPLETED"


# --- ListTasks ---------------------------------------------------------------------------------------------


async def test_list_tasks(client: TestClient[Any, Any]) -> None:
    empty = v10(await call(client, "ListTasks"), pb10.ListTasksResponse)
    assert empty == {"pageSize": 50}
    a = await send(client, msg("a", contextId="ctx-a"))
    b = await send(client, msg("ask b", contextId="ctx-b"))
    c = await send(client, msg("c", contextId="ctx-a"))
    listed = v10(await call(client, "ListTasks"), pb10.ListTasksResponse)
    assert [t["id"] for t in listed["tasks"]] == [c["id"], b["id"], a["id"]]
    assert listed["totalSize"] == 3 and "nextPageToken" not in listed
    assert all("artifacts" not in t for t in listed["tasks"])
    page = v10(await call(client, "ListTasks", {"pageSize": 2}), pb10.ListTasksResponse)
    assert [t["id"] for t in page["tasks"]] == [c["id"], b["id"]] and page["nextPageToken"]
    rest = await call(client, "ListTasks", {"pageSize": 2, "pageToken": page["nextPageToken"]})
    assert [t["id"] for t in rest["tasks"]] == [a["id"]] and "nextPageToken" not in rest
    by_context = await call(client, "ListTasks", {"contextId": "ctx-a", "includeArtifacts": True,
                                                  "historyLength": 0})
    assert [t["id"] for t in by_context["tasks"]] == [c["id"], a["id"]]
    assert all(t["artifacts"] and "history" not in t for t in by_context["tasks"])
    by_state = await call(client, "ListTasks", {"status": "TASK_STATE_INPUT_REQUIRED"})
    assert [t["id"] for t in by_state["tasks"]] == [b["id"]]
    later = await call(client, "ListTasks", {"statusTimestampAfter": "2999-01-01T00:00:00Z"})
    assert "tasks" not in later
    earlier = await call(client, "ListTasks", {"statusTimestampAfter": "2000-01-01T00:00:00+02:00"})
    assert earlier["totalSize"] == 3
    for bad in ({"pageSize": 0}, {"pageSize": 101}, {"pageToken": "x"}, {"historyLength": -1}):
        await fail(client, "ListTasks", bad, -32602, "INVALID_PARAMS")


async def test_the_store_is_bounded(aiohttp_client: Any) -> None:
    client = await aiohttp_client(demo_agent_app(PUBLIC, step_delay=0, max_tasks=3))
    tasks = [await send(client, msg(str(i))) for i in range(4)]
    await fail(client, "GetTask", {"id": tasks[0]["id"]}, -32001, "TASK_NOT_FOUND")
    assert (await call(client, "ListTasks"))["totalSize"] == 3


# --- unsupported operations ----------------------------------------------------------------------------


@pytest.mark.parametrize(("method", "params"), [
    ("CreateTaskPushNotificationConfig", {"taskId": "t", "url": "https://hook.example/cb"}),
    ("GetTaskPushNotificationConfig", {"taskId": "t", "id": "c"}),
    ("ListTaskPushNotificationConfigs", {"taskId": "t", "pageSize": 5}),
    ("DeleteTaskPushNotificationConfig", {"taskId": "t", "id": "c"}),
])
async def test_push_config_is_not_supported(client: TestClient[Any, Any], method: str, params: Any) -> None:
    await fail(client, method, params, -32003, "PUSH_NOTIFICATION_NOT_SUPPORTED")


async def test_no_extended_card(client: TestClient[Any, Any]) -> None:
    await fail(client, "GetExtendedAgentCard", {}, -32004, "UNSUPPORTED_OPERATION")


# --- A2A-Version ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", [None, "", "0.3", "0.3.0", "2.0", "10.0", "one"])
async def test_version_header_is_required(client: TestClient[Any, Any], version: str | None) -> None:
    headers = None if version is None else {"A2A-Version": version}
    error = await fail(client, "SendMessage", {"message": msg("x")}, -32009, "VERSION_NOT_SUPPORTED",
                       headers=headers)
    assert error["data"][0]["metadata"]["requestedVersion"] == (version or "0.3")
    assert (await call(client, "ListTasks")).get("totalSize") is None  # nothing was done


@pytest.mark.parametrize("version", ["1.0", "1.0.1", "1", " 1.0 "])
async def test_version_1x_is_accepted(client: TestClient[Any, Any], version: str) -> None:
    await send_with(client, {"A2A-Version": version})


async def test_version_query_parameter(client: TestClient[Any, Any]) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "ListTasks", "params": {}}
    resp = await client.post("/?A2A-Version=1.0", data=jsoncodec.dumpb(body))
    assert "result" in await resp.json()


async def send_with(client: TestClient[Any, Any], headers: dict[str, str]) -> None:
    result = await call(client, "SendMessage", {"message": msg("x")}, headers=headers)
    assert result["task"]["status"]["state"] == "TASK_STATE_COMPLETED"


# --- strict params and envelopes -------------------------------------------------------------------------


def _with_part(part: Any) -> dict[str, Any]:
    return {"message": msg() | {"parts": [part]}}


@pytest.mark.parametrize(("method", "params", "detail"), [
    ("SendMessage", {"message": msg("x", kind="message")}, 'no field named "kind"'),
    ("SendMessage", _with_part({"kind": "text", "text": "x"}), 'no field named "kind"'),
    ("SendMessage", {"message": msg("x"), "configuration": {"blocking": True}}, 'no field named "blocking"'),
    ("SendMessage", {"message": msg("x"), "extra": 1}, 'no field named "extra"'),
    ("SendMessage", {"message": {"role": "ROLE_USER", "parts": [{"text": "x"}]}}, "messageId: required"),
    ("SendMessage", {"message": msg() | {"parts": []}}, "parts: required"),
    ("SendMessage", {"message": msg("x") | {"role": "user"}}, "invalid value 'user' for enum Role"),
    ("SendMessage", {"message": msg("x") | {"role": "ROLE_UNSPECIFIED"}}, "role: required"),
    ("SendMessage", {"message": msg("x") | {"role": 7}}, "enum Role"),
    ("SendMessage", {}, "message: required"),
    ("SendMessage", {"message": "hi"}, "expected a JSON object"),
    ("SendMessage", _with_part({"text": "x", "data": {}}), "more than one member"),
    ("SendMessage", _with_part({"metadata": {}}), "needs one of"),
    ("SendMessage", _with_part({"raw": "!!!"}), "invalid base64"),
    ("SendMessage", _with_part({"text": 5}), "expected string"),
    ("SendMessage", _with_part({"text": "x", "metadata": [1]}), "expected Struct"),
    ("SendMessage", {"message": msg("x") | {"message_id": "again"}}, "given twice"),
    ("SendMessage", {"message": msg("x") | {"extensions": "a"}}, "expected a JSON array"),
    ("SendMessage", {"message": msg("x") | {"extensions": [None]}}, "expected string"),
    ("SendMessage", {"message": msg("x"), "configuration": {"historyLength": 1.5}}, "expected int32"),
    ("SendMessage", {"message": msg("x"), "configuration": {"historyLength": 2**31}}, "expected int32"),
    ("SendMessage", {"message": msg("x"), "configuration": {"returnImmediately": "yes"}}, "expected bool"),
    ("SendMessage", {"message": msg("x"), "configuration": {"taskPushNotificationConfig": {}}},
     "url: required"),
    ("GetTask", {"id": "t", "metadata": {}}, 'no field named "metadata"'),
    ("GetTask", {"id": 5}, "expected string"),
    ("GetTask", {}, "id: required"),
    ("GetTask", {"id": "t", "historyLength": "abc"}, "expected int32"),
    ("GetTask", [], "expected a JSON object"),
    ("GetTask", None, "expected a JSON object"),
    ("ListTasks", {"status": "working"}, "enum TaskState"),
    ("ListTasks", {"statusTimestampAfter": "2024-01-01T00:00:00"}, "invalid RFC 3339"),
    ("SubscribeToTask", {"id": "t", "metadata": {}}, 'no field named "metadata"'),
    ("GetExtendedAgentCard", {"x": 1}, 'no field named "x"'),
])
async def test_params_are_parsed_strictly(client: TestClient[Any, Any], method: str, params: Any,
                                          detail: str) -> None:
    payload = {"jsonrpc": "2.0", "id": 3, "method": method, "params": params}
    envelope = await post(client, method, body=jsoncodec.dumpb(payload), rpc_id=3)
    error = check_error(envelope, -32602, "INVALID_PARAMS", rpc_id=3)
    assert detail in error["message"]
    assert detail in error["data"][0]["metadata"]["detail"]


async def test_params_accept_what_protojson_accepts(client: TestClient[Any, Any]) -> None:
    message = {"message_id": "p1", "role": 1, "parts": [{"raw": "aGk_", "media_type": "x/y"}, {"text": None,
               "url": "https://e.x/"}], "context_id": "ctx-p", "metadata": None}
    task = await send(client, message, configuration={"history_length": "2", "return_immediately": None})
    user = task["history"][0]
    assert user == {"messageId": "p1", "role": "ROLE_USER", "contextId": "ctx-p", "taskId": task["id"],
                    "parts": [{"raw": "aGk/", "mediaType": "x/y"}, {"url": "https://e.x/"}]}
    assert task["artifacts"][0]["parts"] == user["parts"]
    listed = await call(client, "ListTasks", {"status": 3, "page_size": 1.0})
    assert listed["tasks"][0]["id"] == task["id"]


async def test_check_order_follows_a2a_python(client: TestClient[Any, Any]) -> None:
    # method, then params, then the version header
    check_error(await post(client, "message/send", {"message": {}}, headers=None), -32601, "METHOD_NOT_FOUND")
    check_error(await post(client, "GetTask", {}, headers=None), -32602, "INVALID_PARAMS")


@pytest.mark.parametrize(("body", "code", "reason", "rpc_id"), [
    (b"{not json", -32700, "PARSE_ERROR", None),
    (b"", -32700, "PARSE_ERROR", None),
    (b'[{"jsonrpc": "2.0", "id": 1, "method": "GetTask"}]', -32600, "INVALID_REQUEST", None),
    (b'"GetTask"', -32600, "INVALID_REQUEST", None),
    (b'{"jsonrpc": "1.0", "id": 4, "method": "GetTask"}', -32600, "INVALID_REQUEST", 4),
    (b'{"id": 4, "method": "GetTask"}', -32600, "INVALID_REQUEST", 4),
    (b'{"jsonrpc": "2.0", "id": "s", "params": {}}', -32600, "INVALID_REQUEST", "s"),
    (b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "GetTask"}', -32600, "INVALID_REQUEST", None),
    (b'{"jsonrpc": "2.0", "id": true, "method": "GetTask"}', -32600, "INVALID_REQUEST", None),
    (b'{"jsonrpc": "2.0", "id": 5, "method": "message/send", "params": {}}', -32601, "METHOD_NOT_FOUND", 5),
    (b'{"jsonrpc": "2.0", "id": null, "method": "Nope"}', -32601, "METHOD_NOT_FOUND", None),
])
async def test_bad_envelopes(client: TestClient[Any, Any], body: bytes, code: int, reason: str,
                             rpc_id: Any) -> None:
    check_error(await post(client, "", body=body), code, reason, rpc_id)


async def test_request_ids_are_echoed(client: TestClient[Any, Any]) -> None:
    for rpc_id in ("abc", 0, 12.5, None):
        assert (await post(client, "ListTasks", rpc_id=rpc_id))["id"] == rpc_id
