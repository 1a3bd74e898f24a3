"""The push relay end to end on loopback: a fake upstream posts to the gateway's webhook, a fake client
webhook receives the translated body with its token and auth; retries, no redirects, refused tokens
and seals, the SSRF policy, backlog, and a second gateway (same key) delivering for the first."""

from __future__ import annotations

import asyncio
import base64
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient

from gateway.config import load
from gateway.core import jsoncodec
from gateway.core.push import Delivery, PushSealer, PushUrlRejected
from gateway.core.types import Version
from gateway.shell.process.keys import SEALER
from gateway.shell.process.metrics import METRICS
from gateway.shell.push.sender import PUSH_SENDER, PushCounter, PushSender
from gateway.shell.push.ssrf import UNRESOLVED, GuardedResolver, check_url, is_blocked_address, parse_ip_literal
from tests.shell.test_metrics import parse, value

KEY = bytes(range(32))
KEY_B64 = base64.b64encode(KEY).decode()
OTHER_KEY_B64 = base64.b64encode(bytes(32)).decode()
LOOPBACK = ["127.0.0.0/8", "::1/128"]

V10_TASK = {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"},
            "artifacts": [{"artifactId": "a1", "parts": [{"text": "hello world"}]}]}
V03_TASK = {"kind": "task", "id": "t1", "contextId": "c1", "status": {"state": "completed"},
            "artifacts": [{"artifactId": "a1", "parts": [{"kind": "text", "text": "hello world"}]}]}
V10_STATUS = {"statusUpdate": {"taskId": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}}


# ---- a fake client webhook ------------------------------------------------------------------------------


@dataclass
class Hit:
    path: str
    headers: dict[str, str]
    body: Any
    at: float


@dataclass
class ClientHook:
    """A client's webhook: records every POST; answers from `statuses` (the last one repeats)."""

    url: str = ""
    hits: list[Hit] = field(default_factory=list)
    statuses: list[int] = field(default_factory=lambda: [200])
    delay: float = 0.0
    arrived: asyncio.Event = field(default_factory=asyncio.Event)

    async def handle(self, request: web.Request) -> web.Response:
        raw = await request.read()
        self.hits.append(Hit(request.path, dict(request.headers), jsoncodec.loads(raw) if raw else None,
                             time.monotonic()))
        self.arrived.set()
        if self.delay:
            await asyncio.sleep(self.delay)
        status = self.statuses.pop(0) if len(self.statuses) > 1 else self.statuses[0]
        headers = {"Location": "/elsewhere"} if 300 <= status < 400 else None
        return web.Response(status=status, headers=headers)

    async def wait(self, count: int = 1, timeout: float = 5.0) -> list[Hit]:
        async with asyncio.timeout(timeout):
            while len(self.hits) < count:
                self.arrived.clear()
                await self.arrived.wait()
        return self.hits


HookFactory = Callable[..., Awaitable[ClientHook]]


@pytest.fixture
def hook_factory(aiohttp_server: Any) -> HookFactory:
    async def make(**options: Any) -> ClientHook:
        hook = ClientHook(**options)
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", hook.handle)
        server = await aiohttp_server(app)
        hook.url = str(server.make_url("/hook"))
        return hook

    return make


# ---- helpers ------------------------------------------------------------------------------------------

GatewayFactory = Callable[..., Awaitable[TestClient[Any, Any]]]


async def gateway(gateway_factory: GatewayFactory, upstream: str, **overrides: Any) -> TestClient[Any, Any]:
    options: dict[str, Any] = {"push__keys": [KEY_B64], "push__allow_networks": LOOPBACK,
                               "push__backoff_seconds": 0.01, **overrides}
    return await gateway_factory(upstream, **options)


def sealer_of(client: TestClient[Any, Any]) -> PushSealer:
    sealer = client.server.app[SEALER]
    assert isinstance(sealer, PushSealer)
    return sealer


def sender_of(client: TestClient[Any, Any]) -> PushSender:
    return client.server.app[PUSH_SENDER]


