"""The edge on every door (JSON-RPC, HTTP+JSON of both versions, AG-UI, gRPC of both versions): callers allowed,
refused (401/403 with WWW-Authenticate; gRPC UNAUTHENTICATED/PERMISSION_DENIED) and limited (429 with Retry-After;
gRPC RESOURCE_EXHAUSTED), each in its own error shape with its request id;
JWT bearer tokens against a JWKS served on loopback, API keys, credentials forwarded or not, stream slots
and budgets, a route with its own [auth]; the public card stays public."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import grpc
import jwt
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient
from cryptography.hazmat.primitives.asymmetric import ec
from google.rpc import error_details_pb2, status_pb2
from jwt.algorithms import ECAlgorithm

from gateway.config import load
from gateway.core.bindings.grpc import DETAILS_KEY, message_class
from gateway.core.types import Version
from gateway.shell.process.app import build_app
from tests.core.agui.helpers import body, user
from tests.fakes.agents import FakeAgent
from tests.shell.conftest import GatewayFactory, send_request

KEY = ec.generate_private_key(ec.SECP256R1())
ISSUER, AUDIENCE = "https://issuer.test", "a2a-gateway"
TASK = {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"}}
V10_SEND = {"jsonrpc": "2.0", "id": 7, "method": "SendMessage", "params": {"message": {
    "messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}}
V03_SEND = {"jsonrpc": "2.0", "id": "x9", "method": "message/send", "params": {"message": {
    "kind": "message", "messageId": "m1", "role": "user", "parts": [{"kind": "text", "text": "hi"}]}}}
V10_STREAM = {**V10_SEND, "method": "SendStreamingMessage"}


def token(**claims: Any) -> str:
    base = {"sub": "alice", "iss": ISSUER, "aud": AUDIENCE, "exp": int(time.time()) + 300}
    return jwt.encode({**base, **claims}, KEY, algorithm="ES256", headers={"kid": "k1"})


def bearer(**claims: Any) -> dict[str, str]:
    return {"Authorization": "Bearer " + token(**claims)}


@pytest.fixture
async def jwks_url(aiohttp_server: Any) -> str:
    jwk = {**ECAlgorithm.to_jwk(KEY.public_key(), as_dict=True), "kid": "k1", "alg": "ES256"}

    async def serve(request: web.Request) -> web.Response:
        return web.json_response({"keys": [jwk]})
    app = web.Application()
    app.router.add_get("/jwks", serve)
    server = await aiohttp_server(app)
    return str(server.make_url("/jwks"))


@pytest.fixture
async def agent(fake_agent_factory: Any) -> FakeAgent:
    fake: FakeAgent = await fake_agent_factory("1.0")
    fake.reply_json("SendMessage", {"task": TASK})
    fake.reply_json("GET /tasks/t1", TASK)
    fake.reply_json("GetTask", TASK)   # a v0.3 REST caller's GetTask, translated
    return fake


async def _rpc(client: TestClient[Any, Any], payload: dict[str, Any], **headers: str) -> tuple[int, Any, Any]:
    async with client.post("/", json=payload, headers={"A2A-Version": "1.0" if "Send" in payload["method"]
                                                       else "0.3", **headers}) as resp:
        return resp.status, await resp.json(), resp.headers


async def test_jsonrpc_door_jwt(agent: FakeAgent, jwks_url: str, gateway_factory: GatewayFactory) -> None:
    gw = await gateway_factory(agent.url, auth__jwks_url=jwks_url, auth__issuer=ISSUER, auth__audience=AUDIENCE)
    status, reply, headers = await _rpc(gw, V10_SEND)
    assert status == 401 and reply["id"] == 7 and reply["error"]["code"] == -32098, reply
    assert headers["WWW-Authenticate"] == 'Bearer realm="a2a-gateway"'
    status, reply, _ = await _rpc(gw, V03_SEND)   # a v0.3 caller: its own shape and id
    assert status == 401 and reply["id"] == "x9" and reply["error"]["code"] == -32098
    status, reply, _ = await _rpc(gw, V10_SEND, **bearer())
    assert status == 200 and reply["result"]["task"]["id"] == "t1", reply
    assert agent.requests[-1].headers["Authorization"].startswith("Bearer ")   # forwarded by default
    status, reply, headers = await _rpc(gw, V10_SEND, **bearer(aud="someone-else"))
    assert status == 403 and reply["error"]["code"] == -32097 and "insufficient_scope" in headers["WWW-Authenticate"]
    status, reply, headers = await _rpc(gw, V10_SEND, **bearer(exp=int(time.time()) - 100))
    assert status == 401 and 'error="invalid_token"' in headers["WWW-Authenticate"] and "expired" in str(reply)
    forged = token()[:-4] + ("AAAA" if not token().endswith("AAAA") else "BBBB")
    assert (await _rpc(gw, V10_SEND, Authorization="Bearer " + forged))[0] == 401
    async with gw.get("/.well-known/agent-card.json") as resp:   # the public card needs nothing
        assert resp.status == 200


async def test_credentials_not_forwarded(agent: FakeAgent, gateway_factory: GatewayFactory) -> None:
    gw = await gateway_factory(agent.url, auth__api_keys=("bob:s3cret",), auth__forward_credentials=False)
    status, reply, _ = await _rpc(gw, V10_SEND, **{"X-API-Key": "s3cret", "Authorization": "Basic eA=="})
    assert status == 200, reply
    seen = agent.requests[-1].headers
    assert "X-API-Key" not in seen and "Authorization" not in seen
    agent.reply_sse("SendStreamingMessage", [{"task": TASK}])
    status, _, raw = await _agui(gw, **{"X-API-Key": "s3cret", "Authorization": "Basic eA=="})   # AG-UI too
    assert status == 200 and b"RUN_FINISHED" in raw, raw
    seen = agent.calls("SendStreamingMessage")[-1].headers
    assert "X-API-Key" not in seen and "Authorization" not in seen


@pytest.mark.parametrize("path,version", [("/tasks/t1", "1.0"), ("/v1/tasks/t1", "0.3")])
async def test_rest_doors_api_keys(agent: FakeAgent, gateway_factory: GatewayFactory, tmp_path: Any,
                                   path: str, version: str) -> None:
    keys = tmp_path / "keys"
    keys.write_text("# callers\nalice:k-alice\nk-bare  # a key with no name\n")
    gw = await gateway_factory(agent.url, auth__api_keys_file=str(keys))
    async with gw.get(path, headers={"A2A-Version": version}) as resp:
        assert resp.status == 401 and resp.headers["WWW-Authenticate"].startswith("ApiKey ")
        refused = await resp.json()
    if version == "1.0":
        assert refused["error"]["code"] == 401 and refused["error"]["status"] == "UNAUTHENTICATED", refused
        assert refused["error"]["details"][0]["reason"] == "UNAUTHENTICATED"
    else:
        assert refused["code"] == -32098, refused
    async with gw.get(path, headers={"A2A-Version": version, "X-API-Key": "wrong"}) as resp:
        assert resp.status == 401
    for key in ("k-alice", "k-bare"):
        async with gw.get(path, headers={"A2A-Version": version, "X-API-Key": key}) as resp:
            assert resp.status == 200, await resp.text()


async def _agui(client: TestClient[Any, Any], **headers: str) -> tuple[int, Any, bytes]:
    data = json.dumps(body(user("go"))).encode()
    async with client.post("/agui", data=data, headers={"Content-Type": "application/json",
                                                        "Accept": "text/event-stream", **headers}) as resp:
        return resp.status, resp.headers, await resp.read()


async def test_agui_door(fake_agent_factory: Any, jwks_url: str, gateway_factory: GatewayFactory) -> None:
    fake: FakeAgent = await fake_agent_factory("1.0")
    fake.reply_sse("SendStreamingMessage", [{"task": TASK}])
    gw = await gateway_factory(fake.url, auth__jwks_url=jwks_url, auth__audience=AUDIENCE,
                               callers__requests_per_second=0.01, callers__burst=2)
    status, headers, raw = await _agui(gw)
    assert status == 401 and "Bearer" in headers["WWW-Authenticate"]
    assert json.loads(raw)["error"]["code"] == "agui.unauthenticated"
    for _ in range(2):
        status, _, raw = await _agui(gw, **bearer())
        assert status == 200 and b"RUN_FINISHED" in raw, raw
    status, headers, raw = await _agui(gw, **bearer())   # alice's burst is spent
    assert status == 429 and int(headers["Retry-After"]) >= 1
    assert json.loads(raw)["error"]["code"] == "agui.rate_limited"
    status, _, _ = await _agui(gw, **bearer(sub="carol"))   # another subject, another bucket
    assert status == 200


async def test_rate_limits_per_caller_on_each_door(agent: FakeAgent, gateway_factory: GatewayFactory) -> None:
    gw = await gateway_factory(agent.url, callers__requests_per_second=0.01, callers__burst=1)
    assert (await _rpc(gw, V10_SEND, **{"User-Agent": "a"}))[0] == 200
    status, reply, headers = await _rpc(gw, V10_SEND, **{"User-Agent": "a"})
    assert status == 429 and reply["id"] == 7 and reply["error"]["code"] == -32096 and headers["Retry-After"]
    async with gw.get("/tasks/t1", headers={"User-Agent": "a"}) as resp:   # the same caller on REST
        assert resp.status == 429 and (await resp.json())["error"]["status"] == "RESOURCE_EXHAUSTED"
    assert (await _rpc(gw, V10_SEND, **{"User-Agent": "b"}))[0] == 200   # callers are apart
    async with gw.get("/.well-known/agent-card.json", headers={"User-Agent": "a"}) as resp:
        assert resp.status == 200   # the card is never limited


async def test_stream_slots_and_budgets(fake_agent_factory: Any, gateway_factory: GatewayFactory) -> None:
    fake: FakeAgent = await fake_agent_factory("1.0")
    working = {**TASK, "status": {"state": "TASK_STATE_WORKING"}}   # not final: the stream goes on
    events = [{"task": working}] + [{"statusUpdate": {"taskId": "t1", "contextId": "c1",
                                                   "status": {"state": "TASK_STATE_WORKING"}}}] * 40
    fake.reply_sse("SendStreamingMessage", events, delay=0.05)
    gw = await gateway_factory(fake.url, callers__max_streams=1, callers__max_stream_bytes=600)
    headers = {"A2A-Version": "1.0", "User-Agent": "s", "Accept": "text/event-stream"}
    async with gw.post("/", json=V10_STREAM, headers=headers) as first:
        assert first.status == 200
        head = await first.content.readline()
        status, reply, _ = await _rpc(gw, V10_STREAM, **{"User-Agent": "s"})
        assert status == 429 and reply["error"]["code"] == -32096 and "max_streams" in reply["error"]["message"]
        async with gw.post("/", json=V10_STREAM, headers={**headers, "User-Agent": "t"}) as other:
            assert other.status == 200   # another caller's slot
            other.close()
        streamed = head + await asyncio.wait_for(first.read(), 5)
    assert streamed.endswith(b": draining\n\n") and 600 <= len(streamed) < 1200, streamed   # the byte budget
    async with gw.post("/", json=V10_STREAM, headers=headers) as again:   # the slot came back
        assert again.status == 200
    slow = await gateway_factory(fake.url, callers__max_stream_seconds=0.3)
    started = time.monotonic()
    async with slow.post("/", json=V10_STREAM, headers=headers) as resp:
        streamed = await asyncio.wait_for(resp.read(), 5)
    assert streamed.endswith(b": draining\n\n") and time.monotonic() - started < 1.5   # 41 events take 2 s


async def test_a_route_with_its_own_auth(agent: FakeAgent, aiohttp_client: Any, tmp_path: Any) -> None:
    config = tmp_path / "gateway.toml"
    config.write_text(f'''[upstream]
url = "{agent.url}"
[[routes]]
name = "open"
path_prefix = "/open"
[routes.upstream]
url = "{agent.url}"
[[routes]]
name = "locked"
path_prefix = "/locked"
[routes.upstream]
url = "{agent.url}"
[routes.auth]
api_keys = ["k"]
''')
    gw = await aiohttp_client(build_app(load(config, {}, {})))
    assert (await gw.post("/open/", json=V10_SEND, headers={"A2A-Version": "1.0"})).status == 200
    assert (await gw.post("/locked/", json=V10_SEND, headers={"A2A-Version": "1.0"})).status == 401
    assert (await gw.post("/locked/", json=V10_SEND, headers={"A2A-Version": "1.0", "X-API-Key": "k"})).status == 200


# door → (how to call it, the refusal's code in its body for 401, 403, 429)
DOORS: dict[str, tuple[str, str, Any, str, tuple[Any, Any, Any]]] = {
    "jsonrpc-v1.0": ("POST", "/", V10_SEND, "1.0", (-32098, -32097, -32096)),
    "jsonrpc-v0.3": ("POST", "/", V03_SEND, "0.3", (-32098, -32097, -32096)),
    "rest-v1.0": ("GET", "/tasks/t1", None, "1.0", ("UNAUTHENTICATED", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED")),
    "rest-v0.3": ("GET", "/v1/tasks/t1", None, "0.3", (-32098, -32097, -32096)),
    "agui": ("POST", "/agui", body(user("go")), "", ("agui.unauthenticated", "agui.permission_denied",
                                                     "agui.rate_limited")),
}


def _refusal_code(door: str, reply: Any) -> Any:
    if door.startswith("jsonrpc"):
        assert reply["id"] == DOORS[door][2]["id"]   # the caller's own request id
        return reply["error"]["code"]
    if door == "rest-v1.0":
        return reply["error"]["status"]
    return reply["code"] if door == "rest-v0.3" else reply["error"]["code"]


@pytest.mark.parametrize("door", sorted(DOORS))
async def test_every_door_allows_refuses_and_limits(door: str, agent: FakeAgent, jwks_url: str,
                                                    gateway_factory: GatewayFactory) -> None:
    agent.reply_sse("SendStreamingMessage", [{"task": TASK}])
    gw = await gateway_factory(agent.url, auth__jwks_url=jwks_url, auth__audience=AUDIENCE,
                               callers__requests_per_second=0.01, callers__burst=1)
    method, path, payload, version, codes = DOORS[door]

    async def call(**headers: str) -> tuple[int, Any, bytes]:
        hdrs = {"Content-Type": "application/json", **({"A2A-Version": version} if version else {}), **headers}
        async with gw.request(method, path, json=payload, headers=hdrs) as resp:
            return resp.status, resp.headers, await resp.read()

    for status, want, headers in ((401, codes[0], {}), (403, codes[1], bearer(aud="other"))):
        got, hdrs, raw = await call(**headers)
        assert got == status and "Bearer" in hdrs["WWW-Authenticate"], raw
        assert _refusal_code(door, json.loads(raw)) == want
    got, _, raw = await call(**bearer(sub=door))
    assert got == 200, raw
    got, hdrs, raw = await call(**bearer(sub=door))   # the burst of one is spent
    assert got == 429 and int(hdrs["Retry-After"]) >= 1 and _refusal_code(door, json.loads(raw)) == codes[2]


# the gRPC door of each version: SendMessage's and SendStreamingMessage's paths
GRPC_DOORS: dict[str, tuple[Version, str, str]] = {
    "grpc-v1.0": (Version.V10, "/lf.a2a.v1.A2AService/SendMessage", "/lf.a2a.v1.A2AService/SendStreamingMessage"),
    "grpc-v0.3": (Version.V03, "/a2a.v1.A2AService/SendMessage", "/a2a.v1.A2AService/SendStreamingMessage"),
}


def _metadata(headers: dict[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple((k.lower(), v) for k, v in headers.items())


async def _grpc_refusal(call: Any) -> tuple[grpc.aio.AioRpcError, dict[str, Any], str]:
    """The refused call's error, its trailing metadata and its ErrorInfo reason."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    err = caught.value
    trailer = dict(err.trailing_metadata() or ())
    info = error_details_pb2.ErrorInfo()
    assert status_pb2.Status.FromString(trailer[DETAILS_KEY]).details[0].Unpack(info)
    return err, trailer, info.reason


