"""shell.carrier.pipeline: one path for every door — the settings in force (a SIGHUP that rotates upstream.headers
reaches JSON-RPC, REST, AG-UI runs and push task fetches alike), one boundary (a bug in a door is answered
in the caller's shape with its id, never aiohttp's 500 page), one log line and metrics per exchange."""

from __future__ import annotations

import gc
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient

from gateway.config import load
from gateway.core import jsoncodec
from gateway.core.exchange import Reply
from gateway.core.types import Binding, Version
from gateway.shell.carrier.pipeline import A2ACaller, Context, PlainCaller, serve
from gateway.shell.process.app import build_app
from gateway.shell.process.lifecycle import LIFECYCLE
from gateway.shell.process.metrics import METRICS
from tests.fakes.agents import FakeAgent
from tests.shell.test_metrics import parse, value
from tests.shell.test_push_relay import KEY_B64, LOOPBACK, V10_STATUS, V10_TASK, hook_factory, notify, register

V03_SEND = {"jsonrpc": "2.0", "id": 7, "method": "message/send",
            "params": {"message": {"kind": "message", "messageId": "m1", "role": "user",
                                   "parts": [{"kind": "text", "text": "hi"}]}}}
REST_SEND = {"message": {"messageId": "m1", "role": "ROLE_USER", "content": [{"text": "hi"}]}}
__all__ = ["hook_factory"]  # the fixture, imported for this module

RUN = {"threadId": "t", "runId": "r1", "messages": [{"id": "u1", "role": "user", "content": "hi"}],
       "state": {}, "tools": [], "context": [], "forwardedProps": {}}


def _reload(gateway: TestClient[Any, Any], fake: FakeAgent, authorization: str) -> None:
    lc = gateway.app[LIFECYCLE]
    assert lc.reload(lambda: load(None, {}, {
        "upstream.url": fake.url, "log.format": "console", "push.keys": [KEY_B64],
        "push.allow_networks": LOOPBACK, "upstream.headers": {"Authorization": authorization}}))
    assert lc.settings.upstream.headers == {"Authorization": authorization}


async def test_a_reload_that_rotates_upstream_headers_reaches_every_door(fake_agent_factory, gateway_factory,
                                                                         hook_factory) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_json("SendMessage", {"task": V10_TASK})
    fake.reply_json("POST /message:send", {"task": V10_TASK})
    fake.reply_sse("SendStreamingMessage", [{"task": {**V10_TASK, "status": {"state": "TASK_STATE_COMPLETED"}}}])
    fake.reply_json("GetTask", V10_TASK)
    hook = await hook_factory()
    gateway = await gateway_factory(fake.url, push__keys=[KEY_B64], push__allow_networks=LOOPBACK,
                                    upstream__headers={"Authorization": "Bearer old"})
    _reload(gateway, fake, "Bearer new")

    assert (await gateway.post("/", json=V03_SEND)).status == 200
    assert (await gateway.post("/v1/message:send", json=REST_SEND)).status == 200
    run = await gateway.post("/agui", json=RUN)
    assert b"RUN_FINISHED" in await run.read()
    path, token = register(gateway, hook.url)
    assert await notify(gateway, path, V10_STATUS, token) == 200
    await hook.wait()

    seen = {key: [c.headers.get("Authorization") for c in fake.calls(key)]
            for key in ("SendMessage", "SendStreamingMessage", "GetTask")}
    assert seen == {"SendMessage": ["Bearer new", "Bearer new"],   # JSON-RPC, and REST translated to JSON-RPC
                    "SendStreamingMessage": ["Bearer new"],        # the AG-UI run
                    "GetTask": ["Bearer new"]}                     # the push relay's task fetch


async def test_agui_runs_reach_a_rest_only_agent(fake_agent_factory, gateway_factory) -> None:
    for version, method in (("1.0", "POST /message:stream"), ("0.3", "POST /v1/message:stream")):
        fake = await fake_agent_factory(version, binding="HTTP+JSON")
        task = ({"task": {**V10_TASK, "status": {"state": "TASK_STATE_COMPLETED"}}} if version == "1.0" else
                {"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"},
                          "artifacts": [{"artifactId": "a1", "parts": [{"text": "hello world"}]}]}})
        fake.reply_sse(method, [task])
        gateway = await gateway_factory(fake.url)
        raw = await (await gateway.post("/agui", json=RUN)).read()
        assert b'"RUN_FINISHED"' in raw and b"hello world" in raw, raw
        assert len(fake.calls(method)) == 1