def register(client: TestClient[Any, Any], url: str, *, version: Version = Version.V03, task_id: str = "t1",
             token: str | None = "client-token", auth: dict[str, str] | None = None) -> tuple[str, str]:
    """What the exchange does at registration; returns (webhook path, upstream token)."""
    cfg: dict[str, Any] = {"id": "cfg-1", "taskId": task_id, "url": url}
    if token is not None:
        cfg["token"] = token
    if auth is not None:
        cfg["authentication"] = auth
    up = sealer_of(client).seal(cfg, client=version, task_id=task_id, base=str(client.make_url("")))
    path = up["url"][len(str(client.make_url("")).rstrip("/")):]
    return path, up["token"]


async def notify(client: TestClient[Any, Any], path: str, body: Any, token: str | None, *,
                 header: str = "X-A2A-Notification-Token") -> int:
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers[header] = f"Bearer {token}" if header == "Authorization" else token
    data = body if isinstance(body, bytes) else jsoncodec.dumpb(body)
    resp = await client.post(path, data=data, headers=headers)
    return resp.status


# ---- delivery ------------------------------------------------------------------------------------------


async def test_v10_task_push_reaches_v03_client_as_v03_task(fake_agent_factory, gateway_factory,
                                                            hook_factory) -> None:
    fake, hook = await fake_agent_factory("1.0"), await hook_factory()
    gw = await gateway(gateway_factory, fake.url)
    path, token = register(gw, hook.url, auth={"scheme": "Bearer", "credentials": "x"})
    assert path.startswith("/a2a-push/")
    assert await notify(gw, path, {"task": V10_TASK}, token) == 200
    (hit,) = await hook.wait()
    assert hit.body == V03_TASK
    assert hit.headers["Content-Type"] == "application/json"
    assert hit.headers["X-A2A-Notification-Token"] == "client-token"
    assert hit.headers["Authorization"] == "Bearer x"
    assert token not in str(hit.headers)


async def test_status_update_fetches_the_task_upstream(fake_agent_factory, gateway_factory,
                                                       hook_factory) -> None:
    fake, hook = await fake_agent_factory("1.0"), await hook_factory()
    fake.reply_json("GetTask", V10_TASK)
    gw = await gateway(gateway_factory, fake.url, upstream__headers={"Authorization": "Bearer gw"})
    path, token = register(gw, hook.url)
    assert await notify(gw, path, V10_STATUS, token) == 200
    (hit,) = await hook.wait()
    assert hit.body == V03_TASK
    (call,) = fake.calls("GetTask")
    assert call.params == {"id": "t1"}
    assert call.headers["A2A-Version"] == "1.0" and call.headers["Authorization"] == "Bearer gw"


async def test_task_fetch_is_retried_on_transport_failure(fake_agent_factory, gateway_factory,
                                                         hook_factory) -> None:
    fake, hook = await fake_agent_factory("1.0"), await hook_factory()
    fake.reply_disconnect("GetTask", mid_body=False).reply_json("GetTask", V10_TASK)
    gw = await gateway(gateway_factory, fake.url)
    path, token = register(gw, hook.url)
    assert await notify(gw, path, V10_STATUS, token) == 200
    (hit,) = await hook.wait()
    assert hit.body == V03_TASK and len(fake.calls("GetTask")) == 2


async def test_task_fetch_error_reply_drops_the_notification(fake_agent_factory, gateway_factory,
                                                             hook_factory) -> None:
    fake, hook = await fake_agent_factory("1.0"), await hook_factory()
    fake.reply_json("GetTask", error={"code": -32001, "message": "Task not found"})
    gw = await gateway(gateway_factory, fake.url)
    sender_of(gw).counter = counter = PushCounter()
    path, token = register(gw, hook.url)
    assert await notify(gw, path, V10_STATUS, token) == 200
    await sender_of(gw).drain()
    assert hook.hits == [] and counter.snapshot()["dropped"] == 1 and len(fake.calls("GetTask")) == 1


async def test_v03_bare_task_reaches_v10_client_as_stream_response(fake_agent_factory, gateway_factory,
                                                                   hook_factory) -> None:
    fake, hook = await fake_agent_factory("0.3"), await hook_factory()
    gw = await gateway(gateway_factory, fake.url)
    path, token = register(gw, hook.url, version=Version.V10, auth={"scheme": "Basic", "credentials": "dTpw"})
    assert await notify(gw, path, V03_TASK, token) == 200
    (hit,) = await hook.wait()
    assert hit.body == {"task": V10_TASK}
    assert hit.headers["Authorization"] == "Basic dTpw"
    assert hit.headers["X-A2A-Notification-Token"] == hit.headers["A2A-Notification-Token"] == "client-token"