@pytest.mark.parametrize("door", sorted(GRPC_DOORS))
async def test_the_grpc_door_allows_refuses_and_limits(door: str, agent: FakeAgent, jwks_url: str,
                                                       grpc_gateway: Any) -> None:
    """The HTTP doors' matrix on gRPC: UNAUTHENTICATED and PERMISSION_DENIED with www-authenticate,
    RESOURCE_EXHAUSTED with retry-after (trailing metadata), each with its ErrorInfo; the agent not called."""
    version, path, _ = GRPC_DOORS[door]
    http, _, channel = await grpc_gateway(agent, auth__jwks_url=jwks_url, auth__audience=AUDIENCE,
                                          callers__requests_per_second=0.01, callers__burst=1)
    send = channel.unary_unary(path)
    wanted = ((grpc.StatusCode.UNAUTHENTICATED, "UNAUTHENTICATED", {}),
              (grpc.StatusCode.PERMISSION_DENIED, "PERMISSION_DENIED", bearer(aud="other")))
    for code, reason, headers in wanted:
        err, trailer, got = await _grpc_refusal(send(send_request(version), metadata=_metadata(headers)))
        assert err.code() is code and got == reason and "Bearer" in trailer["www-authenticate"], err
    assert agent.calls("SendMessage") == []
    reply = await send(send_request(version), metadata=_metadata(bearer(sub=door)))
    task = message_class(version, "SendMessageResponse").FromString(reply).task
    assert task.id == "t1"
    assert agent.calls("SendMessage")[-1].headers["Authorization"].startswith("Bearer ")   # forwarded by default
    err, trailer, got = await _grpc_refusal(send(send_request(version), metadata=_metadata(bearer(sub=door))))
    assert err.code() is grpc.StatusCode.RESOURCE_EXHAUSTED and got == "RATE_LIMITED"   # the burst of one is spent
    assert int(trailer["retry-after"]) >= 1 and "requests_per_second" in (err.details() or "")
    await send(send_request(version), metadata=_metadata(bearer(sub="another")))   # another subject's bucket
    assert len(agent.calls("SendMessage")) == 2
    assert (await _rpc(http, V10_SEND, **bearer(sub=door)))[0] == 429   # one bucket for every door


