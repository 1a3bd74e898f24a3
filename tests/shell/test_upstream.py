"""Tests for gateway/shell/agent/upstream.py's connection pools: on its defaults the gateway carries a thousand
streams at once; streams and unary calls have separate pools (long streams never starve unary calls); a
full pool is the gateway's overload (503, Retry-After, GATEWAY_OVERLOADED in the caller's shape, counted),
never "upstream agent timed out"; and every path gives its slot back."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from multidict import CIMultiDict

from gateway.config import load
from gateway.core import jsoncodec
from gateway.core.errors import GatewayOverloaded, UpstreamUnavailable
from gateway.shell.agent.upstream import Pool, Upstream
from gateway.shell.process.metrics import METRICS
from tests.shell.test_metrics import parse, value

V10 = {"Content-Type": "application/json", "A2A-Version": "1.0"}
V03_STREAM = {"jsonrpc": "2.0", "id": 9, "method": "message/stream", "params": {"message": {
    "kind": "message", "messageId": "m1", "role": "user", "parts": [{"kind": "text", "text": "hi"}]}}}
V10_SEND = {"jsonrpc": "2.0", "id": "u", "method": "SendMessage", "params": {"message": {
    "messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}}
TASK = {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_SUBMITTED"}}
DONE = {"taskId": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"}}


class HeldAgent:
    """A v1.0 agent whose streams send their task at once, then wait for `release` before completing;
    unary sends answer at once unless `hold_unary`."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.open = 0
        self.hold_unary = False
        self.url = ""

    def app(self) -> web.Application:
        async def card(request: web.Request) -> web.Response:
            return web.json_response({
                "name": "held", "description": "holds its streams", "version": "1.0",
                "supportedInterfaces": [{"url": self.url + "/", "protocolBinding": "JSONRPC",
                                         "protocolVersion": "1.0"}],
                "capabilities": {"streaming": True}, "defaultInputModes": ["text/plain"],
                "defaultOutputModes": ["text/plain"], "skills": []})

        async def rpc(request: web.Request) -> web.StreamResponse:
            call = await request.json()
            if call["method"] == "GetTask":  # the gateway's version probe
                return web.json_response({"jsonrpc": "2.0", "id": call["id"],
                                          "error": {"code": -32001, "message": "Task not found"}})
            if call["method"] == "SendMessage":
                if self.hold_unary:
                    await self.release.wait()
                return web.json_response({"jsonrpc": "2.0", "id": call["id"], "result": {"task": TASK}})
            resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
            await resp.prepare(request)
            await resp.write(_frame(call["id"], {"task": TASK}))
            self.open += 1
            await self.release.wait()
            await resp.write(_frame(call["id"], {"statusUpdate": DONE}))
            await resp.write_eof()
            return resp

        app = web.Application()
        app.router.add_get("/.well-known/agent-card.json", card)
        app.router.add_post("/", rpc)
        return app


def _frame(rpc_id: Any, result: Any) -> bytes:
    return b"data: " + jsoncodec.dumpb({"jsonrpc": "2.0", "id": rpc_id, "result": result}) + b"\n\n"


@pytest.fixture
async def held(aiohttp_server: Callable[..., Awaitable[Any]]) -> HeldAgent:
    agent = HeldAgent()
    server = await aiohttp_server(agent.app())
    agent.url = str(server.make_url("")).rstrip("/")
    return agent


async def _stream(session: aiohttp.ClientSession, url: str, rpc_id: int) -> list[Any]:
    """One v0.3 message/stream: its events' JSON-RPC objects."""
    body = {**V03_STREAM, "id": rpc_id}
    async with session.post(url, json=body, headers={"Accept": "text/event-stream"}) as resp:
        assert resp.status == 200 and resp.content_type == "text/event-stream", await resp.text()
        raw = await resp.read()
    return [jsoncodec.loads(e[len(b"data: "):]) for e in raw.split(b"\n\n") if e.startswith(b"data: ")]


async def _until(predicate: Callable[[], bool], timeout: float = 30.0) -> None:
    async with asyncio.timeout(timeout):
        while not predicate():
            await asyncio.sleep(0.02)


async def test_a_thousand_streams_at_once_on_the_defaults(held: HeldAgent, gateway_factory: Any) -> None:
    # with the old single pool of 100 connections, stream 101 waited upstream.timeout.connect and failed
    gw = await gateway_factory(held.url)
    url = str(gw.make_url("/"))
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        streams = [asyncio.create_task(_stream(session, url, i)) for i in range(1000)]
        await _until(lambda: held.open == 1000 or any(s.done() for s in streams))
        assert held.open == 1000   # every one open at the agent at the same time
        async with session.post(url, json=V10_SEND, headers=V10) as resp:  # unary calls still flow
            assert (await resp.json())["result"] == {"task": TASK}
        held.release.set()
        results = await asyncio.gather(*streams)
    for i, events in enumerate(results):
        assert [e["id"] for e in events] == [i, i] and events[-1]["result"]["final"] is True


