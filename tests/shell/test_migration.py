"""The migration view of a running gateway: two named callers of different versions counted per route and
binding (the admin JSON), the deprecation headers on replies to v0.3 callers only (unary and streamed, per
route; as initial metadata to gRPC callers), the cut-off's version error, and a worker's snapshot file read
back as the parent sums it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gateway.config import load
from gateway.shell.carrier.migration import MIGRATION, read_snapshots
from gateway.shell.process.admin import ProcessStatus, build_admin_app
from gateway.shell.process.app import build_app
from gateway.shell.process.lifecycle import LIFECYCLE
from gateway.shell.process.metrics import METRICS
from tests.fakes.agents import FakeAgent
from tests.shell.conftest import GatewayFactory

V10 = {"A2A-Version": "1.0"}
TASK_V10 = {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"}}
SEND_V03 = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": {
    "kind": "message", "messageId": "m1", "role": "user", "parts": [{"kind": "text", "text": "hi"}]}}}
SEND_V10 = {"jsonrpc": "2.0", "id": 2, "method": "SendMessage", "params": {"message": {
    "messageId": "m2", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}}
DEPRECATION = {"migration__deprecation": "2026-06-30", "migration__sunset": "2026-12-31T23:59:59Z",
               "migration__link": "https://example.com/a2a-1.0"}
HEADERS = {"Deprecation": "@1782777600", "Sunset": "Thu, 31 Dec 2026 23:59:59 GMT",
           "Link": '<https://example.com/a2a-1.0>; rel="deprecation"'}


async def _admin(aiohttp_client: Any, gateway: Any) -> Any:
    app = gateway.app
    lc = app[LIFECYCLE]
    return await aiohttp_client(build_admin_app(ProcessStatus(lc.readiness, app[METRICS].render,
                                                              lambda: lc.handled, app[MIGRATION].snapshot)))


async def _agent(fake_agent_factory: Any) -> FakeAgent:
    fake: FakeAgent = await fake_agent_factory("1.0")
    fake.reply_json("SendMessage", {"task": TASK_V10})
    fake.reply_sse("SendStreamingMessage", [{"task": TASK_V10}])
    return fake


async def test_two_named_callers_of_two_versions(fake_agent_factory: Any, gateway_factory: GatewayFactory,
                                                 aiohttp_client: Any) -> None:
    fake = await _agent(fake_agent_factory)
    gw = await gateway_factory(fake.url)
    for _ in range(3):
        resp = await gw.post("/", json=SEND_V03, headers={"User-Agent": "billing-bot/2.1"})
        assert resp.status == 200 and "result" in await resp.json()
    resp = await gw.post("/", json=SEND_V10, headers={**V10, "User-Agent": "ops-console/1.0"})
    assert "result" in await resp.json()
    await gw.get("/.well-known/agent-card.json", headers={"User-Agent": "curl/8"})   # a card read: no version
    admin = await _admin(aiohttp_client, gw)
    data = await (await admin.get("/migration")).json()
    assert data["still_v03"] == ["billing-bot/2.1"]
    callers = {c["caller"]: c for c in data["callers"]}
    assert set(callers) == {"billing-bot/2.1", "ops-console/1.0"}
    bot = callers["billing-bot/2.1"]
    assert (bot["versions"], bot["total"], bot["still_v03"]) == (["0.3"], 3, True)
    assert bot["by"][0]["binding"] == "JSONRPC" and bot["by"][0]["windows"]["1m"] == 3 and bot["last_seen"]
    assert callers["ops-console/1.0"]["versions"] == ["1.0"]
    assert data["totals"] == {"0.3": 3, "1.0": 1}
    agent = data["agents"]["default"]
    assert agent["interfaces"][0]["status"] == "verified" and agent["interfaces"][0]["observed"] == "1.0"
    page = await (await admin.get("/")).text()
    assert "billing-bot/2.1" in page and "ops-console/1.0" in page and "<script" not in page


async def test_a_credential_header_as_caller_header_is_fingerprinted(
        fake_agent_factory: Any, gateway_factory: GatewayFactory, aiohttp_client: Any) -> None:
    fake = await _agent(fake_agent_factory)
    gw = await gateway_factory(fake.url, migration__caller_header="Authorization")
    await gw.post("/", json=SEND_V03, headers={"Authorization": "Bearer s3cr3t-token"})
    text = await (await (await _admin(aiohttp_client, gw)).get("/migration")).text()
    assert "s3cr3t" not in text and "sha256:" in text


async def test_deprecation_headers_reach_v03_callers_only(fake_agent_factory: Any,
                                                          gateway_factory: GatewayFactory) -> None:
    fake = await _agent(fake_agent_factory)
    gw = await gateway_factory(fake.url, **DEPRECATION)
    v03 = await gw.post("/", json=SEND_V03)
    assert {k: v03.headers.get(k) for k in HEADERS} == HEADERS
    v10 = await gw.post("/", json=SEND_V10, headers=V10)
    assert not any(k in v10.headers for k in HEADERS)
    stream = {**SEND_V03, "method": "message/stream"}
    async with gw.post("/", json=stream, headers={"Accept": "text/event-stream"}) as resp:
        assert resp.content_type == "text/event-stream" and resp.headers["Deprecation"] == "@1782777600"
        await resp.read()
    rest = await gw.get("/v1/tasks/t1")   # a v0.3 HTTP+JSON caller, even when the agent answers an error
    assert rest.headers["Sunset"] == HEADERS["Sunset"]
    card = await gw.get("/.well-known/agent-card.json")
    assert "Deprecation" not in card.headers


async def test_past_the_cutoff_v03_callers_get_the_version_error(fake_agent_factory: Any,
                                                                 gateway_factory: GatewayFactory) -> None:
    fake = await _agent(fake_agent_factory)
    gw = await gateway_factory(fake.url, migration__cutoff="2020-01-01", **DEPRECATION)
    resp = await gw.post("/", json=SEND_V03)
    body = await resp.json()
    assert body["id"] == 1 and body["error"]["code"] == -32009, body
    assert "A2A-Version: 1.0" in body["error"]["message"] and resp.headers["Deprecation"] == "@1782777600"
    rest = await gw.post("/v1/message:send", json={"message": {"messageId": "m", "role": "ROLE_USER",
                                                               "content": [{"text": "hi"}]}})
    assert rest.status == 400 and "1.0" in await rest.text()
    assert [r.rpc_method for r in fake.requests if r.rpc_method] == []   # nothing translated upstream
    v10 = await gw.post("/", json=SEND_V10, headers=V10)
    assert "result" in await v10.json()


async def test_a_route_sets_its_own_deprecation(fake_agent_factory: Any, aiohttp_client: Any,
                                                tmp_path: Path) -> None:
    old, new = await _agent(fake_agent_factory), await _agent(fake_agent_factory)
    path = tmp_path / "gateway.toml"
    path.write_text(f"""