async def test_the_grpc_door_api_keys_not_forwarded(agent: FakeAgent, grpc_gateway: Any) -> None:
    """An API key in the metadata admits the caller; with forward_credentials off, neither it nor the
    authorization reach the agent; an unknown key is UNAUTHENTICATED with the ApiKey challenge."""
    _, _, channel = await grpc_gateway(agent, auth__api_keys=("bob:s3cret",), auth__forward_credentials=False)
    send = channel.unary_unary(GRPC_DOORS["grpc-v1.0"][1])
    await send(send_request(Version.V10), metadata=(("x-api-key", "s3cret"), ("authorization", "Basic eA=="),
                                                    ("x-app", "kept")))
    seen = agent.calls("SendMessage")[-1].headers
    assert "X-API-Key" not in seen and "Authorization" not in seen and seen["X-App"] == "kept"
    err, trailer, _ = await _grpc_refusal(send(send_request(Version.V10), metadata=(("x-api-key", "nope"),)))
    assert err.code() is grpc.StatusCode.UNAUTHENTICATED and trailer["www-authenticate"].startswith("ApiKey ")


async def test_the_grpc_door_stream_slots_and_budgets(fake_agent_factory: Any, grpc_gateway: Any) -> None:
    """Server-streaming RPCs hold one of the caller's stream slots (the caller here: its identity header) and
    end cleanly (OK) past max_stream_bytes or max_stream_seconds, as a drain ends them."""
    fake: FakeAgent = await fake_agent_factory("1.0")
    working = {**TASK, "status": {"state": "TASK_STATE_WORKING"}}   # not final: the stream goes on
    events = [{"task": working}] + [{"statusUpdate": {"taskId": "t1", "contextId": "c1",
                                                   "status": {"state": "TASK_STATE_WORKING"}}}] * 40
    fake.reply_sse("SendStreamingMessage", events, delay=0.05)
    _, _, channel = await grpc_gateway(fake, callers__max_streams=1, callers__max_stream_bytes=200,
                                       callers__identity_header="X-Caller")   # gRPC sets its own user-agent
    stream = channel.unary_stream(GRPC_DOORS["grpc-v1.0"][2])
    me = (("x-caller", "s"),)
    first = stream(send_request(Version.V10), metadata=me)
    got = [await first.read()]
    err, trailer, reason = await _grpc_refusal(stream(send_request(Version.V10), metadata=me).read())
    assert err.code() is grpc.StatusCode.RESOURCE_EXHAUSTED and "max_streams" in (err.details() or "")
    assert reason == "RATE_LIMITED" and trailer["retry-after"] == "1"
    other = stream(send_request(Version.V10), metadata=(("x-caller", "t"),))   # another caller's slot
    assert await other.read() is not grpc.aio.EOF
    other.cancel()
    while (message := await first.read()) is not grpc.aio.EOF:
        got.append(message)
    assert await first.code() is grpc.StatusCode.OK
    size = sum(len(m) for m in got)
    assert 200 <= size < 400 and len(got) < 41, (size, len(got))   # the byte budget, not the agent's 41 events
    again = stream(send_request(Version.V10), metadata=me)   # the slot came back
    assert await again.read() is not grpc.aio.EOF
    again.cancel()
    _, _, slow = await grpc_gateway(fake, callers__max_stream_seconds=0.3)
    started = time.monotonic()
    call = slow.unary_stream(GRPC_DOORS["grpc-v1.0"][2])(send_request(Version.V10))
    messages = [message async for message in call]
    assert await call.code() is grpc.StatusCode.OK and 0 < len(messages) < 41
    assert time.monotonic() - started < 1.5   # 41 events take 2 s