async def test_v03_unknown_shape_fetches_tasks_get(fake_agent_factory, gateway_factory, hook_factory) -> None:
    fake, hook = await fake_agent_factory("0.3"), await hook_factory()
    fake.reply_json("tasks/get", {k: v for k, v in V03_TASK.items() if k != "kind"})
    gw = await gateway(gateway_factory, fake.url)
    path, token = register(gw, hook.url, version=Version.V10)
    assert await notify(gw, path, {"taskId": "t1", "progress": 50}, token) == 200
    (hit,) = await hook.wait()
    assert hit.body == {"task": V10_TASK}
    # v1.0's absent historyLength is "no limit": a v0.3 agent is asked for every message
    assert fake.calls("tasks/get")[0].params == {"id": "t1", "historyLength": 2**31 - 1}


async def test_answers_the_upstream_before_delivering(fake_agent_factory, gateway_factory,
                                                      hook_factory) -> None:
    fake, hook = await fake_agent_factory("1.0"), await hook_factory(delay=1.0)
    gw = await gateway(gateway_factory, fake.url)
    path, token = register(gw, hook.url)
    started = time.monotonic()
    assert await notify(gw, path, {"task": V10_TASK}, token) == 200
    assert time.monotonic() - started < 0.5
    await sender_of(gw).drain()
    assert len(hook.hits) == 1


async def test_undeliverable_body_is_dropped_after_2xx(fake_agent_factory, gateway_factory,
                                                       hook_factory) -> None:
    fake, hook = await fake_agent_factory("1.0"), await hook_factory()
    gw = await gateway(gateway_factory, fake.url)
    sender_of(gw).counter = counter = PushCounter()
    path, token = register(gw, hook.url)
    other_task = {"task": {**V10_TASK, "id": "not-t1"}}
    assert await notify(gw, path, other_task, token) == 200
    await sender_of(gw).drain()
    assert hook.hits == [] and counter.snapshot()["dropped"] == 1


# ---- webhook authentication ---------------------------------------------------------------------------


@pytest.mark.parametrize("header", ["X-A2A-Notification-Token", "A2A-Notification-Token", "Authorization"])
async def test_each_token_spelling_is_accepted(fake_agent_factory, gateway_factory, hook_factory,
                                               header: str) -> None:  # case 97
    fake, hook = await fake_agent_factory("1.0"), await hook_factory()
    gw = await gateway(gateway_factory, fake.url)
    path, token = register(gw, hook.url)
    assert await notify(gw, path, {"task": V10_TASK}, token, header=header) == 200
    await hook.wait()


async def test_wrong_or_missing_token_is_refused(fake_agent_factory, gateway_factory, hook_factory) -> None:
    fake, hook = await fake_agent_factory("1.0"), await hook_factory()
    gw = await gateway(gateway_factory, fake.url)
    path, token = register(gw, hook.url)
    _, other_token = register(gw, hook.url, task_id="t2")
    assert await notify(gw, path, {"task": V10_TASK}, None) == 401
    altered = token[:-1] + ("x" if token[-1] != "x" else "y")  # always a different token
    assert await notify(gw, path, {"task": V10_TASK}, altered) == 403
    assert await notify(gw, path, {"task": V10_TASK}, other_token) == 403  # another registration's token
    assert await notify(gw, path, {"task": V10_TASK}, "client-token") == 403  # the client's own token
    await sender_of(gw).drain()
    assert hook.hits == []


async def test_tampered_and_foreign_seals_are_refused_without_detail(fake_agent_factory, gateway_factory,
                                                                     hook_factory) -> None:
    fake, hook = await fake_agent_factory("1.0"), await hook_factory()
    gw = await gateway(gateway_factory, fake.url)
    path, token = register(gw, hook.url)
    flipped = path[:-5] + ("A" if path[-5] != "A" else "B") + path[-4:]
    resp = await gw.post(flipped, data=b"{}", headers={"X-A2A-Notification-Token": token})
    assert resp.status == 403 and await resp.read() == b""
    foreign = await gateway(gateway_factory, fake.url, push__keys=[OTHER_KEY_B64])
    assert await notify(foreign, path, {"task": V10_TASK}, token) == 404
    assert await notify(gw, "/a2a-push/not-a-seal", {"task": V10_TASK}, token) == 404
    await asyncio.sleep(0.05)
    assert hook.hits == []


