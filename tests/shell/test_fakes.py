"""Tests for tests/fakes/agents.py: the fake upstream agents serve their cards, record requests and
replay their scripts (JSON, SSE with CRLF and pings, delays, resets, dropped connections, client leaving)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import aiohttp
import pytest
from a2a.types import a2a_pb2 as pb10
from google.protobuf import json_format

from gateway.core import jsoncodec
from gateway.core.sse import SseComment, SseEvent, SseParser
from gateway.core.types import Dialect
from tests import oracle
from tests.fakes.agents import FakeAgent, fake_agent_factory, start_fake

assert fake_agent_factory  # imported as a fixture for test_fixture_factory

CARD = "/.well-known/agent-card.json"
TASK = {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"}}


async def _post(fake: FakeAgent, method: str, params: Any = None, *, rpc_id: Any = 7,
                path: str = "/", **kwargs: Any) -> tuple[int, bytes, aiohttp.ClientResponse]:
    body = {"jsonrpc": "2.0", "id": rpc_id, "method": method, "params": params or {}}
    async with aiohttp.ClientSession() as session, session.post(
        fake.url + path, data=jsoncodec.dumpb(body), headers={"A2A-Version": "1.0"}, **kwargs
    ) as resp:
        return resp.status, await resp.read(), resp


async def _card(fake: FakeAgent) -> Any:
    async with aiohttp.ClientSession() as session, session.get(fake.url + CARD) as resp:
        assert resp.status == 200
        return await resp.json()


def _sse_items(raw: bytes) -> list[SseEvent | SseComment]:
    parser = SseParser()
    items = parser.feed(raw)
    parser.close()
    return items


# --- cards -------------------------------------------------------------------------------------------


async def test_v03_card_points_at_the_fake(aiohttp_server: Any) -> None:
    fake = await start_fake(aiohttp_server, "0.3")
    card = await _card(fake)
    assert card["url"] == fake.url + "/"
    assert (card["protocolVersion"], card["preferredTransport"]) == ("0.3.0", "JSONRPC")
    assert "supportedInterfaces" not in card
    oracle.check("agent_card", Dialect.V03RPC, card)


async def test_v10_card_points_at_the_fake(aiohttp_server: Any) -> None:
    fake = await start_fake(aiohttp_server, "1.0", "HTTP+JSON")
    card = await _card(fake)
    assert card["supportedInterfaces"] == [
        {"url": fake.url, "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}
    ]
    json_format.ParseDict(card, pb10.AgentCard())


async def test_card_override_and_scripted_card(aiohttp_server: Any) -> None:
    fake = await start_fake(aiohttp_server, "1.0", card={"name": "custom"})
    assert fake.card == {"name": "custom"}
    fake.reply_json("GET /.well-known/agent-card.json", raw=b"<html>503</html>", status=503,
                    headers={"Content-Type": "text/html"})
    async with aiohttp.ClientSession() as session, session.get(fake.url + CARD) as r:
        assert (r.status, r.content_type, await r.read()) == (503, "text/html", b"<html>503</html>")


async def test_fixture_factory(fake_agent_factory: Any) -> None:
    fake = await fake_agent_factory("0.3", "HTTP+JSON")
    assert (fake.version, fake.binding, fake.card["url"]) == ("0.3", "HTTP+JSON", fake.url)


# --- JSON ------------------------------------------------------------------------------------------------


async def test_reply_json_wraps_the_result_and_records_the_request(aiohttp_server: Any) -> None:
    fake = await start_fake(aiohttp_server)
    fake.reply_json("SendMessage", result={"task": TASK})
    status, body, resp = await _post(fake, "SendMessage", {"message": {"messageId": "m"}}, rpc_id="abc")
    assert status == 200 and resp.content_type == "application/json"
    assert jsoncodec.loads(body) == {"jsonrpc": "2.0", "id": "abc", "result": {"task": TASK}}
    [rec] = fake.requests
    assert (rec.method, rec.path, rec.rpc_method, rec.rpc_id) == ("POST", "/", "SendMessage", "abc")
    assert rec.headers["a2a-version"] == "1.0"
    assert rec.params == {"message": {"messageId": "m"}}
    assert fake.calls("SendMessage") == [rec] and fake.calls("GetTask") == []


async def test_reply_json_error_status_and_raw(aiohttp_server: Any) -> None:
    fake = await start_fake(aiohttp_server)
    error = {"code": -32001, "message": "Task not found"}
    fake.reply_json("GetTask", error=error, status=500)
    fake.reply_json("CancelTask", raw=b'{"jsonrpc": "2.0", "id": 7, "result": {', status=200)
    status, body, _ = await _post(fake, "GetTask", {"id": "x"})
    assert (status, jsoncodec.loads(body)) == (500, {"jsonrpc": "2.0", "id": 7, "error": error})
    status, body, _ = await _post(fake, "CancelTask", {"id": "x"})
    assert (status, body) == (200, b'{"jsonrpc": "2.0", "id": 7, "result": {')


async def test_script_queue_and_the_last_reply_sticks(aiohttp_server: Any) -> None:
    fake = await start_fake(aiohttp_server)
    fake.reply_json("GetTask", result={"id": "first"}).reply_json("GetTask", result={"id": "second"})
    results = [jsoncodec.loads((await _post(fake, "GetTask"))[1])["result"]["id"] for _ in range(3)]
    assert results == ["first", "second", "second"]


async def test_unscripted_methods(aiohttp_server: Any) -> None:
    fake = await start_fake(aiohttp_server)
    status, body, _ = await _post(fake, "ListTasks")
    assert status == 200
    assert jsoncodec.loads(body)["error"]["code"] == -32601
    async with aiohttp.ClientSession() as session, session.get(fake.url + "/tasks/t1") as r:
        assert r.status == 404
        assert (await r.json())["error"]["code"] == -32601


async def test_rest_binding_keys_by_verb_and_path_and_sends_bare_bodies(aiohttp_server: Any) -> None:
    fake = await start_fake(aiohttp_server, "1.0", "HTTP+JSON")
    fake.reply_json("POST /message:send", result={"task": TASK})
    fake.reply_json("GET /tasks/t1", error={"error": {"code": 404, "status": "NOT_FOUND"}}, status=404)
    async with aiohttp.ClientSession() as session:
        async with session.post(fake.url + "/message:send", json={"message": {}}) as r:
            assert (r.status, await r.json()) == (200, {"task": TASK})
        async with session.get(fake.url + "/tasks/t1?historyLength=2") as r:
            assert (r.status, await r.json()) == (404, {"error": {"code": 404, "status": "NOT_FOUND"}})
    assert [(r.method, r.path, r.query) for r in fake.requests] == [
        ("POST", "/message:send", {}), ("GET", "/tasks/t1", {"historyLength": "2"})]
    assert fake.calls("GET /tasks/t1") == fake.requests[1:]


# --- SSE -------------------------------------------------------------------------------------------------


async def test_reply_sse_with_crlf_pings_and_raw_frames(aiohttp_server: Any) -> None:
    fake = await start_fake(aiohttp_server)
    status_update = {"statusUpdate": {"taskId": "t1", "contextId": "c1",
                                      "status": {"state": "TASK_STATE_COMPLETED"}}}
    error_frame = b'event: error\ndata: {"jsonrpc": "2.0", "id": 7, "error": {"code": -32603}}\n\n'
    fake.reply_sse("SendStreamingMessage", [{"task": TASK}, status_update, error_frame],
                   crlf=True, pings=True)
    status, body, resp = await _post(fake, "SendStreamingMessage")
    assert status == 200 and resp.content_type == "text/event-stream"
    assert body.startswith(b": ping - 1\r\n\r\ndata: {") and b"\r\n\r\n: ping - 2\r\n\r\n" in body
    items = _sse_items(body)
    assert [type(i).__name__ for i in items] == ["SseComment", "SseEvent"] * 3
    events = [i for i in items if isinstance(i, SseEvent)]
    assert [jsoncodec.loads(e.data) for e in events[:2]] == [
        {"jsonrpc": "2.0", "id": 7, "result": {"task": TASK}},
        {"jsonrpc": "2.0", "id": 7, "result": status_update},
    ]
    assert events[2].event == "error"
    assert fake.open_streams == 0 and not fake.on_disconnect.is_set()


async def test_reply_sse_lf_without_pings_and_envelopes_kept(aiohttp_server: Any) -> None:
    fake = await start_fake(aiohttp_server, "0.3")
    envelope = {"jsonrpc": "2.0", "id": 99, "error": {"code": -32603, "message": "boom"}}
    fake.reply_sse("message/stream", [{"kind": "task", "id": "t1"}, envelope])
    _, body, _ = await _post(fake, "message/stream")
    assert b"\r" not in body and b":" not in body.split(b"data")[0]
    events = [jsoncodec.loads(i.data) for i in _sse_items(body) if isinstance(i, SseEvent)]
    assert events == [{"jsonrpc": "2.0", "id": 7, "result": {"kind": "task", "id": "t1"}}, envelope]


async def test_reply_sse_reset_breaks_the_body(aiohttp_server: Any) -> None:
    fake = await start_fake(aiohttp_server)
    fake.reply_sse("SendStreamingMessage", [{"task": TASK}], then="reset")
    with pytest.raises(aiohttp.ClientPayloadError):
        await _post(fake, "SendStreamingMessage")


async def test_reply_sse_hang_pings_until_the_client_leaves(aiohttp_server: Any) -> None:
    fake = await start_fake(aiohttp_server)
    fake.reply_sse("SendStreamingMessage", [{"task": TASK}], pings=True, delay=0.05, then="hang")
    body = b""
    async with aiohttp.ClientSession() as session, session.post(
        fake.url + "/", json={"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage"}
    ) as resp:
        while body.count(b": ping") < 3:
            body += await asyncio.wait_for(resp.content.readany(), 1)
        assert not fake.on_disconnect.is_set() and fake.open_streams == 1
    left = time.monotonic()
    await asyncio.wait_for(fake.on_disconnect.wait(), 1)
    assert time.monotonic() - left < 1
    assert fake.disconnects == 1
    assert b'"result":{"task"' in body


async def test_client_leaving_mid_stream_is_detected(aiohttp_server: Any) -> None:
    fake = await start_fake(aiohttp_server)
    fake.reply_sse("SendStreamingMessage", [{"task": TASK}] * 5, delay=10)
    async with aiohttp.ClientSession() as session, session.post(
        fake.url + "/", json={"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage"}
    ) as resp:
        first = await asyncio.wait_for(resp.content.readuntil(b"\n\n"), 1)
        assert first.startswith(b"data: ")
    await asyncio.wait_for(fake.on_disconnect.wait(), 1)
    for _ in range(100):  # the handler's finally runs right after the event is set
        if fake.open_streams == 0:
            break
        await asyncio.sleep(0.01)
    assert fake.open_streams == 0 and fake.disconnects == 1


async def test_reply_sse_delay_paces_events(aiohttp_server: Any) -> None:
    fake = await start_fake(aiohttp_server)
    fake.reply_sse("SendStreamingMessage", [{"task": TASK}] * 3, delay=0.1)
    started = time.monotonic()
    _, body, _ = await _post(fake, "SendStreamingMessage")
    assert time.monotonic() - started >= 0.2
    assert len([i for i in _sse_items(body) if isinstance(i, SseEvent)]) == 3


# --- delays and dropped connections ------------------------------------------------------------------


async def test_reply_delay_slows_the_scripted_answer(aiohttp_server: Any) -> None:
    fake = await start_fake(aiohttp_server)
    fake.reply_delay("GetTask", 0.2).reply_json("GetTask", result=TASK)
    started = time.monotonic()
    _, body, _ = await _post(fake, "GetTask")
    assert time.monotonic() - started >= 0.2
    assert jsoncodec.loads(body)["result"] == TASK
    assert not fake.on_disconnect.is_set()


async def test_silent_upstream_sees_the_client_give_up(aiohttp_server: Any) -> None:
    fake = await start_fake(aiohttp_server)
    fake.reply_delay("SendMessage", 30)
    with pytest.raises(asyncio.TimeoutError):
        await _post(fake, "SendMessage", timeout=aiohttp.ClientTimeout(total=0.2))
    await asyncio.wait_for(fake.on_disconnect.wait(), 1)
    assert len(fake.requests) == 1


async def test_reply_disconnect_mid_body(aiohttp_server: Any) -> None:
    fake = await start_fake(aiohttp_server)
    fake.reply_disconnect("SendMessage")
    with pytest.raises(aiohttp.ClientPayloadError):
        await _post(fake, "SendMessage")


async def test_reply_disconnect_before_headers(aiohttp_server: Any) -> None:
    fake = await start_fake(aiohttp_server)
    fake.reply_disconnect("SendMessage", mid_body=False)
    with pytest.raises(aiohttp.ServerDisconnectedError):
        await _post(fake, "SendMessage")