async def test_stripped_credentials_still_scope_the_task_index(fake_agent_factory: Any,
                                                              gateway_factory: GatewayFactory) -> None:
    """With auth.forward_credentials off the agent never sees the caller's key, but the gateway still tells
    callers apart: ListTasks (composed from the task index in front of a v0.3 agent) lists a caller's own."""
    fake: FakeAgent = await fake_agent_factory("0.3")
    fake.reply_json("message/send", {"kind": "task", "id": "t-alice", "contextId": "c1",
                                     "status": {"state": "working"}})
    fake.reply_json("tasks/get", {"kind": "task", "id": "t-alice", "contextId": "c1", "status": {"state": "working"}})
    gw = await gateway_factory(fake.url, auth__api_keys=("alice:ka", "bob:kb"), auth__forward_credentials=False)
    assert (await _rpc(gw, V10_SEND, **{"X-API-Key": "ka"}))[0] == 200
    assert "X-API-Key" not in fake.calls("message/send")[0].headers
    listing = {**V10_SEND, "method": "ListTasks", "params": {}}
    _, bob, _ = await _rpc(gw, listing, **{"X-API-Key": "kb"})
    assert bob["result"]["tasks"] == [], bob
    _, alice, _ = await _rpc(gw, listing, **{"X-API-Key": "ka"})
    assert [t["id"] for t in alice["result"]["tasks"]] == ["t-alice"], alice


