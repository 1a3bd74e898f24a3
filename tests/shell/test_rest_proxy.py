"""The HTTP+JSON surface end to end over loopback against scripted fake agents: both REST dialects,
cross-binding in both directions, REST error bodies, SSE, pass-through and route fallback."""

from __future__ import annotations

from typing import Any

from gateway.core import jsoncodec

MSG_REST03 = {"messageId": "m1", "role": "ROLE_USER", "content": [{"text": "hi"}]}
MSG_V10 = {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}
TASK_V10 = {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_CANCELED"}}
TASK_REST03 = {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_CANCELLED"}}
TASK_RPC03 = {"kind": "task", "id": "t1", "contextId": "c1", "status": {"state": "canceled"}}


async def test_v03_rest_client_to_v10_jsonrpc_agent(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_json("SendMessage", {"task": TASK_V10})
    client = await gateway_factory(fake.url)
    resp = await client.post("/v1/message:send", json={"message": MSG_REST03, "configuration": {"blocking": True}})
    assert resp.status == 200
    assert await resp.json() == {"task": TASK_REST03}
    (rec,) = fake.calls("SendMessage")
    assert rec.params == {"message": MSG_V10, "configuration": {}}
    assert rec.headers["A2A-Version"] == "1.0"


async def test_v03_rest_get_task_with_snake_case_query(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_json("GetTask", TASK_V10)
    client = await gateway_factory(fake.url)
    resp = await client.get("/v1/tasks/t1?history_length=3")
    assert await resp.json() == TASK_REST03
    assert fake.calls("GetTask")[0].params == {"id": "t1", "historyLength": 3}


async def test_v10_rest_client_to_v03_jsonrpc_agent(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("0.3")
    fake.reply_json("tasks/get", TASK_RPC03)
    client = await gateway_factory(fake.url)
    resp = await client.get("/tasks/t1", headers={"A2A-Version": "1.0"})
    assert resp.status == 200 and await resp.json() == TASK_V10
    # v1.0's absent historyLength is "no limit": a v0.3 agent is asked for every message
    assert fake.calls("tasks/get")[0].params == {"id": "t1", "historyLength": 2**31 - 1}


async def test_v10_jsonrpc_client_to_v03_rest_agent(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("0.3", "HTTP+JSON")
    fake.reply_json("POST /v1/message:send", {"task": TASK_REST03})
    client = await gateway_factory(fake.url)
    resp = await client.post("/", json={"jsonrpc": "2.0", "id": 5, "method": "SendMessage",
                                        "params": {"message": MSG_V10}}, headers={"A2A-Version": "1.0"})
    assert await resp.json() == {"jsonrpc": "2.0", "id": 5, "result": {"task": TASK_V10}}
    (rec,) = fake.calls("POST /v1/message:send")
    assert rec.body == {"message": MSG_REST03, "configuration": {"blocking": True}}


async def test_rest_errors_use_the_callers_rest_dialect(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_json("GetTask", error={"code": -32001, "message": "Task not found", "data": [
        {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "TASK_NOT_FOUND",
         "domain": "a2a-protocol.org"}]})
    client = await gateway_factory(fake.url)
    resp = await client.get("/v1/tasks/nope")
    assert resp.status == 404
    body = await resp.json()
    assert body["code"] == -32001 and body["type"] == "TaskNotFoundError"
    resp = await client.get("/tasks/nope", headers={"A2A-Version": "1.0"})
    # v1.0 client, v1.0 agent, different binding: google.rpc.Status with ErrorInfo
    assert resp.status == 404
    error = (await resp.json())["error"]
    assert error["status"] == "NOT_FOUND" and error["details"][0]["reason"] == "TASK_NOT_FOUND"


async def test_unknown_rest_route_is_a_404_in_rest_shape(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("1.0")
    client = await gateway_factory(fake.url)
    resp = await client.get("/v1/nowhere")
    assert resp.status == 404 and (await resp.json())["code"] == -32601


async def test_rest_stream_from_a_jsonrpc_agent(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_sse("SendStreamingMessage", [
        {"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}},
        {"statusUpdate": {"taskId": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"}}},
    ])
    client = await gateway_factory(fake.url)
    resp = await client.post("/v1/message:stream", json={"message": MSG_REST03})
    text = (await resp.read()).decode()
    events = [jsoncodec.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]
    assert events == [
        {"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}},
        {"statusUpdate": {"taskId": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"},
                          "final": True}},
    ]


def _dual_card(fake: Any) -> dict[str, Any]:
    return {"protocolVersion": "0.3.0", "name": "dual", "description": "d", "version": "1",
            "url": fake.url + "/v1rest", "preferredTransport": "HTTP+JSON",
            "additionalInterfaces": [{"url": fake.url + "/", "transport": "JSONRPC"}],
            "capabilities": {}, "defaultInputModes": [], "defaultOutputModes": [], "skills": []}


async def test_rest_route_missing_upstream_falls_back_to_jsonrpc(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("0.3")
    fake.card_override = _dual_card(fake)
    fake.reply_json("GET /v1rest/v1/tasks/t1/pushNotificationConfigs", raw=b'{"detail":"Method Not Allowed"}',
                    status=405)
    fake.reply_json("tasks/pushNotificationConfig/list", [
        {"taskId": "t1", "pushNotificationConfig": {"id": "p", "url": "https://h.example/"}}])
    client = await gateway_factory(fake.url)
    resp = await client.get("/v1/tasks/t1/pushNotificationConfigs")
    assert resp.status == 200
    assert await resp.json() == {"configs": [{"name": "tasks/t1/pushNotificationConfigs/p",
                                              "pushNotificationConfig": {"id": "p", "url": "https://h.example/"}}]}


async def test_same_version_rest_passes_through(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("1.0", "HTTP+JSON")
    raw = b'{"id":"t1","status":{"state":"TASK_STATE_WORKING"}}'
    fake.reply_json("GET /tasks/t1", raw=raw)
    client = await gateway_factory(fake.url)
    resp = await client.get("/tasks/t1?historyLength=2", headers={"A2A-Version": "1.0"})
    assert await resp.read() == raw
    assert fake.calls("GET /tasks/t1")[0].query == {"historyLength": "2"}


async def test_a_bare_task_not_found_reaches_a_v10_rest_caller_with_error_info(fake_agent_factory,
                                                                                gateway_factory) -> None:
    """fasta2a and langgraph-api (v1.0 cards, JSON-RPC) answer an unknown task with a bare -32001: a v1.0
    HTTP+JSON caller gets 404 and the ErrorInfo (reason TASK_NOT_FOUND, domain a2a-protocol.org) that v1.0
    requires and a2a-sdk 1.x reads the error from, unary and on a stream."""
    fake = await fake_agent_factory("1.0")
    fake.reply_json("GetTask", error={"code": -32001, "message": "Task not found"})
    fake.reply_json("SendStreamingMessage", error={"code": -32001, "message": "Task not found"})
    client = await gateway_factory(fake.url)
    resp = await client.get("/tasks/nope", headers={"A2A-Version": "1.0"})
    assert resp.status == 404
    assert await resp.json() == {"error": {"code": 404, "status": "NOT_FOUND", "message": "Task not found",
                                           "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo",
                                                        "reason": "TASK_NOT_FOUND", "domain": "a2a-protocol.org"}]}}
    resp = await client.post("/message:stream", json={"message": {**MSG_V10, "taskId": "nope"}},
                             headers={"A2A-Version": "1.0"})
    text = (await resp.read()).decode()
    assert resp.status == 404, text
    error = jsoncodec.loads(text)["error"]
    assert error["status"] == "NOT_FOUND" and error["details"][0]["reason"] == "TASK_NOT_FOUND"