[log]
format = "console"
[migration]
deprecation = "2026-06-30"

[[routes]]
name = "billing"
path_prefix = "/billing"
[routes.upstream]
url = "{old.url}"
[routes.migration]
deprecation = "@1700000000"
cutoff = "2020-01-01"

[[routes]]
name = "search"
path_prefix = "/search"
[routes.upstream]
url = "{new.url}"
""", encoding="utf-8")
    gw = await aiohttp_client(build_app(load(path, {})))
    billing = await gw.post("/billing", json=SEND_V03)
    assert billing.headers["Deprecation"] == "@1700000000"
    assert (await billing.json())["error"]["code"] == -32009
    search = await gw.post("/search", json=SEND_V03)
    assert search.headers["Deprecation"] == "@1782777600" and "result" in await search.json()
    admin = await _admin(aiohttp_client, gw)
    ready = await (await admin.get("/readyz")).json()
    assert set(ready["routes"]) == {"billing", "search"} and "upstream" not in ready
    assert ready["routes"]["search"]["interfaces"][0]["status"] == "verified"
    data = await (await admin.get("/migration")).json()
    assert {t["route"] for t in data["traffic"]} == {"billing", "search"}


async def test_a_workers_snapshot_file_is_what_the_parent_sums(fake_agent_factory: Any,
                                                               gateway_factory: GatewayFactory,
                                                               tmp_path: Path) -> None:
    fake = await _agent(fake_agent_factory)
    gw = await gateway_factory(fake.url)
    migration = gw.app[MIGRATION]
    migration.directory = tmp_path
    await gw.post("/", json=SEND_V03, headers={"User-Agent": "billing-bot/2.1"})
    migration.flush()
    (tmp_path / "migration-99999.json").write_text(json.dumps(migration.snapshot()), encoding="utf-8")  # a sibling
    (tmp_path / "migration-1.json").write_text("{not json", encoding="utf-8")   # one being replaced
    summed = read_snapshots(tmp_path)
    assert sum(row["total"] for row in summed["traffic"]) == 2
    assert summed["agents"]["default"]["url"] == fake.url


async def _grpc_v03_get_task(fake_agent_factory: Any, aiohttp_client: Any, **values: str) -> Any:
    """A v0.3 gRPC GetTask through the gateway's gRPC listener: (status code, details, initial metadata)."""
    import grpc

    from gateway.core.bindings.grpc import RPCS
    from gateway.core.types import Version
    from gateway.shell.doors.grpc import GrpcListener

    fake = await fake_agent_factory("1.0")
    fake.reply_json("GetTask", TASK_V10)
    settings = load(None, {}, {"upstream.url": fake.url, "log.format": "console", "grpc.listen": "127.0.0.1:0",
                               **values})
    gw = await aiohttp_client(build_app(settings))
    listener = GrpcListener(gw.app, settings)
    port = await listener.start()
    rpc = next(r for r in RPCS if r.version is Version.V03 and r.op.name == "get_task")
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            call = channel.unary_unary(rpc.path)(rpc.request(name="tasks/t1").SerializeToString())
            code = await call.code()
            return code, await call.details(), dict(await call.initial_metadata() or ())
    finally:
        await listener.stop(0)


async def test_grpc_v03_callers_get_the_deprecation_metadata_and_the_cutoff(fake_agent_factory: Any,
                                                                           aiohttp_client: Any) -> None:
    import grpc

    values = {k.replace("__", "."): v for k, v in DEPRECATION.items()}
    code, _, metadata = await _grpc_v03_get_task(fake_agent_factory, aiohttp_client, **values)
    assert code is grpc.StatusCode.OK and metadata["deprecation"] == "@1782777600"
    assert metadata["link"] == HEADERS["Link"]
    code, details, _ = await _grpc_v03_get_task(fake_agent_factory, aiohttp_client, **values,
                                                **{"migration.cutoff": "2020-01-01"})
    assert code is not grpc.StatusCode.OK and "A2A-Version: 1.0" in details