async def test_body_bounds(fake_agent_factory, gateway_factory, hook_factory) -> None:
    fake, hook = await fake_agent_factory("1.0"), await hook_factory()
    gw = await gateway(gateway_factory, fake.url, push__max_body_bytes=200)
    path, token = register(gw, hook.url)
    assert await notify(gw, path, {"task": {**V10_TASK, "metadata": {"pad": "x" * 300}}}, token) == 413
    assert await notify(gw, path, b"{not json", token) == 400
    assert hook.hits == []


# ---- the sender: retries, redirects, outcomes -------------------------------------------------------------


async def test_retries_on_503_then_delivers(fake_agent_factory, gateway_factory, hook_factory) -> None:
    fake, hook = await fake_agent_factory("1.0"), await hook_factory(statuses=[503, 503, 200])
    gw = await gateway(gateway_factory, fake.url)
    sender_of(gw).counter = counter = PushCounter()
    path, token = register(gw, hook.url)
    assert await notify(gw, path, {"task": V10_TASK}, token) == 200
    await sender_of(gw).drain()
    assert len(hook.hits) == 3 and all(h.body == V03_TASK for h in hook.hits)
    assert counter.snapshot() == {"received": 1, "retry": 2, "delivered": 1}


async def test_attempts_are_bounded(fake_agent_factory, gateway_factory, hook_factory) -> None:
    fake, hook = await fake_agent_factory("1.0"), await hook_factory(statuses=[500])
    gw = await gateway(gateway_factory, fake.url, push__max_attempts=3)
    sender_of(gw).counter = counter = PushCounter()
    path, token = register(gw, hook.url)
    await notify(gw, path, {"task": V10_TASK}, token)
    await sender_of(gw).drain()
    assert len(hook.hits) == 3 and counter.snapshot()["failed"] == 1


async def test_timeouts_are_retried(fake_agent_factory, gateway_factory, hook_factory) -> None:
    fake, hook = await fake_agent_factory("1.0"), await hook_factory(delay=1.0)
    gw = await gateway(gateway_factory, fake.url, push__max_attempts=2, push__timeout_seconds=0.2)
    sender_of(gw).counter = counter = PushCounter()
    path, token = register(gw, hook.url)
    await notify(gw, path, {"task": V10_TASK}, token)
    await sender_of(gw).drain()
    assert len(hook.hits) == 2 and counter.snapshot()["failed"] == 1


@pytest.mark.parametrize(("status", "outcome"), [(307, "redirect"), (302, "redirect"), (400, "rejected"),
                                                 (401, "rejected")])
async def test_redirects_and_client_errors_are_final(fake_agent_factory, gateway_factory, hook_factory,
                                                     status: int, outcome: str) -> None:
    fake, hook = await fake_agent_factory("1.0"), await hook_factory(statuses=[status])
    gw = await gateway(gateway_factory, fake.url)
    sender_of(gw).counter = counter = PushCounter()
    path, token = register(gw, hook.url)
    await notify(gw, path, {"task": V10_TASK}, token)
    await sender_of(gw).drain()
    assert [h.path for h in hook.hits] == ["/hook"]  # /elsewhere never called
    assert counter.snapshot()[outcome] == 1


async def test_backlog_is_bounded() -> None:
    settings = load(None, {}, {"upstream.url": "http://127.0.0.1:9"}).push
    sender = PushSender(settings, counter=PushCounter(), backlog=1)
    release = asyncio.Event()
    assert sender.submit(release.wait()) is True
    assert sender.submit(release.wait()) is False
    assert sender.counter.snapshot() == {"overloaded": 1}
    release.set()
    await sender.drain()


# ---- SSRF ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("url", [
    "http://127.0.0.1/h", "http://localhost/h", "http://10.0.0.8/h", "http://192.168.1.1/h",
    "http://172.16.3.4/h", "http://169.254.169.254/latest/meta-data", "http://[fd00:ec2::254]/",
    "http://[::1]/h", "http://[::ffff:127.0.0.1]/h", "http://[fe80::1]/h", "http://[fc00::5]/h",
    "http://2130706433/h", "http://0x7f.0.0.1/h", "http://0177.0.0.1/h", "http://127.1/h",
    "http://0.0.0.0/h", "http://224.0.0.1/h", "http://100.64.0.1/h", "http://240.0.0.1/h",
    "ftp://example.com/h", "file:///etc/passwd", "http:///nohost",
])
async def test_blocked_urls_are_refused(url: str) -> None:  # case 100
    with pytest.raises(PushUrlRejected, match="push notification URL not allowed") as info:
        await check_url(url, [])
    assert info.value.jsonrpc_code == -32602