async def test_the_task_index_scopes_an_authenticated_caller_by_its_subject(
        fake_agent_factory: Any, jwks_url: str, gateway_factory: GatewayFactory) -> None:
    """A refreshed token is the same caller: ListTasks lists what the subject made with its earlier token,
    and not what another subject made."""
    fake: FakeAgent = await fake_agent_factory("0.3")
    fake.reply_json("message/send", {"kind": "task", "id": "t-alice", "contextId": "c1",
                                     "status": {"state": "working"}})
    for _ in range(2):
        fake.reply_json("tasks/get", {"kind": "task", "id": "t-alice", "contextId": "c1",
                                      "status": {"state": "working"}})
    gw = await gateway_factory(fake.url, auth__jwks_url=jwks_url, auth__issuer=ISSUER, auth__audience=AUDIENCE)
    assert (await _rpc(gw, V10_SEND, **bearer(exp=int(time.time()) + 100)))[0] == 200
    listing = {**V10_SEND, "method": "ListTasks", "params": {}}
    _, refreshed, _ = await _rpc(gw, listing, **bearer(exp=int(time.time()) + 200))
    assert [t["id"] for t in refreshed["result"]["tasks"]] == ["t-alice"], refreshed
    _, bob, _ = await _rpc(gw, listing, **bearer(sub="bob"))
    assert bob["result"]["tasks"] == [], bob


