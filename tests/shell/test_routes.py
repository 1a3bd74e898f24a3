"""[[routes]]: two fake agents (v0.3 and v1.0) behind one gateway, by path prefix and by Host; cards, AG-UI,
the push webhook and readiness per route; unknown prefixes; config errors naming the route key."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from gateway.config import ConfigError, load
from gateway.shell.process.app import build_app
from gateway.shell.process.lifecycle import LIFECYCLE
from gateway.shell.process.metrics import METRICS
from gateway.shell.push.relay import webhook_base
from tests.fakes.agents import FakeAgent

MSG_RPC03 = {"kind": "message", "messageId": "m1", "role": "user", "parts": [{"kind": "text", "text": "hi"}]}
MSG_V10 = {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}
TASK_V10 = {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_CANCELED"}}
TASK_RPC03 = {"kind": "task", "id": "t1", "contextId": "c1", "status": {"state": "canceled"}}
TASK_REST03 = {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_CANCELLED"}}


def _toml(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "gateway.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _routes_toml(old: FakeAgent, new: FakeAgent, *, by_host: bool = False) -> str:
    billing = 'host = "billing.example"' if by_host else 'path_prefix = "/agents/billing"'
    search = 'host = "Search.Example"' if by_host else 'path_prefix = "/agents/search/"'
    return f"""
[log]
format = "console"

[[routes]]
name = "billing"
{billing}
[routes.upstream]
url = "{old.url}"

[[routes]]
name = "search"
{search}
[routes.upstream]
url = "{new.url}"
[routes.upstream.headers]
X-Route = "search"
"""


async def _gateway(aiohttp_client: Any, path: Path) -> TestClient[Any, Any]:
    client: TestClient[Any, Any] = await aiohttp_client(build_app(load(path, {})),
                                                           server_kwargs={"handler_cancellation": True})
    return client


def _rpc(method: str, params: Any, rpc_id: int = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rpc_id, "method": method, "params": params}


def _calls(fake: FakeAgent) -> list[str]:
    """What the agent was asked, apart from the refresher's card fetches."""
    return [f"{r.method} {r.path}" for r in fake.requests if "well-known" not in r.path]


@pytest.fixture
async def agents(fake_agent_factory: Any) -> tuple[FakeAgent, FakeAgent]:
    return await fake_agent_factory("0.3"), await fake_agent_factory("1.0")


# --- by path prefix ----------------------------------------------------------------------------------


async def test_each_routes_card_points_at_its_prefix(agents, aiohttp_client, tmp_path) -> None:
    old, new = agents
    client = await _gateway(aiohttp_client, _toml(tmp_path, _routes_toml(old, new)))
    base = str(client.make_url("")).rstrip("/")
    card03 = await (await client.get("/agents/billing/.well-known/agent-card.json",
                                     headers={"A2A-Version": "0.3"})).json()
    assert card03["name"] == "fake v0.3 agent"
    assert card03["url"].rstrip("/") == base + "/agents/billing"
    card10 = await (await client.get("/agents/search/.well-known/agent-card.json",
                                     headers={"A2A-Version": "1.0"})).json()
    assert card10["name"] == "fake v1.0 agent"
    urls = {i["url"].rstrip("/") for i in card10["supportedInterfaces"]}
    assert urls == {base + "/agents/search"}


async def test_v03_client_is_translated_to_the_v10_route_and_passed_through_to_the_v03_route(
        agents, aiohttp_client, tmp_path) -> None:
    old, new = agents
    new.reply_json("SendMessage", {"task": TASK_V10})
    old.reply_json("message/send", TASK_RPC03)
    client = await _gateway(aiohttp_client, _toml(tmp_path, _routes_toml(old, new)))

    resp = await client.post("/agents/search", json=_rpc("message/send", {"message": MSG_RPC03}))
    assert resp.status == 200
    assert await resp.json() == {"jsonrpc": "2.0", "id": 1, "result": TASK_RPC03}
    (rec,) = new.calls("SendMessage")
    assert rec.params["message"] == MSG_V10
    assert rec.path == "/" and rec.headers["A2A-Version"] == "1.0" and rec.headers["X-Route"] == "search"

    resp = await client.post("/agents/billing/", json=_rpc("message/send", {"message": MSG_RPC03}, 2))
    assert await resp.json() == {"jsonrpc": "2.0", "id": 2, "result": TASK_RPC03}
    (rec,) = old.calls("message/send")
    assert rec.params == {"message": MSG_RPC03} and "X-Route" not in rec.headers
    assert new.calls("message/send") == [] and old.calls("SendMessage") == []


async def test_rest_paths_are_relative_to_the_route(agents, aiohttp_client, tmp_path) -> None:
    old, new = agents
    new.reply_json("GetTask", TASK_V10)
    client = await _gateway(aiohttp_client, _toml(tmp_path, _routes_toml(old, new)))
    resp = await client.get("/agents/search/v1/tasks/t1")  # a v0.3 REST client
    assert resp.status == 200 and await resp.json() == TASK_REST03
    assert new.calls("GetTask")[0].params == {"id": "t1"}


