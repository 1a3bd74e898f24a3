"""The JSON-RPC endpoint end to end over loopback, against scripted fake agents: translation both
ways, pass-through, headers, the gateway's own faults in the caller's version, streams."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from gateway.core import jsoncodec
from gateway.core.sse import encode_data
from gateway.shell.carrier.relay import FEED_BYTES

V03_SEND = {"jsonrpc": "2.0", "id": 7, "method": "message/send", "params": {"message": {
    "kind": "message", "messageId": "m1", "role": "user", "parts": [{"kind": "text", "text": "hi"}]}}}
V10_SEND = {"jsonrpc": "2.0", "id": "a", "method": "SendMessage", "params": {"message": {
    "messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}}
V10_TASK = {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"},
            "artifacts": [{"artifactId": "a1", "parts": [{"data": [1, 2]}]}]}
V03_TASK = {"kind": "task", "id": "t1", "contextId": "c1", "status": {"state": "completed"},
            "artifacts": [{"artifactId": "a1", "parts": [
                {"kind": "data", "data": {"value": [1, 2]}, "metadata": {"data_part_compat": True}}]}]}


async def _post(client: Any, payload: Any, **headers: str) -> tuple[int, Any, Any]:
    resp = await client.post("/", data=jsoncodec.dumpb(payload) if not isinstance(payload, bytes) else payload,
                             headers={"Content-Type": "application/json", **headers})
    return resp.status, await resp.json(), resp.headers


async def test_v03_client_to_v10_agent_is_translated_both_ways(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_json("SendMessage", {"task": V10_TASK})
    client = await gateway_factory(fake.url)
    status, body, _ = await _post(client, V03_SEND, Authorization="Bearer secret")
    assert status == 200
    assert body == {"jsonrpc": "2.0", "id": 7, "result": V03_TASK}
    (rec,) = fake.calls("SendMessage")
    assert rec.body == {"jsonrpc": "2.0", "id": 7, "method": "SendMessage",
                        "params": {"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}}
    assert rec.headers["A2A-Version"] == "1.0"
    assert rec.headers["Authorization"] == "Bearer secret"


async def test_v10_client_to_v03_agent(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("0.3")
    fake.reply_json("message/send", V03_TASK)
    client = await gateway_factory(fake.url)
    _, body, _ = await _post(client, V10_SEND, **{"A2A-Version": "1.0"})
    assert body == {"jsonrpc": "2.0", "id": "a", "result": {"task": V10_TASK}}
    (rec,) = fake.calls("message/send")
    assert rec.params["message"]["kind"] == "message"
    assert rec.params["configuration"] == {"blocking": True}
    assert "A2A-Version" not in rec.headers


async def test_same_version_passes_bytes_untouched(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("1.0")
    raw = b'{"jsonrpc":"2.0","id":"a","result":{"task":{"id":"t1","status":{"state":"TASK_STATE_WORKING"}}}}'
    fake.reply_json("SendMessage", raw=raw)
    client = await gateway_factory(fake.url)
    sent = (b'{"jsonrpc": "2.0", "id": "a", "method": "SendMessage", '
            b'"params": {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "x"}]}}}')
    resp = await client.post("/", data=sent, headers={"A2A-Version": "1.0", "Content-Type": "application/json"})
    assert await resp.read() == raw
    assert fake.calls("SendMessage")[0].raw == sent


async def test_extension_headers_are_mirrored(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_json("SendMessage", {"task": V10_TASK}, headers={"A2A-Extensions": "https://ext/a"})
    client = await gateway_factory(fake.url)
    _, _, headers = await _post(client, V03_SEND, **{"X-A2A-Extensions": "https://ext/a, https://ext/b",
                                                     "A2A-Extensions": "https://ext/b,https://ext/c"})
    assert fake.calls("SendMessage")[0].headers["A2A-Extensions"] == "https://ext/a,https://ext/b,https://ext/c"
    assert headers["X-A2A-Extensions"] == "https://ext/a"


@pytest.mark.parametrize(("payload", "headers", "code", "rpc_id"), [
    ({**V03_SEND, "method": "tasks/explode"}, {}, -32601, 7),
    ({**V10_SEND, "method": "Explode"}, {"A2A-Version": "1.0"}, -32601, "a"),
    (V03_SEND, {"A2A-Version": "2.0"}, -32009, 7),
    (b"{not json", {}, -32700, None),
    ({"jsonrpc": "2.0", "id": 3}, {}, -32600, 3),
    ({**V03_SEND, "params": {"message": {"kind": "message", "messageId": "m", "role": "robot", "parts": []}}},
     {}, -32602, 7),
])
async def test_bad_input_gets_an_error_in_the_callers_shape(fake_agent_factory, gateway_factory, payload: Any,
                                                           headers: dict[str, str], code: int, rpc_id: Any) -> None:
    fake = await fake_agent_factory("1.0")
    client = await gateway_factory(fake.url)
    status, body, _ = await _post(client, payload, **headers)
    assert status == 200
    assert body["id"] == rpc_id and body["error"]["code"] == code
    if headers.get("A2A-Version") == "1.0" and code != -32700:
        assert body["error"]["data"][0]["@type"] == "type.googleapis.com/google.rpc.ErrorInfo"
    assert not fake.calls("SendMessage")


async def test_upstream_errors_are_translated(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_json("GetTask", error={"code": -32001, "message": "Task not found", "data": [
        {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "TASK_NOT_FOUND",
         "domain": "a2a-protocol.org", "metadata": {"taskId": "nope"}}]})
    client = await gateway_factory(fake.url)
    _, body, _ = await _post(client, {"jsonrpc": "2.0", "id": 9, "method": "tasks/get", "params": {"id": "nope"}})
    assert body == {"jsonrpc": "2.0", "id": 9,
                    "error": {"code": -32001, "message": "Task not found", "data": {"taskId": "nope"}}}


async def test_push_config_list_pages_are_concatenated_for_v03(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_json("ListTaskPushNotificationConfigs", {
        "configs": [{"id": "a", "taskId": "t", "url": "https://h.example/a"}], "nextPageToken": "p2"})
    fake.reply_json("ListTaskPushNotificationConfigs", {
        "configs": [{"id": "b", "taskId": "t", "url": "https://h.example/b"}]})
    client = await gateway_factory(fake.url)
    _, body, _ = await _post(client, {"jsonrpc": "2.0", "id": 1, "method": "tasks/pushNotificationConfig/list",
                                      "params": {"id": "t"}})
    assert [c["pushNotificationConfig"]["id"] for c in body["result"]] == ["a", "b"]
    calls = fake.calls("ListTaskPushNotificationConfigs")
    assert [c.params.get("pageToken") for c in calls] == [None, "p2"]


async def test_unauthorized_passes_through(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_json("SendMessage", raw=b'{"detail":"no"}', status=401,
                    headers={"WWW-Authenticate": 'Bearer realm="agent"'})
    client = await gateway_factory(fake.url)
    resp = await client.post("/", data=jsoncodec.dumpb(V03_SEND))
    assert resp.status == 401
    assert resp.headers["WWW-Authenticate"] == 'Bearer realm="agent"'


async def test_upstream_unreachable(gateway_factory, unused_tcp_port: int) -> None:
    client = await gateway_factory(f"http://127.0.0.1:{unused_tcp_port}", upstream__version="1.0",
                                   upstream__retry_backoff_seconds=0.001)  # refused: retried, then answered
    status, body, _ = await _post(client, V03_SEND)
    assert status == 200 and body["id"] == 7 and body["error"]["code"] == -32603
    assert "unreachable" in body["error"]["message"]


async def test_upstream_timeout(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_delay("SendMessage", 5)
    client = await gateway_factory(fake.url, upstream__timeout__total_unary=0.3)
    _, body, _ = await _post(client, V03_SEND)
    assert body["error"]["code"] == -32603 and "timed out" in body["error"]["message"]


async def test_malformed_upstream_reply(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_json("SendMessage", raw=b"<html>oops</html>")
    client = await gateway_factory(fake.url)
    _, body, _ = await _post(client, V03_SEND)
    assert body["id"] == 7 and body["error"]["code"] == -32006


async def test_request_body_over_the_limit(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("1.0")
    client = await gateway_factory(fake.url, limits__max_body_bytes=1024)
    big = {**V03_SEND, "params": {"message": {**V03_SEND["params"]["message"], "metadata": {"x": "y" * 4096}}}}
    _, body, _ = await _post(client, big)
    assert body["error"]["code"] == -32600 and "larger" in body["error"]["message"]


# ---- streams -------------------------------------------------------------------------------------

V03_STREAM = {**V03_SEND, "method": "message/stream"}


async def _events(resp: Any) -> list[Any]:
    text = (await resp.read()).decode()
    return [jsoncodec.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


async def test_stream_is_translated_event_by_event(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_sse("SendStreamingMessage", [
        {"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_SUBMITTED"}}},
        {"statusUpdate": {"taskId": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}},
        {"artifactUpdate": {"taskId": "t1", "contextId": "c1",
                            "artifact": {"artifactId": "a", "parts": [{"text": "x"}]}}},
        {"statusUpdate": {"taskId": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"}}},
    ], crlf=True, pings=True)
    client = await gateway_factory(fake.url)
    resp = await client.post("/", data=jsoncodec.dumpb(V03_STREAM))
    assert resp.headers["Content-Type"].startswith("text/event-stream")
    events = await _events(resp)
    assert [e["result"]["kind"] for e in events] == ["task", "status-update", "artifact-update", "status-update"]
    assert [e["result"].get("final") for e in events] == [None, False, None, True]
    assert {e["id"] for e in events} == {7}


async def test_a_burst_larger_than_a_feed_slice_arrives_whole_and_in_order(fake_agent_factory, gateway_factory) -> None:
    """The agent writes 600 events in one write (~100 KB): the relay translates and writes it slice by
    slice (FEED_BYTES), and the client still gets every event once, in order, the last one final."""
    fake = await fake_agent_factory("1.0")
    ids = {"taskId": "t1", "contextId": "c1"}
    items = [{"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}}]
    items += [{"artifactUpdate": {**ids, "append": i > 0, "artifact": {"artifactId": "a", "parts": [
        {"text": f"chunk {i} " + "x" * 100}]}}} for i in range(600)]
    items.append({"statusUpdate": {**ids, "status": {"state": "TASK_STATE_COMPLETED"}}})
    burst = b"".join(encode_data(jsoncodec.dumps({"jsonrpc": "2.0", "id": 7, "result": item})) for item in items)
    assert len(burst) > 4 * FEED_BYTES
    fake.reply_sse("SendStreamingMessage", [burst])
    client = await gateway_factory(fake.url)
    events = await _events(await client.post("/", data=jsoncodec.dumpb(V03_STREAM)))
    assert len(events) == 602 and events[-1]["result"]["final"] is True
    texts = [e["result"]["artifact"]["parts"][0]["text"] for e in events[1:-1]]
    assert texts == [f"chunk {i} " + "x" * 100 for i in range(600)]


async def test_stream_rejected_before_first_event_is_a_plain_error(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_json("SendStreamingMessage", error={"code": -32004, "message": "Streaming is not supported"})
    client = await gateway_factory(fake.url)
    _, body, _ = await _post(client, V03_STREAM)
    assert body["error"]["code"] == -32004 and body["id"] == 7


async def test_upstream_dying_mid_stream_gives_one_error_event(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_sse("SendStreamingMessage", [
        {"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}}], then="reset")
    client = await gateway_factory(fake.url)
    resp = await client.post("/", data=jsoncodec.dumpb(V03_STREAM))
    events = await _events(resp)
    assert events[0]["result"]["kind"] == "task"
    assert len(events) == 2 and events[1]["error"]["code"] in (-32603, -32006) and events[1]["id"] == 7


async def test_client_leaving_closes_the_upstream_within_a_second(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_sse("SendStreamingMessage", [
        {"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}}], then="hang")
    client = await gateway_factory(fake.url)
    resp = await client.post("/", data=jsoncodec.dumpb(V03_STREAM))
    await resp.content.readline()
    resp.close()
    await asyncio.wait_for(fake.on_disconnect.wait(), 1.0)


async def test_idle_stream_gets_keepalives(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_sse("SendStreamingMessage", [
        {"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}}], then="hang")
    client = await gateway_factory(fake.url, server__heartbeat_seconds=0.1)
    resp = await client.post("/", data=jsoncodec.dumpb(V03_STREAM))
    seen = b""
    async with asyncio.timeout(2):
        while b": keep-alive" not in seen:
            seen += await resp.content.readany()
    resp.close()


NAIVE, FIXED = "2025-04-02T16:59:25.331844", "2025-04-02T16:59:25.331844Z"  # fasta2a's datetime.now().isoformat()


def _naive_task(state: str, stamp: str = NAIVE) -> dict[str, Any]:
    return {"id": "t1", "contextId": "c1", "status": {"state": state, "timestamp": stamp}}


async def test_timestamps_without_offset_are_repaired_for_every_caller(fake_agent_factory, gateway_factory) -> None:
    """A v1.0 agent writing `datetime.now().isoformat()` (fasta2a): every caller gets RFC 3339 in UTC, the
    same-version one too once the first reply showed the habit; a2a-sdk 1.x refuses the naive form."""
    fake = await fake_agent_factory("1.0")
    fake.reply_json("GetTask", _naive_task("TASK_STATE_WORKING"))
    fake.reply_json("SendMessage", {"task": _naive_task("TASK_STATE_COMPLETED", "2025-04-02 16:59:25")})
    fake.reply_sse("SendStreamingMessage", [
        {"task": _naive_task("TASK_STATE_SUBMITTED")},
        {"statusUpdate": {"taskId": "t1", "contextId": "c1",
                          "status": {"state": "TASK_STATE_COMPLETED", "timestamp": NAIVE}}}])
    client = await gateway_factory(fake.url)
    get = {"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "t1"}}
    # same version and binding: the first reply shows the habit and is repaired, and so are the later ones
    for _ in range(2):
        _, body, _ = await _post(client, get, **{"A2A-Version": "1.0"})
        assert body["result"]["status"]["timestamp"] == FIXED
    _, body, _ = await _post(client, V10_SEND, **{"A2A-Version": "1.0"})
    assert body["result"]["task"]["status"]["timestamp"] == "2025-04-02T16:59:25Z"
    resp = await client.post("/", data=jsoncodec.dumpb({**V10_SEND, "method": "SendStreamingMessage"}),
                             headers={"A2A-Version": "1.0", "Content-Type": "application/json"})
    events = await _events(resp)
    assert [e["result"][m]["status"]["timestamp"] for e, m in zip(events, ("task", "statusUpdate"),
                                                                   strict=True)] == [FIXED, FIXED]
    # translated: a v0.3 JSON-RPC caller, a v1.0 HTTP+JSON caller
    _, body, _ = await _post(client, {"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"id": "t1"}})
    assert body["result"]["status"]["timestamp"] == FIXED
    resp = await client.get("/tasks/t1", headers={"A2A-Version": "1.0"})
    assert (await resp.json())["status"]["timestamp"] == FIXED
    resp = await client.post("/message:stream", json={"message": V10_SEND["params"]["message"]},
                             headers={"A2A-Version": "1.0"})
    assert [e["statusUpdate" if "statusUpdate" in e else "task"]["status"]["timestamp"]
            for e in await _events(resp)] == [FIXED, FIXED]


async def test_an_honest_agents_timestamps_keep_the_byte_pass_through(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("1.0")
    raw = (b'{"jsonrpc":"2.0", "id":1,"result":{"id":"t1","contextId":"c1","status":'
           b'{"state":"TASK_STATE_WORKING","timestamp":"2025-04-02T18:59:25.5+02:00"}}}')
    fake.reply_json("GetTask", raw=raw)
    events = [b'data: {"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t1","contextId":"c1","status":'
              b'{"state":"TASK_STATE_SUBMITTED","timestamp":"2025-04-02T16:59:25Z"}}}}\n\n',
              b'data: {"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t1","contextId":"c1","status":'
              b'{"state":"TASK_STATE_COMPLETED","timestamp":"2025-04-02T16:59:26.000001Z"}}}}\n\n']
    fake.reply_sse("SendStreamingMessage", list(events))
    client = await gateway_factory(fake.url)
    get = {"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "t1"}}
    for _ in range(2):
        resp = await client.post("/", data=jsoncodec.dumpb(get),
                                 headers={"A2A-Version": "1.0", "Content-Type": "application/json"})
        assert await resp.read() == raw
    for _ in range(2):  # learned honest from the unary reply: the stream is relayed unparsed
        resp = await client.post("/", data=jsoncodec.dumpb({**V10_SEND, "id": 1, "method": "SendStreamingMessage"}),
                                 headers={"A2A-Version": "1.0", "Content-Type": "application/json"})
        assert await resp.read() == b"".join(events)


# fasta2a's client: v0.3 method names, v1.0-shaped message (no `kind`; a file part {raw, filename, mediaType}),
# v0.3 enum spellings; it reads v1.0-shaped results ({task: …}, parts without kind) in those spellings
MIXED_SEND = {"jsonrpc": "2.0", "id": "r1", "method": "message/send", "params": {"message": {
    "role": "user", "messageId": "m1", "parts": [{"text": "hi"}, {"raw": "aGk=", "filename": "a.txt",
                                                                   "mediaType": "text/plain"}]}}}
V10_ECHO = {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"},
            "artifacts": [{"artifactId": "a", "parts": [{"raw": "aGk=", "filename": "a.txt",
                                                         "mediaType": "text/plain"}]}],
            "history": [{"role": "ROLE_AGENT", "messageId": "x", "parts": [{"text": "hi"}]}]}
MIXED_ECHO = {"id": "t1", "contextId": "c1", "status": {"state": "completed"},
              "artifacts": [{"artifactId": "a", "parts": [{"raw": "aGk=", "filename": "a.txt",
                                                           "mediaType": "text/plain"}]}],
              "history": [{"role": "agent", "messageId": "x", "parts": [{"text": "hi"}]}]}


@pytest.mark.parametrize("version", ["1.0", "0.3"])
async def test_a_mixed_dialect_caller_is_answered_in_its_shapes(fake_agent_factory, gateway_factory,
                                                                version: str) -> None:
    fake = await fake_agent_factory(version)
    if version == "1.0":
        fake.reply_json("SendMessage", {"task": V10_ECHO})
        fake.reply_sse("SendStreamingMessage", [{"task": {**V10_ECHO, "status": {"state": "TASK_STATE_WORKING"}}},
                                                {"statusUpdate": {"taskId": "t1", "contextId": "c1",
                                                                  "status": {"state": "TASK_STATE_COMPLETED"}}}])
    else:
        v03 = {"kind": "task", "id": "t1", "contextId": "c1", "status": {"state": "completed"},
               "artifacts": [{"artifactId": "a", "parts": [{"kind": "file", "file": {
                   "bytes": "aGk=", "name": "a.txt", "mimeType": "text/plain"}}]}],
               "history": [{"kind": "message", "role": "agent", "messageId": "x",
                            "parts": [{"kind": "text", "text": "hi"}]}]}
        fake.reply_json("message/send", v03)
        fake.reply_sse("message/stream", [{**v03, "status": {"state": "working"}},
                                          {"kind": "status-update", "taskId": "t1", "contextId": "c1",
                                           "status": {"state": "completed"}, "final": True}])
    client = await gateway_factory(fake.url)
    status, body, _ = await _post(client, MIXED_SEND)
    assert status == 200 and body == {"jsonrpc": "2.0", "id": "r1", "result": {"task": MIXED_ECHO}}
    resp = await client.post("/", data=jsoncodec.dumpb({**MIXED_SEND, "method": "message/stream"}),
                             headers={"Content-Type": "application/json"})
    events = [e["result"] for e in await _events(resp)]
    assert events[0]["task"]["status"] == {"state": "working"}
    assert events[-1]["statusUpdate"]["status"] == {"state": "completed"}
    sent = fake.calls("SendMessage" if version == "1.0" else "message/send")[0].body
    if version == "1.0":  # a v1.0 call: passed through to a v1.0 agent
        assert sent["method"] == "SendMessage" and sent["params"]["message"]["role"] == "ROLE_USER"
        assert sent["params"]["message"]["parts"][1] == MIXED_SEND["params"]["message"]["parts"][1]
    else:
        assert sent["method"] == "message/send"
        assert sent["params"]["message"]["parts"][1] == {"kind": "file", "file": {
            "bytes": "aGk=", "name": "a.txt", "mimeType": "text/plain"}}


async def test_a_v03_caller_keeps_its_v03_answer(fake_agent_factory, gateway_factory) -> None:
    """The shapes decide: a message with `kind` is v0.3, answered in v0.3 shapes as before."""
    fake = await fake_agent_factory("1.0")
    fake.reply_json("SendMessage", {"task": V10_TASK})
    client = await gateway_factory(fake.url)
    _, body, _ = await _post(client, V03_SEND)
    assert body["result"] == V03_TASK


# langgraph-api: a 1.0 card, v1.0 method names accepted, but only v0.3-shaped parts read and v0.3-shaped
# events written after the first (flat `kind: status-update`); its v0.3 aliases are v0.3 throughout
LANGGRAPH_V10_NAMES = [{"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}},
                       {"kind": "status-update", "taskId": "t1", "contextId": "c1", "status": {"state": "completed"},
                        "final": True}]
LANGGRAPH_V03_NAMES = [{"kind": "task", "id": "t2", "contextId": "c1", "status": {"state": "working"}},
                       {"kind": "status-update", "taskId": "t2", "contextId": "c1", "status": {"state": "completed"},
                        "final": True}]


async def test_an_agent_whose_card_says_10_but_whose_items_are_v03_is_learned(fake_agent_factory,
                                                                               gateway_factory) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_sse("SendStreamingMessage", LANGGRAPH_V10_NAMES)
    fake.reply_sse("message/stream", LANGGRAPH_V03_NAMES)
    client = await gateway_factory(fake.url)
    # the first call (a v0.3 caller, translated): its v0.3 item is read as one, noted, and learned
    resp = await client.post("/", data=jsoncodec.dumpb(V03_STREAM), headers={"Content-Type": "application/json"})
    events = [e["result"] for e in await _events(resp)]
    assert [(e["kind"], e["status"]["state"], e.get("final")) for e in events] == [
        ("task", "working", None), ("status-update", "completed", True)]
    assert len(fake.calls("SendStreamingMessage")) == 1
    # from then on the interface is spoken to in v0.3: a v0.3 caller passes through, a v1.0 one is translated
    resp = await client.post("/", data=jsoncodec.dumpb(V03_STREAM), headers={"Content-Type": "application/json"})
    assert [e["result"]["kind"] for e in await _events(resp)] == ["task", "status-update"]
    resp = await client.post("/message:stream", json={"message": {**V10_SEND["params"]["message"], "parts": [
        {"raw": "aGk=", "mediaType": "text/plain"}]}}, headers={"A2A-Version": "1.0"})
    assert [next(iter(e)) for e in await _events(resp)] == ["task", "statusUpdate"]
    _, second = fake.calls("message/stream")
    assert second.params["message"]["parts"] == [{"kind": "file", "file": {"bytes": "aGk=", "mimeType": "text/plain"}}]
    assert len(fake.calls("SendStreamingMessage")) == 1


async def test_a_pass_through_stream_teaches_it_too(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_sse("SendStreamingMessage", LANGGRAPH_V10_NAMES)
    fake.reply_sse("message/stream", LANGGRAPH_V03_NAMES)
    client = await gateway_factory(fake.url)
    v10_stream = jsoncodec.dumpb({**V10_SEND, "method": "SendStreamingMessage"})
    headers = {"A2A-Version": "1.0", "Content-Type": "application/json"}
    resp = await client.post("/", data=v10_stream, headers=headers)  # relayed, its v0.3 item written as v1.0
    assert [e["result"] for e in await _events(resp)] == [LANGGRAPH_V10_NAMES[0], {"statusUpdate": {
        "taskId": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"}}}]
    resp = await client.post("/", data=v10_stream, headers=headers)
    assert [next(iter(e["result"])) for e in await _events(resp)] == ["task", "statusUpdate"]
    assert len(fake.calls("SendStreamingMessage")) == 1 and len(fake.calls("message/stream")) == 1


@pytest.mark.parametrize("caller", ["v1.0 JSON-RPC", "v1.0 HTTP+JSON", "v0.3 JSON-RPC"])
async def test_a_stream_refused_for_its_v10_file_parts_is_sent_again_in_v03(fake_agent_factory, gateway_factory,
                                                                             caller: str) -> None:
    """langgraph-api refuses a v1.0 file part inside a 200 event stream (its one event, -32005): the gateway
    reads that first event before the caller's stream starts, learns the interface, and sends the call again
    in v0.3; the caller sees only the second stream."""
    fake = await fake_agent_factory("1.0")
    refusal = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32005, "message": "Unsupported part type"}}
    fake.reply_sse("SendStreamingMessage", [refusal])
    fake.reply_sse("message/stream", LANGGRAPH_V03_NAMES)
    client = await gateway_factory(fake.url)
    file_part = {"raw": "aGk=", "mediaType": "text/plain"}
    if caller == "v1.0 JSON-RPC":
        body = {**V10_SEND, "method": "SendStreamingMessage", "params": {"message": {
            **V10_SEND["params"]["message"], "parts": [file_part]}}}
        resp = await client.post("/", data=jsoncodec.dumpb(body), headers={"A2A-Version": "1.0",
                                                                           "Content-Type": "application/json"})
        kinds = [next(iter(e["result"])) for e in await _events(resp)]
    elif caller == "v1.0 HTTP+JSON":
        resp = await client.post("/message:stream", json={"message": {**V10_SEND["params"]["message"],
                                                                      "parts": [file_part]}},
                                 headers={"A2A-Version": "1.0"})
        kinds = [next(iter(e)) for e in await _events(resp)]
    else:
        body = {**V03_STREAM, "params": {"message": {**V03_STREAM["params"]["message"], "parts": [
            {"kind": "file", "file": {"bytes": "aGk=", "mimeType": "text/plain"}}]}}}
        resp = await client.post("/", data=jsoncodec.dumpb(body), headers={"Content-Type": "application/json"})
        kinds = [e["result"]["kind"] for e in await _events(resp)]
    assert kinds in (["task", "statusUpdate"], ["task", "status-update"]), kinds
    (resent,) = fake.calls("message/stream")
    assert resent.params["message"]["parts"] == [{"kind": "file", "file": {"bytes": "aGk=",
                                                                           "mimeType": "text/plain"}}]
    assert len(fake.calls("SendStreamingMessage")) == 1


async def test_an_honest_agents_streams_stop_being_looked_at_for_v03_items(fake_agent_factory,
                                                                           gateway_factory) -> None:
    """A v1.0 JSON-RPC interface whose stream showed v1.0 items only is known so: its later pass-through streams
    are relayed without the look for v0.3-shaped items (the look costs every event), as they came."""
    fake = await fake_agent_factory("1.0")
    honest = [{"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}},
              {"statusUpdate": {"taskId": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}},
              {"statusUpdate": {"taskId": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"}}}]
    fake.reply_sse("SendStreamingMessage", honest).reply_sse("SendStreamingMessage", LANGGRAPH_V10_NAMES)
    client = await gateway_factory(fake.url)
    v10_stream = jsoncodec.dumpb({**V10_SEND, "method": "SendStreamingMessage"})
    headers = {"A2A-Version": "1.0", "Content-Type": "application/json"}
    resp = await client.post("/", data=v10_stream, headers=headers)
    assert [e["result"] for e in await _events(resp)] == honest
    resp = await client.post("/", data=v10_stream, headers=headers)   # not looked at: relayed as it came
    assert [e["result"] for e in await _events(resp)] == LANGGRAPH_V10_NAMES


async def test_a_v03_unary_result_behind_a_10_card_is_read_and_learned(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_json("SendMessage", LANGGRAPH_V03_NAMES[0])
    fake.reply_json("message/send", LANGGRAPH_V03_NAMES[0])
    client = await gateway_factory(fake.url)
    for _ in range(2):
        resp = await client.post("/message:send", json={"message": V10_SEND["params"]["message"]},
                                 headers={"A2A-Version": "1.0"})
        assert await resp.json() == {"task": {"id": "t2", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}}
    assert len(fake.calls("SendMessage")) == 1 and len(fake.calls("message/send")) == 1


# langgraph-api refuses a v1.0-shaped file part (-32005 "Unsupported part type"), and reads it in v0.3's shape
V10_FILE_SEND = {**V10_SEND, "params": {"message": {**V10_SEND["params"]["message"], "parts": [
    {"text": "hi"}, {"raw": "aGk=", "filename": "a.txt", "mediaType": "text/plain"}]}}}
V03_FILE_TASK = {"kind": "task", "id": "t3", "contextId": "c1", "status": {"state": "completed"},
                 "artifacts": [{"artifactId": "a1", "parts": [
                     {"kind": "file", "file": {"bytes": "aGk=", "name": "a.txt", "mimeType": "text/plain"}}]}]}


@pytest.mark.parametrize("door", ["jsonrpc", "rest"])
async def test_a_refused_v10_file_part_is_sent_again_in_v03_and_learned(door: str, fake_agent_factory,
                                                                         gateway_factory) -> None:
    """The first call to a fresh gateway may be the one with a file part: the refused v1.0 call (not carried
    out) is sent again in v0.3, and the interface spoken to in v0.3 from then on."""
    fake = await fake_agent_factory("1.0")
    fake.reply_json("SendMessage", error={"code": -32005, "message": "Unsupported part type."})
    fake.reply_json("message/send", V03_FILE_TASK)  # langgraph's v0.3 alias: v0.3 throughout
    client = await gateway_factory(fake.url)
    for _ in range(2):
        if door == "jsonrpc":  # the caller's version and binding: a pass-through until refused
            status, body, _ = await _post(client, V10_FILE_SEND, **{"A2A-Version": "1.0"})
            task = body["result"]["task"]
        else:
            resp = await client.post("/message:send", json={"message": V10_FILE_SEND["params"]["message"]},
                                     headers={"A2A-Version": "1.0"})
            status, task = resp.status, (await resp.json())["task"]
        assert status == 200 and task["status"]["state"] == "TASK_STATE_COMPLETED"
        assert task["artifacts"][0]["parts"] == [{"raw": "aGk=", "filename": "a.txt", "mediaType": "text/plain"}]
    assert len(fake.calls("SendMessage")) == 1 and len(fake.calls("message/send")) == 2
    assert fake.calls("message/send")[0].params["message"]["parts"][1] == {
        "kind": "file", "file": {"bytes": "aGk=", "name": "a.txt", "mimeType": "text/plain"}}


async def test_a_refusal_of_another_kind_is_answered_as_it_is(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_json("SendMessage", error={"code": -32005, "message": "Unsupported part type."})
    client = await gateway_factory(fake.url)
    _, body, _ = await _post(client, V10_SEND, **{"A2A-Version": "1.0"})  # no file part: nothing to resend
    assert body["error"]["code"] == -32005 and fake.calls("message/send") == []


async def test_a_v10_agent_refusing_a_file_for_its_own_reasons_keeps_its_v10(fake_agent_factory,
                                                                              gateway_factory) -> None:
    """Sent again in v0.3, the call meets no v0.3 method: the interface is spoken to in v1.0 again."""
    fake = await fake_agent_factory("1.0")
    fake.reply_json("SendMessage", error={"code": -32005, "message": "image/png is not accepted"})
    client = await gateway_factory(fake.url)
    _, body, _ = await _post(client, V10_FILE_SEND, **{"A2A-Version": "1.0"})
    assert body["error"]["code"] == -32601 and len(fake.calls("message/send")) == 1  # the v0.3 name is unknown
    _, body, _ = await _post(client, V10_FILE_SEND, **{"A2A-Version": "1.0"})
    assert body["error"]["code"] == -32005 and len(fake.calls("SendMessage")) == 2  # v1.0 again, once refused
    assert len(fake.calls("message/send")) == 1


async def test_a_pass_through_v03_result_is_written_as_v10_and_learned(fake_agent_factory, gateway_factory) -> None:
    """langgraph-api's SendMessage result to a v1.0 JSON-RPC caller: a v0.3 Task in v1.0's member and enums,
    its file part in v0.3's shape (which a v1.0 reader drops), written as v1.0; the next call is made in v0.3."""
    fake = await fake_agent_factory("1.0")
    fake.reply_json("SendMessage", {"task": {**V03_FILE_TASK, "status": {"state": "TASK_STATE_COMPLETED"}}})
    fake.reply_json("message/send", V03_FILE_TASK)
    client = await gateway_factory(fake.url)
    for _ in range(2):
        _, body, _ = await _post(client, V10_SEND, **{"A2A-Version": "1.0"})
        assert body["result"] == {"task": {"id": "t3", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"},
                                           "artifacts": [{"artifactId": "a1", "parts": [
                                               {"raw": "aGk=", "filename": "a.txt", "mediaType": "text/plain"}]}]}}
    assert len(fake.calls("SendMessage")) == 1 and len(fake.calls("message/send")) == 1