async def _subscribable(fake_agent_factory: Any) -> FakeAgent:
    """A v0.3 agent with a working task t1 whose subscription sends 40 updates, 50 ms apart."""
    fake: FakeAgent = await fake_agent_factory("0.3")
    working = {"kind": "task", "id": "t1", "contextId": "c1", "status": {"state": "working"}}
    update = {"kind": "status-update", "taskId": "t1", "contextId": "c1", "final": False,
              "status": {"state": "working"}}
    for _ in range(2):
        fake.reply_json("tasks/get", working)
    fake.reply_sse("tasks/resubscribe", [update] * 40, delay=0.05)
    return fake


async def test_composed_subscriptions_hold_a_stream_slot_and_budget(fake_agent_factory: Any,
                                                                    gateway_factory: GatewayFactory) -> None:
    """A v1.0 caller's SubscribeToTask in front of a v0.3 agent is composed (the Task first, then the agent's
    events): it holds one of the caller's stream slots as a relayed stream does, and its byte budget ends it."""
    fake = await _subscribable(fake_agent_factory)
    gw = await gateway_factory(fake.url, callers__max_streams=1, callers__max_stream_bytes=600)
    subscribe = {**V10_SEND, "method": "SubscribeToTask", "params": {"id": "t1"}}
    headers = {"A2A-Version": "1.0", "User-Agent": "s", "Accept": "text/event-stream"}
    async with gw.post("/", json=subscribe, headers=headers) as first:
        assert first.status == 200
        head = await first.content.readline()
        status, reply, _ = await _rpc(gw, V10_STREAM, **{"User-Agent": "s"})
        assert status == 429 and "max_streams" in reply["error"]["message"], reply
        streamed = head + await asyncio.wait_for(first.read(), 5)
    assert b": draining" in streamed and len(streamed) < 1400, streamed   # not the agent's 40 events