async def test_an_unknown_prefix_is_a_404_in_the_rest_error_shape(agents, aiohttp_client, tmp_path) -> None:
    old, new = agents
    client = await _gateway(aiohttp_client, _toml(tmp_path, _routes_toml(old, new)))
    for path, headers in [("/agents/nope/v1/tasks/t1", {}), ("/", {"A2A-Version": "1.0"}),
                          ("/agents/billingX/tasks/t1", {"A2A-Version": "1.0"})]:
        resp = await client.get(path, headers=headers)
        assert resp.status == 404, path
        body = await resp.json()
        assert "no route serves" in str(body), (path, body)
    v10 = await (await client.get("/x", headers={"A2A-Version": "1.0"})).json()
    assert v10["error"]["code"] == 404 and v10["error"]["status"] == "NOT_FOUND"
    assert _calls(old) == [] and _calls(new) == []


async def test_agui_and_push_webhook_live_under_the_prefix(agents, aiohttp_client, tmp_path) -> None:
    old, new = agents
    client = await _gateway(aiohttp_client, _toml(tmp_path, _routes_toml(old, new)))
    agui = await client.post("/agents/search/agui", data=b"not json", headers={"Content-Type": "application/json"})
    assert agui.status == 400 and "no route serves" not in await agui.text()
    hook = await client.post("/agents/billing/a2a-push/not-a-seal", json={})
    assert hook.status in (403, 404) and "no route serves" not in await hook.text()
    assert (await client.post("/a2a-push/not-a-seal", json={})).status == 404
    assert _calls(old) == [] and _calls(new) == []


def test_webhook_urls_carry_the_route() -> None:
    settings = load(None, {}, {"upstream.url": "http://agent:1", "server.listen": "0.0.0.0:8080"})
    assert webhook_base(settings) == "http://127.0.0.1:8080"
    assert webhook_base(settings, route_prefix="/agents/b") == "http://127.0.0.1:8080/agents/b"
    public = dataclasses.replace(settings, server=dataclasses.replace(settings.server,
                                                                      public_url="https://gw.example:8443"))
    assert webhook_base(public, route_host="b.example", route_prefix="/x") == "https://b.example:8443/x"


async def test_readiness_waits_for_every_routes_card(agents, aiohttp_client, tmp_path) -> None:
    old, new = agents
    text = _routes_toml(old, new).replace(f'url = "{new.url}"', 'url = "http://127.0.0.1:9"')
    client = await _gateway(aiohttp_client, _toml(tmp_path, text))
    lifecycle = client.app[LIFECYCLE]
    for _ in range(200):
        if lifecycle.routes["billing"].readiness()[0]:
            break
        await asyncio.sleep(0.01)
    ready, reason = lifecycle.readiness()
    assert not ready and reason.startswith("route search: the upstream agent card is not known yet")
    assert lifecycle.routes["billing"].readiness() == (True, "ready")


async def test_readiness_is_ready_when_every_route_is(agents, aiohttp_client, tmp_path) -> None:
    old, new = agents
    client = await _gateway(aiohttp_client, _toml(tmp_path, _routes_toml(old, new)))
    lifecycle = client.app[LIFECYCLE]
    for _ in range(200):
        if lifecycle.readiness()[0]:
            break
        await asyncio.sleep(0.01)
    assert lifecycle.readiness() == (True, "ready")
    lifecycle.draining = True
    assert lifecycle.readiness()[0] is False


# --- by Host -----------------------------------------------------------------------------------------


async def test_routes_by_host(agents, aiohttp_client, tmp_path) -> None:
    old, new = agents
    new.reply_json("SendMessage", {"task": TASK_V10})
    client = await _gateway(aiohttp_client, _toml(tmp_path, _routes_toml(old, new, by_host=True)))
    card = await (await client.get("/.well-known/agent-card.json",
                                   headers={"Host": "BILLING.example:8080", "A2A-Version": "0.3"})).json()
    assert card["name"] == "fake v0.3 agent" and card["url"].rstrip("/") == "http://BILLING.example:8080"
    resp = await client.post("/", json=_rpc("message/send", {"message": MSG_RPC03}),
                             headers={"Host": "search.example"})
    assert await resp.json() == {"jsonrpc": "2.0", "id": 1, "result": TASK_RPC03}
    assert len(new.calls("SendMessage")) == 1
    other = await client.get("/.well-known/agent-card.json", headers={"Host": "other.example"})
    assert other.status == 404


