"""Cards that lie, seen through the gateway on `upstream.version = auto`: the probe at card fetch corrects
the version, a real call's "method not found" makes it probe again and retry a read-only call, a pinned
version is never probed; counted in metrics."""

from __future__ import annotations

from typing import Any

from gateway.shell.agent.upstream import UPSTREAM
from gateway.shell.process.metrics import METRICS
from tests.fakes.agents import FakeAgent
from tests.shell.conftest import GatewayFactory
from tests.shell.test_metrics import parse, value

V10 = {"A2A-Version": "1.0"}
V03_TASK = {"kind": "task", "id": "t1", "contextId": "c1", "status": {"state": "completed"}}
V10_TASK = {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"}}


def _metric(client: Any, outcome: str) -> float:
    samples = parse(client.server.app[METRICS].render().decode())
    return value(samples, "a2a_gateway_upstream_version_checks_total", outcome=outcome)


async def test_a_v03_agent_behind_a_v10_card_is_spoken_to_in_v03(
        fake_agent_factory: Any, gateway_factory: GatewayFactory) -> None:
    fake: FakeAgent = await fake_agent_factory("0.3", claims="1.0")
    assert "supportedInterfaces" in fake.card   # the lie
    fake.reply_json("tasks/get", V03_TASK)
    client = await gateway_factory(fake.url)
    resp = await client.post("/", json={"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "t1"}},
                             headers=V10)
    assert (await resp.json())["result"] == V10_TASK
    assert [r.rpc_method for r in fake.requests if r.rpc_method] == ["tasks/get"]
    assert _metric(client, "corrected") == 1
    upstream = client.server.app[UPSTREAM]
    assert [v.as_json()["status"] for v in upstream.verified] == ["corrected"]


async def test_a_v10_agent_behind_a_v03_card_is_spoken_to_in_v10(
        fake_agent_factory: Any, gateway_factory: GatewayFactory) -> None:
    fake: FakeAgent = await fake_agent_factory("1.0", claims="0.3")
    assert "supportedInterfaces" not in fake.card
    fake.reply_json("GetTask", V10_TASK)
    client = await gateway_factory(fake.url)
    resp = await client.post("/", json={"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": "t1"}})
    assert (await resp.json())["result"] == V03_TASK
    assert [r.rpc_method for r in fake.requests if r.rpc_method] == ["GetTask"]
    assert fake.requests[-1].headers["A2A-Version"] == "1.0"


async def test_an_honest_card_is_verified_once_per_interface(
        fake_agent_factory: Any, gateway_factory: GatewayFactory) -> None:
    fake: FakeAgent = await fake_agent_factory("1.0")
    fake.reply_json("GetTask", V10_TASK)
    client = await gateway_factory(fake.url)
    resp = await client.post("/", json={"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "t1"}},
                             headers=V10)
    assert (await resp.json())["result"] == V10_TASK
    assert fake.probes == 1 and _metric(client, "verified") == 1 and _metric(client, "corrected") == 0


async def test_method_not_found_on_a_real_call_probes_again_and_retries_a_read_only_call(
        fake_agent_factory: Any, gateway_factory: GatewayFactory) -> None:
    # the probes at card fetch prove nothing (503); then the agent's -32601 to GetTask starts a new probe
    fake: FakeAgent = await fake_agent_factory("0.3", claims="1.0")
    fake.probe_failures = 1
    fake.reply_json("tasks/get", V03_TASK)
    client = await gateway_factory(fake.url)
    call = {"jsonrpc": "2.0", "id": 7, "method": "GetTask", "params": {"id": "t1"}}
    resp = await client.post("/", json=call, headers=V10)
    body = await resp.json()
    assert body == {"jsonrpc": "2.0", "id": 7, "result": V10_TASK}
    assert [r.rpc_method for r in fake.requests if r.rpc_method] == ["GetTask", "tasks/get"]
    assert _metric(client, "unverified") == 1 and _metric(client, "corrected") == 1
    resp = await client.post("/", json=call, headers=V10)   # remembered: straight to the v0.3 spelling
    assert (await resp.json())["result"] == V10_TASK
    assert [r.rpc_method for r in fake.requests if r.rpc_method][-1] == "tasks/get" and fake.probes == 3


async def test_a_pinned_version_is_never_probed(fake_agent_factory: Any, gateway_factory: GatewayFactory) -> None:
    fake: FakeAgent = await fake_agent_factory("1.0")
    fake.reply_json("GetTask", V10_TASK)
    client = await gateway_factory(fake.url + "/", upstream__version="1.0")
    resp = await client.post("/", json={"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "t1"}},
                             headers=V10)
    assert (await resp.json())["result"] == V10_TASK
    assert fake.probes == 0