@pytest.mark.parametrize("budget", [{"callers__max_stream_seconds": 0.5}, {"callers__max_stream_bytes": 200}],
                         ids=["time", "bytes"])
async def test_composed_grpc_subscriptions_keep_their_budget(fake_agent_factory: Any, grpc_gateway: Any,
                                                             budget: dict[str, Any]) -> None:
    """The same composed subscription over the gRPC door ends cleanly (OK) at its time budget, or at its byte
    budget (the bytes the agent's live stream relayed count), and does not go on to follow the task once it
    is spent (which would hold the call open)."""
    fake = await _subscribable(fake_agent_factory)
    _, _, channel = await grpc_gateway(fake, **budget)
    request = message_class(Version.V10, "SubscribeToTaskRequest")(id="t1").SerializeToString()
    started = time.monotonic()
    call = channel.unary_stream("/lf.a2a.v1.A2AService/SubscribeToTask")(request, timeout=5)
    messages = [message async for message in call]
    assert await call.code() is grpc.StatusCode.OK and 1 < len(messages) < 41, len(messages)
    assert time.monotonic() - started < 2   # the agent's 40 updates take 2 s
    if "callers__max_stream_bytes" in budget:
        assert time.monotonic() - started < 1.5 and sum(len(m) for m in messages) < 400