async def test_a_full_stream_pool_is_the_gateways_overload_and_unary_calls_still_flow(
        held: HeldAgent, gateway_factory: Any) -> None:
    gw = await gateway_factory(held.url, limits__max_stream_connections=2, limits__pool_wait_seconds=0.1)
    url = str(gw.make_url("/"))
    async with aiohttp.ClientSession() as session:
        streams = [asyncio.create_task(_stream(session, url, i)) for i in range(2)]
        await _until(lambda: held.open == 2)
        async with session.post(url, json=V03_STREAM, headers={"Accept": "text/event-stream"}) as resp:
            assert resp.status == 503 and resp.headers["Retry-After"] == "1"
            reply = await resp.json()
        assert reply["id"] == 9 and reply["error"]["code"] == -32099
        message = reply["error"]["message"]
        assert "gateway overloaded" in message and "limits.max_stream_connections" in message
        assert "timed out" not in message
        async with session.post(url, json=V10_SEND, headers=V10) as resp:   # its own pool: not starved
            assert resp.status == 200 and (await resp.json())["result"] == {"task": TASK}
        held.release.set()
        await asyncio.gather(*streams)
        assert len(await _stream(session, url, 3)) == 2   # the slots came back
    m = parse(gw.server.app[METRICS].render().decode())
    assert value(m, "a2a_gateway_connection_limit_rejections_total", limit="limits.max_stream_connections") == 1
    assert value(m, "a2a_gateway_upstream_errors_total", kind="timeout") == 0   # the agent is not blamed


async def test_a_full_unary_pool_answers_rest_callers_in_their_shape(held: HeldAgent, gateway_factory: Any) -> None:
    held.hold_unary = True
    gw = await gateway_factory(held.url, limits__max_connections=1, limits__pool_wait_seconds=0.1)
    async with aiohttp.ClientSession() as session:
        first = asyncio.create_task(session.post(str(gw.make_url("/")), json=V10_SEND, headers=V10))
        await asyncio.sleep(0.2)
        async with session.post(str(gw.make_url("/message:send")), json=V10_SEND["params"], headers=V10) as resp:
            assert resp.status == 503 and resp.headers["Retry-After"] == "1"
            error = (await resp.json())["error"]
        assert error["status"] == "UNAVAILABLE" and error["details"][0]["reason"] == "GATEWAY_OVERLOADED"
        assert "limits.max_connections" in error["message"]
        held.release.set()
        async with await first as resp:
            assert resp.status == 200


async def test_every_path_gives_its_slot_back(held: HeldAgent) -> None:
    settings = load(None, {}, {"upstream.url": held.url, "limits.max_connections": 1,
                               "limits.max_stream_connections": 1, "limits.pool_wait_seconds": 0,
                               "upstream.retry_backoff_seconds": 0.001})  # the refused calls retried at once
    upstream = Upstream(settings.upstream, settings.limits)
    await upstream.start()
    body = jsoncodec.dumpb(V10_SEND)
    stream_body = jsoncodec.dumpb({**V10_SEND, "method": "SendStreamingMessage"})
    try:
        for _ in range(3):
            await upstream.request("POST", held.url + "/", headers=dict(V10), body=body)
            with pytest.raises(UpstreamUnavailable):   # refused: nothing listens on port 1
                await upstream.request("GET", "http://127.0.0.1:1/", headers={})
            with pytest.raises(UpstreamUnavailable):
                await upstream.open("GET", "http://127.0.0.1:1/", headers=CIMultiDict(), body=None)
            resp = await upstream.open("POST", held.url + "/", headers=CIMultiDict(V10),
                                       body=stream_body)
            with pytest.raises(GatewayOverloaded):   # the one stream slot is taken while it is open
                await upstream.open("POST", held.url + "/", headers=CIMultiDict(V10), body=stream_body)
            resp.close()   # a stream closed early
            resp = await upstream.open("GET", held.url + "/.well-known/agent-card.json",
                                       headers=CIMultiDict(), body=None)
            await resp.read()   # a reply read to its end releases its connection by itself
            resp.release()
    finally:
        await upstream.close()


async def test_a_pools_slots_go_in_turn_and_a_call_that_stops_waiting_keeps_none() -> None:
    pool = Pool("unary", "limits.max_connections", 2, 5.0, 5.0)
    assert pool.take() and pool.take() and not pool.take()
    first = asyncio.ensure_future(pool.acquire(None))
    gone = asyncio.ensure_future(pool.acquire(None))
    last = asyncio.ensure_future(pool.acquire(None))
    await asyncio.sleep(0)
    gone.cancel()
    await asyncio.sleep(0)
    pool.release()                    # to the first waiting call
    await asyncio.sleep(0)
    assert first.done() and not last.done() and not pool.take()   # the one waiting still comes before a take
    pool.release()                    # past the call that left, to the last
    await asyncio.sleep(0)
    assert last.done() and pool.free == 0 and not pool.waiters
    handed = asyncio.ensure_future(pool.acquire(None))
    await asyncio.sleep(0)
    pool.release()                    # handed a slot, then cancelled before it ran: the slot is not lost
    handed.cancel()
    with pytest.raises(asyncio.CancelledError):
        await handed
    assert pool.free == 1 and pool.take()
    for _ in range(2):   # the last call's slot, and the one just taken
        pool.release()
    assert pool.free == 2


async def test_a_call_waiting_past_the_pools_wait_is_the_gateways_overload() -> None:
    pool = Pool("unary", "limits.max_connections", 1, 0.05, 5.0)
    assert pool.take()
    with pytest.raises(GatewayOverloaded, match=r"limits\.max_connections"):
        await pool.acquire(None)
    assert not pool.waiters
    pool.release()
    assert pool.take()