async def test_names_are_judged_by_every_address_they_resolve_to() -> None:
    async def rebinding(host: str, port: int) -> list[str]:
        return ["93.184.216.34", "10.0.0.1"]

    async def public(host: str, port: int) -> list[str]:
        return ["93.184.216.34", "2606:4700::1111"]

    async def failing(host: str, port: int) -> list[str]:
        raise OSError("NXDOMAIN")

    async def nothing(host: str, port: int) -> list[str]:
        return []

    with pytest.raises(PushUrlRejected, match="resolves to a private address"):
        await check_url("https://hooks.example/h", [], resolve=rebinding)
    assert await check_url("https://hooks.example/h", [], resolve=public) is None
    # a name that does not resolve now is not certainly blocked: accepted, noted, judged at delivery
    for resolve in (failing, nothing):
        note = await check_url("https://hooks.example/h", [], resolve=resolve, at="$.params.x")
        assert note is not None and (note.code, note.path) == (UNRESOLVED, "$.params.x")
        assert "hooks.example does not resolve now" in note.detail


async def test_allow_list_admits_loopback() -> None:
    import ipaddress

    allow = [ipaddress.ip_network(n) for n in LOOPBACK]
    for url in ("http://127.0.0.1:8/h", "http://[::1]/h", "http://localhost/h", "http://2130706433/h"):
        await check_url(url, allow)
    with pytest.raises(PushUrlRejected):
        await check_url("http://10.0.0.1/h", allow)


def test_literal_spellings_and_the_sync_helper() -> None:
    assert str(parse_ip_literal("0x7f000001")) == str(parse_ip_literal("017700000001")) == "127.0.0.1"
    assert str(parse_ip_literal("[::ffff:a9fe:a9fe]")) == "::ffff:a9fe:a9fe"
    assert parse_ip_literal("example.com") is None and parse_ip_literal("1.2.3.4.5") is None
    assert is_blocked_address("::ffff:169.254.169.254") and is_blocked_address("2002:a00:1::")
    assert not is_blocked_address("8.8.8.8") and not is_blocked_address("64:ff9b::808:808")
    assert is_blocked_address("64:ff9b::a00:1")  # NAT64 of 10.0.0.1


