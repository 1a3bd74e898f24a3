"""[callers] store = "redis" against a real redis-server: two gateway replicas share each caller's request rate
and stream slots, a replica that dies frees its slots once their leases expire, and with Redis unreachable
the gateway admits callers (fails open), logs it and counts it."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from gateway.config import load
from gateway.shell.edge.shared_limits import RedisLimits
from gateway.shell.process.metrics import METRICS, Metrics
from tests.fakes.agents import FakeAgent
from tests.redis_server import needs_redis
from tests.shell.conftest import GatewayFactory

pytestmark = needs_redis

TASK = {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"}}
SEND = {"jsonrpc": "2.0", "id": 7, "method": "SendMessage", "params": {"message": {
    "messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}}
STREAM = {**SEND, "method": "SendStreamingMessage"}


async def _send(gw: TestClient[Any, Any], who: str, payload: dict[str, Any] = SEND) -> tuple[int, Any, Any]:
    async with gw.post("/", json=payload, headers={"A2A-Version": "1.0", "User-Agent": who}) as resp:
        reply = await resp.json() if resp.content_type == "application/json" else await resp.read()
        return resp.status, reply, resp.headers


@pytest.fixture
async def agent(fake_agent_factory: Any) -> FakeAgent:
    fake: FakeAgent = await fake_agent_factory("1.0")
    fake.reply_json("SendMessage", {"task": TASK})
    return fake


async def test_two_replicas_share_the_request_rate(agent: FakeAgent, redis_url: str,
                                                   gateway_factory: GatewayFactory) -> None:
    shared = {"callers__store": "redis", "callers__redis_url": redis_url, "callers__key_prefix": "rate-test:",
              "callers__requests_per_second": 0.01, "callers__burst": 3}
    a, b = await gateway_factory(agent.url, **shared), await gateway_factory(agent.url, **shared)
    assert [(await _send(gw, "alice"))[0] for gw in (a, b, a)] == [200, 200, 200]   # one burst of three
    for gw in (b, a):
        status, reply, headers = await _send(gw, "alice")
        assert status == 429 and reply["error"]["code"] == -32096 and int(headers["Retry-After"]) >= 1, reply
    assert (await _send(b, "bob"))[0] == 200   # another caller, another bucket
    alone = await gateway_factory(agent.url, callers__requests_per_second=0.01, callers__burst=3)
    assert (await _send(alone, "alice"))[0] == 200   # the per-replica default counts on its own


async def test_two_replicas_share_stream_slots(fake_agent_factory: Any, redis_url: str,
                                               gateway_factory: GatewayFactory) -> None:
    fake: FakeAgent = await fake_agent_factory("1.0")
    working = {**TASK, "status": {"state": "TASK_STATE_WORKING"}}
    fake.reply_sse("SendStreamingMessage", [{"task": working}] + [{"statusUpdate": {
        "taskId": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}}] * 10, delay=0.05)
    shared = {"callers__store": "redis", "callers__redis_url": redis_url, "callers__key_prefix": "slots-test:",
              "callers__max_streams": 1}
    a, b = await gateway_factory(fake.url, **shared), await gateway_factory(fake.url, **shared)
    headers = {"A2A-Version": "1.0", "User-Agent": "s", "Accept": "text/event-stream"}
    async with a.post("/", json=STREAM, headers=headers) as first:
        assert first.status == 200
        await first.content.readline()
        status, reply, _ = await _send(b, "s", STREAM)   # the other replica: the slot is taken
        assert status == 429 and "max_streams" in reply["error"]["message"], reply
        await first.read()
    async with b.post("/", json=STREAM, headers=headers) as again:   # the slot came back
        assert again.status == 200
        await again.read()


async def test_a_dead_replicas_slots_expire(fake_agent_factory: Any, redis_url: str,
                                            gateway_factory: GatewayFactory) -> None:
    settings = load(None, {}, {"upstream.url": "http://a:1", "callers.max_streams": 1, "callers.store": "redis",
                               "callers.redis_url": redis_url, "callers.key_prefix": "lease-test:",
                               "callers.stream_lease_seconds": 1.0}).callers
    dead = RedisLimits(settings, "default", Metrics())
    dead.start()
    assert await dead.open("hdr:s", 1) and await dead.open("hdr:s", 1) is None
    await asyncio.sleep(1.5)   # renewed meanwhile: still held past its first second
    assert await dead.open("hdr:s", 1) is None
    await dead.aclose()   # the replica dies: its lease is neither closed nor renewed again
    fake: FakeAgent = await fake_agent_factory("1.0")
    fake.reply_sse("SendStreamingMessage", [{"task": TASK}])
    gw = await gateway_factory(fake.url, callers__store="redis", callers__redis_url=redis_url,
                               callers__key_prefix="lease-test:", callers__max_streams=1,
                               callers__stream_lease_seconds=1.0)
    assert (await _send(gw, "s", STREAM))[0] == 429
    started = time.monotonic()
    while (await _send(gw, "s", STREAM))[0] == 429:
        assert time.monotonic() - started < 3, "the dead replica's lease did not expire"
        await asyncio.sleep(0.1)


async def test_redis_unreachable_fails_open(agent: FakeAgent, gateway_factory: GatewayFactory,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    gw = await gateway_factory(agent.url, callers__store="redis", callers__redis_url="redis://127.0.0.1:1/0",
                               callers__requests_per_second=0.01, callers__burst=1)
    assert [(await _send(gw, "alice"))[0] for _ in range(3)] == [200, 200, 200]   # not limited: admitted
    assert b'a2a_gateway_callers_store_errors_total{op="take"} 3.0' in gw.server.app[METRICS].render()
    assert capsys.readouterr().out.count("callers_store_unavailable") == 1   # said once, not per request