async def test_host_and_prefix_together_and_a_default_route(agents, aiohttp_client, tmp_path) -> None:
    old, new = agents
    text = f"""
[[routes]]
name = "default"
[routes.upstream]
url = "{old.url}"

[[routes]]
name = "search"
host = "search.example"
path_prefix = "/a2a"
[routes.upstream]
url = "{new.url}"
"""
    client = await _gateway(aiohttp_client, _toml(tmp_path, text))
    path = "/a2a/.well-known/agent-card.json"
    assert (await (await client.get(path, headers={"Host": "search.example"})).json())["name"] == "fake v1.0 agent"
    # the same path on another host falls to the default route (whose REST surface has no such path)
    assert (await (await client.get("/.well-known/agent-card.json")).json())["name"] == "fake v0.3 agent"
    assert (await client.get(path)).status == 404


# --- configuration -----------------------------------------------------------------------------------


def test_routes_inherit_the_top_level_sections(tmp_path) -> None:
    settings = load(_toml(tmp_path, """
[upstream]
version = "1.0"
[upstream.timeout]
connect = 3
[quirks]
rest_blocking_default = true

[[routes]]
name = "a"
path_prefix = "/a/"
[routes.upstream]
url = "http://a:1"
version = "0.3"
[routes.upstream.timeout]
first_byte = 7
[routes.quirks]
rpc_blocking_default = false
"""), {})
    (route,) = settings.routes
    assert (route.name, route.path_prefix, route.host) == ("a", "/a", "")
    assert route.upstream.url == "http://a:1" and route.upstream.version == "0.3"
    assert (route.upstream.timeout.connect, route.upstream.timeout.first_byte) == (3.0, 7.0)
    assert route.quirks.rest_blocking_default is True and route.quirks.rpc_blocking_default is False
    assert settings.upstream.url == ""  # not required when routes name their agents


def test_no_routes_is_the_sidecar() -> None:
    assert load(None, {}, {"upstream.url": "http://a:1"}).routes == ()


def test_config_errors_name_the_route_key(tmp_path) -> None:
    with pytest.raises(ConfigError) as info:
        load(_toml(tmp_path, """
[[routes]]
name = "a"
path_prefix = "/a"
[routes.upstream]
url = "http://a:1"

[[routes]]
name = "a"
path_prefix = "/a"
nope = 1
[routes.upstream]
version = "2.0"
[routes.quirks]
not_a_quirk = true

[[routes]]
name = "Bad Name"
host = "x.example:80"
path_prefix = "relative"
[routes.upstream]
url = "ftp://c"
"""), {})
    keys = {p.key for p in info.value.problems}
    assert keys == {"routes[1].name", "routes[1].path_prefix", "routes[1].nope", "routes[1].upstream.version",
                    "routes[1].quirks.not_a_quirk", "routes[1].upstream.url", "routes[2].name",
                    "routes[2].host", "routes[2].path_prefix", "routes[2].upstream.url"}
    assert "routes[1].upstream.url: is required" in str(info.value)


def test_routes_must_be_an_array_of_tables_and_are_not_in_the_environment(tmp_path) -> None:
    with pytest.raises(ConfigError) as info:
        load(_toml(tmp_path, 'routes = "x"\n[upstream]\nurl = "http://a:1"\n'), {})
    assert info.value.key == "routes"
    with pytest.raises(ConfigError) as info:
        load(None, {"A2A_GATEWAY_ROUTES": "x"}, {"upstream.url": "http://a:1"})
    assert info.value.key == "A2A_GATEWAY_ROUTES"


async def test_a_reload_keeps_the_routes(agents, aiohttp_client, tmp_path) -> None:
    old, new = agents
    path = _toml(tmp_path, _routes_toml(old, new))
    client = await _gateway(aiohttp_client, path)
    lifecycle = client.app[LIFECYCLE]
    before = lifecycle.settings
    path.write_text(_routes_toml(new, old) + "\n[limits]\nmax_body_bytes = 1000\n", encoding="utf-8")
    assert lifecycle.reload(lambda: load(path, {}))
    assert lifecycle.settings.routes == before.routes  # restart-only
    billing = lifecycle.routes["billing"]
    assert billing.upstream.settings.url == old.url and billing.settings.upstream.url == old.url
    assert billing.settings.limits.max_body_bytes == 1000  # the other keys reach the routes
    resp = await client.post("/agents/billing", data=b"x" * 2000, headers={"Content-Type": "application/json"})
    assert (await resp.json())["error"]["message"] == "request body larger than 1000 bytes"


async def test_metrics_count_requests_by_route(agents, aiohttp_client, tmp_path) -> None:
    old, new = agents
    new.reply_json("SendMessage", {"task": TASK_V10})
    old.reply_json("message/send", TASK_RPC03)
    client = await _gateway(aiohttp_client, _toml(tmp_path, _routes_toml(old, new)))
    for prefix in ("/agents/search", "/agents/search", "/agents/billing"):
        assert (await client.post(prefix, json=_rpc("message/send", {"message": MSG_RPC03}))).status == 200
    text = client.app[METRICS].render().decode()
    counts = {route: sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
                         if line.startswith("a2a_gateway_requests_total{") and f'route="{route}"' in line)
              for route in ("search", "billing")}
    assert counts == {"search": 2.0, "billing": 1.0}