async def test_registration_check_of_the_apps_sealer(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("1.0")
    strict = await gateway(gateway_factory, fake.url, push__allow_networks=[])
    with pytest.raises(PushUrlRejected):
        await strict.server.app[SEALER].check_url("http://127.0.0.1:1/h")  # type: ignore[attr-defined]
    lenient = await gateway(gateway_factory, fake.url)
    await lenient.server.app[SEALER].check_url("http://127.0.0.1:1/h")  # type: ignore[attr-defined]


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
async def test_delivery_rechecks_the_address(fake_agent_factory, gateway_factory, hook_factory,
                                             host: str) -> None:
    fake, hook = await fake_agent_factory("1.0"), await hook_factory()
    gw = await gateway(gateway_factory, fake.url, push__allow_networks=[])  # registered elsewhere, say
    sender_of(gw).counter = counter = PushCounter()
    path, token = register(gw, hook.url.replace("127.0.0.1", host))
    assert await notify(gw, path, {"task": V10_TASK}, token) == 200
    await sender_of(gw).drain()
    assert hook.hits == [] and counter.snapshot()["refused"] == 1


async def test_guarded_resolver_refuses_rebound_names() -> None:
    class Rebinding(aiohttp.abc.AbstractResolver):
        async def resolve(self, host: str, port: int = 0, family: Any = 0) -> list[Any]:
            return [{"hostname": host, "host": "10.1.2.3", "port": port, "family": 2, "proto": 0, "flags": 0}]

        async def close(self) -> None:
            return None

    connector = aiohttp.TCPConnector(resolver=GuardedResolver([], Rebinding()))
    async with aiohttp.ClientSession(connector=connector) as session:
        with pytest.raises(aiohttp.ClientConnectorError) as info:
            await session.post("http://hooks.example/h", data=b"{}")
    assert "private" in str(info.value.os_error)


# ---- statelessness: another replica delivers --------------------------------------------------------------


async def test_second_gateway_with_the_same_key_delivers(fake_agent_factory, gateway_factory,
                                                         hook_factory) -> None:
    fake, hook = await fake_agent_factory("1.0"), await hook_factory()
    fake.reply_json("GetTask", V10_TASK)
    first = await gateway(gateway_factory, fake.url)
    second = await gateway(gateway_factory, fake.url)
    path, token = register(first, hook.url, auth={"scheme": "Bearer", "credentials": "x"})
    assert await notify(second, path, V10_STATUS, token) == 200  # the agent's POST lands on the other replica
    (hit,) = await hook.wait()
    assert hit.body == V03_TASK and hit.headers["Authorization"] == "Bearer x"
    assert sender_of(first).pending == 0  # nothing ran on the replica that registered it


async def test_sender_direct_delivery_outcome() -> None:
    """The sender alone (as the bench uses it): refuses a literal blocked address before any I/O."""
    settings = load(None, {}, {"upstream.url": "http://127.0.0.1:9"}).push
    sender = PushSender(settings, counter=PushCounter())
    await sender.start()
    try:
        outcome = await sender.deliver(Delivery("http://169.254.169.254/x", {}, b"{}"))
    finally:
        await sender.close()
    assert outcome == "refused"


async def test_disabled_relay_has_no_webhook(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("1.0")
    gw = await gateway(gateway_factory, fake.url, push__enabled=False)
    assert SEALER not in gw.server.app
    resp = await gw.post("/a2a-push/abc", data=b"{}")
    assert resp.status != 200


# ---- through the JSON-RPC exchange (registration and reading back) ------------------------------------


async def rpc(client: TestClient[Any, Any], method: str, params: Any, version: str | None = None) -> Any:
    headers = {"Content-Type": "application/json", **({"A2A-Version": version} if version else {})}
    resp = await client.post("/", data=jsoncodec.dumpb({"jsonrpc": "2.0", "id": 1, "method": method,
                                                        "params": params}), headers=headers)
    return await resp.json()


def webhook_path(url: str) -> str:
    return url[url.index("/a2a-push/"):]


async def test_v03_set_get_list_and_delivery_through_the_exchange(fake_agent_factory, gateway_factory,
                                                                  hook_factory) -> None:  # cases 91, 92
    fake, hook = await fake_agent_factory("1.0"), await hook_factory()
    gw = await gateway(gateway_factory, fake.url)
    inner = {"id": "cfg-1", "url": hook.url, "token": "T",
             "authentication": {"schemes": ["Bearer"], "credentials": "x"}}
    fake.reply_json("CreateTaskPushNotificationConfig", None)  # replaced below by what it received
    await rpc(gw, "tasks/pushNotificationConfig/set", {"taskId": "t1", "pushNotificationConfig": inner})
    (created,) = fake.calls("CreateTaskPushNotificationConfig")
    up = created.params
    assert hook.url not in str(up) and up["token"] != "T" and "authentication" not in up
    assert "/a2a-push/" in up["url"]
    fake.reply_json("GetTaskPushNotificationConfig", up)
    fake.reply_json("ListTaskPushNotificationConfigs", {"configs": [up], "nextPageToken": ""})
    got = await rpc(gw, "tasks/pushNotificationConfig/get", {"id": "t1", "pushNotificationConfigId": "cfg-1"})
    assert got["result"] == {"taskId": "t1", "pushNotificationConfig": inner}
    listed = await rpc(gw, "tasks/pushNotificationConfig/list", {"id": "t1"})
    assert listed["result"] == [{"taskId": "t1", "pushNotificationConfig": inner}]
    # the agent posts a v1.0 event to the URL it was given; the client gets the v0.3 Task
    fake.reply_json("GetTask", V10_TASK)
    assert await notify(gw, webhook_path(up["url"]), V10_STATUS, up["token"]) == 200
    (hit,) = await hook.wait()
    assert hit.body == V03_TASK
    assert hit.headers["X-A2A-Notification-Token"] == "T" and hit.headers["Authorization"] == "Bearer x"


async def test_inline_push_config_in_send_is_sealed_too(fake_agent_factory, gateway_factory,
                                                        hook_factory) -> None:  # case 98
    fake, hook = await fake_agent_factory("1.0"), await hook_factory()
    fake.reply_json("SendMessage", {"task": V10_TASK})
    gw = await gateway(gateway_factory, fake.url)
    message = {"kind": "message", "messageId": "m1", "role": "user",
               "parts": [{"kind": "text", "text": "hi"}]}
    await rpc(gw, "message/send", {"message": message, "configuration": {
        "pushNotificationConfig": {"url": hook.url, "token": "T"}}})
    (sent,) = fake.calls("SendMessage")
    cfg = sent.params["configuration"]["taskPushNotificationConfig"]
    assert "/a2a-push/" in cfg["url"] and cfg["token"] != "T"
    assert await notify(gw, webhook_path(cfg["url"]), {"task": V10_TASK}, cfg["token"]) == 200
    (hit,) = await hook.wait()
    assert hit.body == V03_TASK and hit.headers["X-A2A-Notification-Token"] == "T"


async def test_v10_client_registration_on_v03_agent(fake_agent_factory, gateway_factory,
                                                    hook_factory) -> None:
    fake, hook = await fake_agent_factory("0.3"), await hook_factory()
    gw = await gateway(gateway_factory, fake.url)
    cfg = {"taskId": "t1", "id": "cfg-1", "url": hook.url, "token": "T",
           "authentication": {"scheme": "Bearer", "credentials": "x"}}
    fake.reply_json("tasks/pushNotificationConfig/set", None)
    await rpc(gw, "CreateTaskPushNotificationConfig", cfg, version="1.0")
    (created,) = fake.calls("tasks/pushNotificationConfig/set")
    up = created.params["pushNotificationConfig"]
    assert "/a2a-push/" in up["url"] and "authentication" not in up
    fake.reply_json("tasks/pushNotificationConfig/get", created.params)
    got = await rpc(gw, "GetTaskPushNotificationConfig", {"taskId": "t1", "id": "cfg-1"}, version="1.0")
    assert got["result"] == cfg
    assert await notify(gw, webhook_path(up["url"]), V03_TASK, up["token"]) == 200
    (hit,) = await hook.wait()
    assert hit.body == {"task": V10_TASK} and hit.headers["Authorization"] == "Bearer x"


@pytest.mark.parametrize("url", ["http://127.0.0.1:9/h", "http://169.254.169.254/h", "http://2130706433/h"])
async def test_blocked_webhook_is_refused_at_registration(fake_agent_factory, gateway_factory,
                                                          url: str) -> None:  # case 100
    fake = await fake_agent_factory("1.0")
    gw = await gateway(gateway_factory, fake.url, push__allow_networks=[])
    reply = await rpc(gw, "tasks/pushNotificationConfig/set",
                      {"taskId": "t1", "pushNotificationConfig": {"url": url}})
    assert reply["error"]["code"] == -32602
    assert reply["error"]["message"].startswith("push notification URL not allowed")
    assert fake.calls("CreateTaskPushNotificationConfig") == []


async def test_a_webhook_whose_host_does_not_resolve_is_registered_with_a_note(fake_agent_factory,
                                                                               gateway_factory) -> None:
    # the conformance suites register public names such as https://example.com/webhook, and DNS may be
    # down or absent: only a certainly blocked URL is refused; this one is judged again at delivery
    fake = await fake_agent_factory("1.0")
    gw = await gateway(gateway_factory, fake.url, push__allow_networks=[])
    inner = {"id": "cfg-1", "url": "https://hooks.invalid/webhook", "token": "T"}   # .invalid never resolves
    fake.reply_json("CreateTaskPushNotificationConfig", None)  # (its reply is beside the point)
    reply = await rpc(gw, "tasks/pushNotificationConfig/set", {"taskId": "t1", "pushNotificationConfig": inner})
    assert reply.get("error", {}).get("code") != -32602   # not refused: registered upstream
    (created,) = fake.calls("CreateTaskPushNotificationConfig")
    assert "/a2a-push/" in created.params["url"]
    m = parse(gw.server.app[METRICS].render().decode())
    assert value(m, "a2a_gateway_translation_notes_total", code=UNRESOLVED) == 1