async def _boom(ctx: Context) -> Reply:
    raise ZeroDivisionError("a bug")


@pytest.mark.parametrize(("caller", "status", "body"), [
    (A2ACaller(Version.V10, Binding.JSONRPC, 9), 200,
     {"jsonrpc": "2.0", "id": 9, "error": {"code": -32603, "message": "internal error: ZeroDivisionError", "data": [
         {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "INTERNAL_ERROR",
          "domain": "a2a-protocol.org"}]}}),
    (A2ACaller(Version.V03, Binding.JSONRPC, "x"), 200,
     {"jsonrpc": "2.0", "id": "x", "error": {"code": -32603, "message": "internal error: ZeroDivisionError"}}),
    (PlainCaller("webhook"), 500,
     {"error": {"code": "internal_error", "message": "internal error: ZeroDivisionError"}}),
])
async def test_a_bug_in_a_door_is_answered_in_the_callers_shape(aiohttp_client, caller: Any, status: int,
                                                                body: Any) -> None:
    async def handler(request: Any) -> Any:
        return await serve(request, _boom, caller, operation="send_message")

    app = build_app(load(None, {}, {"upstream.url": "http://127.0.0.1:9", "upstream.version": "1.0",
                                    "log.format": "console"}))
    app.router.add_get("/boom", handler)   # a door with a bug, on a real gateway app
    gateway = await aiohttp_client(app)
    resp = await gateway.get("/boom")
    assert (resp.status, jsoncodec.loads(await resp.read())) == (status, body)
    assert resp.headers["X-Request-Id"]
    samples = parse(gateway.app[METRICS].render().decode())
    assert value(samples, "a2a_gateway_requests_total", route="default", operation="send_message",
                 client_version="", upstream_version="", binding=caller.label, outcome="error") == 1


async def test_every_exchange_gets_a_request_id_of_its_own_unless_the_client_sent_one(
        fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("1.0")
    gateway = await gateway_factory(fake.url)
    ids = []
    for _ in range(3):
        resp = await gateway.post("/", data=jsoncodec.dumpb(V03_SEND))
        ids.append(resp.headers["X-Request-Id"])
    assert all(len(i) == 32 and set(i) <= set("0123456789abcdef") for i in ids) and len(set(ids)) == 3
    resp = await gateway.post("/", data=jsoncodec.dumpb(V03_SEND), headers={"X-Request-Id": "mine-1"})
    assert resp.headers["X-Request-Id"] == "mine-1"
    # a stream's reply too: its headers are stamped before it starts
    fake.reply_sse("SendStreamingMessage", [{"task": {**V10_TASK, "status": {"state": "TASK_STATE_COMPLETED"}}}])
    async with gateway.post("/", json={**V03_SEND, "method": "message/stream"},
                            headers={"X-Request-Id": "mine-2"}) as stream:
        assert stream.content_type == "text/event-stream" and stream.headers["X-Request-Id"] == "mine-2"


V10_SEND = {"jsonrpc": "2.0", "id": 8, "method": "SendMessage",
            "params": {"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}}


async def test_an_exchange_leaves_nothing_for_the_cyclic_collector(fake_agent_factory, gateway_factory) -> None:
    """No exchange leaves garbage that only the cyclic GC frees (the exchange's context kept on its request,
    which it refers to, was such a cycle, with everything the request holds: a collection every few
    requests)."""
    fake = await fake_agent_factory("1.0")
    fake.reply_json("SendMessage", {"task": V10_TASK})
    fake.reply_sse("SendStreamingMessage", [{"task": {**V10_TASK, "status": {"state": "TASK_STATE_COMPLETED"}}}])
    gateway = await gateway_factory(fake.url)

    async def exchanges() -> None:
        for body, headers in ((V03_SEND, {}), (V10_SEND, {"A2A-Version": "1.0"}),
                              ({**V03_SEND, "method": "message/stream"}, {})):
            reply = await gateway.post("/", json=body, headers=headers)
            assert reply.status == 200
            await reply.read()
        assert (await gateway.post("/", data=b"{", headers={"Content-Type": "application/json"})).status == 200
        assert (await gateway.post("/v1/message:send", json=REST_SEND)).status == 200

    await exchanges()   # everything imported and cached
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        await exchanges()
        gc.collect()
        left = [type(o).__name__ for o in gc.garbage if isinstance(o, Context | web.Request)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert left == []
