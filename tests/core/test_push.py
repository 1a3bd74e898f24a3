"""core.push: routes sealed into webhook URLs and opened again (rotation, tampering, foreign keys,
size), configs read back, and every branch of plan_delivery and the task fetch."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from gateway.core import jsoncodec
from gateway.core.card import Interface
from gateway.core.errors import GatewayError, InvalidAgentResponse
from gateway.core.exchange import Exchange, Result
from gateway.core.notes import Cx
from gateway.core.push import (
    MAX_URL_CHARS,
    BadSeal,
    ClientRoute,
    Delivery,
    NeedTask,
    PushSealer,
    PushUrlRejected,
    TamperedSeal,
    fetched_task,
    notification_version,
    plan_delivery,
)
from gateway.core.types import Binding, Version

K1, K2, K3 = bytes(range(32)), bytes(range(1, 33)), bytes(32)
BASE = "https://gw.example"
V03, V10 = Version.V03, Version.V10


def counter_nonce() -> Any:
    count = itertools.count()
    return lambda: next(count).to_bytes(12, "big")


def sealer(*keys: bytes, base: str = BASE) -> PushSealer:
    return PushSealer(keys or (K1,), webhook_base=base, nonce=counter_nonce())


CLIENT_CFG = {"id": "cfg-1", "taskId": "t1", "url": "https://client.example/hook?x=1", "token": "tok-T",
              "authentication": {"scheme": "Bearer", "credentials": "cred-x"}, "tenant": "acme"}


def sealed_of(cfg: dict[str, Any]) -> str:
    prefix = BASE + "/a2a-push/"
    assert cfg["url"].startswith(prefix)
    return str(cfg["url"][len(prefix):])


# ---- sealing -----------------------------------------------------------------------------------


def test_seal_points_upstream_at_the_gateway_and_keeps_ids() -> None:
    up = sealer().seal(CLIENT_CFG, client=V03, task_id="t1")
    assert list(up) == ["id", "taskId", "tenant", "url", "token"]
    assert (up["id"], up["taskId"], up["tenant"]) == ("cfg-1", "t1", "acme")
    assert "authentication" not in up
    seal = sealed_of(up)
    assert all(c.isalnum() or c in "-_" for c in seal)  # urlsafe, no padding
    for secret in ("client.example", "tok-T", "cred-x", "Bearer"):
        assert secret not in up["url"] and secret not in up["token"]


def test_seal_open_round_trip_carries_the_whole_route() -> None:
    s = sealer()
    up = s.seal(CLIENT_CFG, client=V03, task_id="t1")
    assert s.open(sealed_of(up)) == ClientRoute("https://client.example/hook?x=1", "tok-T", "Bearer",
                                                "cred-x", V03, "t1", "cfg-1")
    bare = s.seal({"url": "http://c.example/h"}, client=V10, task_id="")
    assert s.open(sealed_of(bare)) == ClientRoute("http://c.example/h", None, None, None, V10, "", None)


def test_upstream_token_is_derived_so_any_replica_agrees() -> None:
    up = sealer(K1).seal(CLIENT_CFG, client=V03, task_id="t1")
    replica = sealer(K1)  # another process, same key, no shared state
    assert replica.upstream_token(sealed_of(up)) == up["token"]
    other = sealer(K1).seal({**CLIENT_CFG, "id": "cfg-2"}, client=V03, task_id="t1")
    assert other["token"] != up["token"] and len(up["token"]) == 32


def test_fresh_nonce_per_seal() -> None:
    s = sealer()
    first, second = (s.seal(CLIENT_CFG, client=V03, task_id="t1") for _ in range(2))
    assert first["url"] != second["url"]


def test_rotation_first_key_seals_every_key_opens() -> None:
    old = sealer(K1).seal(CLIENT_CFG, client=V03, task_id="t1")
    rotated = sealer(K2, K1)
    assert rotated.open(sealed_of(old)).url == CLIENT_CFG["url"]
    assert rotated.upstream_token(sealed_of(old)) == old["token"]
    new = rotated.seal(CLIENT_CFG, client=V03, task_id="t1")
    assert sealer(K2).open(sealed_of(new)).token == "tok-T"
    with pytest.raises(BadSeal):
        sealer(K1).open(sealed_of(new))  # the old-key-only replica cannot open new seals


def test_foreign_key_is_not_found() -> None:
    s1, s3 = sealer(K1), sealer(K3)
    assert s1._keys[0].kid != s3._keys[0].kid  # precondition: distinct key ids
    seal = sealed_of(s1.seal(CLIENT_CFG, client=V03, task_id="t1"))
    with pytest.raises(BadSeal) as info:
        s3.open(seal)
    assert type(info.value) is BadSeal and info.value.http_status == 404
    with pytest.raises(BadSeal):
        s3.upstream_token(seal)


@pytest.mark.parametrize("position", [1, 5, 20, -3, -1])
def test_tampered_seal_is_refused(position: int) -> None:
    s = sealer()
    seal = sealed_of(s.seal(CLIENT_CFG, client=V03, task_id="t1"))
    chars = list(seal)
    chars[position] = "A" if chars[position] != "A" else "B"
    with pytest.raises(TamperedSeal) as info:
        s.open("".join(chars))
    assert info.value.http_status == 403
    assert "tok" not in str(info.value) and "client" not in str(info.value)


@pytest.mark.parametrize("garbage", ["", "x", "abc$def", "A" * 5000, "AAAA", "a" * 41])
def test_garbled_seal_is_not_found(garbage: str) -> None:
    with pytest.raises(BadSeal):
        sealer().open(garbage)


def test_seal_kid_collision_tries_every_matching_key() -> None:
    s = sealer(K1)
    seal = sealed_of(s.seal(CLIENT_CFG, client=V03, task_id="t1"))
    both = sealer(K2, K1)
    both._keys = (both._keys[0].__class__(both._keys[1].kid, both._keys[0].aead, both._keys[0].mac),
                  both._keys[1])  # force K2 to share K1's id
    assert both.open(seal).url == CLIENT_CFG["url"]


def test_url_length_is_bounded_at_registration() -> None:
    s = sealer()
    s.seal({"url": "https://c.example/h", "token": "t" * 1200}, client=V03, task_id="t1")
    with pytest.raises(PushUrlRejected, match="too large") as info:
        s.seal({"url": "https://c.example/h", "token": "t" * 1500}, client=V03, task_id="t1")
    assert info.value.jsonrpc_code == -32602 and str(MAX_URL_CHARS) in info.value.message


@pytest.mark.parametrize("cfg", [
    {"url": "ftp://c.example/h"}, {"url": "/relative"}, {"url": 5}, {},
    {"url": "https://c.example/h", "token": "a\r\nX-Evil: 1"},
    {"url": "https://c.example/h", "authentication": {"scheme": "Bearer", "credentials": "x\ny"}},
    {"url": "https://c.example/h", "authentication": "Bearer x"},
])
def test_unrelayable_configs_are_invalid_params(cfg: dict[str, Any]) -> None:
    with pytest.raises(PushUrlRejected) as info:
        sealer().seal(cfg, client=V03, task_id="t1")
    assert info.value.jsonrpc_code == -32602


def test_seal_uses_request_base_when_none_configured() -> None:
    s = PushSealer([K1], webhook_base="", nonce=counter_nonce())
    assert s.seal(CLIENT_CFG, client=V03, task_id="t1", base="http://h:1/")["url"].startswith("http://h:1/a2a-push/")
    with pytest.raises(Exception, match="no public URL"):
        s.seal(CLIENT_CFG, client=V03, task_id="t1")


def test_bad_keys_and_nonces() -> None:
    with pytest.raises(ValueError):
        PushSealer([], webhook_base=BASE, nonce=counter_nonce())
    with pytest.raises(ValueError):
        PushSealer([b"short"], webhook_base=BASE, nonce=counter_nonce())
    with pytest.raises(ValueError):
        PushSealer([K1], webhook_base=BASE, nonce=lambda: b"123").seal(CLIENT_CFG, client=V03, task_id="t1")


# ---- reading configs back ------------------------------------------------------------------------


def test_unseal_get_result_restores_the_clients_config() -> None:
    s = sealer()
    up = s.seal(CLIENT_CFG, client=V03, task_id="t1")
    assert s.unseal(up) == CLIENT_CFG
    assert list(s.unseal(up)) == ["id", "taskId", "tenant", "url", "token", "authentication"]


def test_unseal_list_results_and_leaves_foreign_configs_alone() -> None:
    s = sealer()
    mine = [s.seal({**CLIENT_CFG, "id": f"c{i}"}, client=V10, task_id="t1") for i in range(3)]
    foreign = {"id": "x", "taskId": "t1", "url": "https://elsewhere.example/a2a-push-not/abc",
               "token": "keep"}
    got = [s.unseal(c) for c in [*mine, foreign]]
    assert [c["url"] for c in got[:3]] == [CLIENT_CFG["url"]] * 3
    assert got[3] is foreign


def test_unseal_works_whatever_host_registered_it() -> None:
    up = sealer(base="http://replica-a:8080").seal(CLIENT_CFG, client=V03, task_id="t1")
    assert sealer(base="https://public.example").unseal(up)["token"] == "tok-T"


def test_unseal_of_an_unopenable_seal_hides_the_upstream_token() -> None:
    up = sealer(K1).seal(CLIENT_CFG, client=V03, task_id="t1")
    got = sealer(K3).unseal(up)
    assert "token" not in got and got["url"] == up["url"]


def test_unseal_keeps_an_empty_v03_scheme_and_absent_credentials() -> None:
    s = sealer()
    cfg = {"id": "c", "url": "https://c.example/h", "authentication": {"scheme": ""}}
    assert s.unseal(s.seal(cfg, client=V03, task_id="t1")) == cfg


# ---- planning deliveries -----------------------------------------------------------------------------

V10_TASK = {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"},
            "artifacts": [{"artifactId": "a1", "parts": [{"text": "hello world"}]}]}
V03_TASK = {"kind": "task", "id": "t1", "contextId": "c1", "status": {"state": "completed"},
            "artifacts": [{"artifactId": "a1", "parts": [{"kind": "text", "text": "hello world"}]}]}
V10_STATUS = {"statusUpdate": {"taskId": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}}
V10_ARTIFACT = {"artifactUpdate": {"taskId": "t1", "contextId": "c1", "append": True,
                                   "artifact": {"artifactId": "a1", "parts": [{"text": " world"}]}}}
V03_STATUS = {"kind": "status-update", "taskId": "t1", "contextId": "c1", "status": {"state": "working"},
              "final": False}


def route(version: Version, *, token: str | None = "T", scheme: str | None = None, creds: str | None = None,
          task_id: str = "t1") -> ClientRoute:
    return ClientRoute("https://client.example/hook", token, scheme, creds, version, task_id, "cfg-1")


def plan(route: ClientRoute, body: Any, *, upstream: Version) -> Delivery | NeedTask:
    return plan_delivery(route, body, upstream=upstream, cx=Cx())


def delivered(step: Delivery | NeedTask) -> tuple[dict[str, str], Any]:
    assert isinstance(step, Delivery), step
    assert step.url == "https://client.example/hook"
    return step.headers, jsoncodec.loads(step.body)


def test_v10_task_push_becomes_the_v03_task() -> None:  # case 93 (task payload)
    headers, body = delivered(plan(route(V03), {"task": V10_TASK}, upstream=V10))
    assert body == V03_TASK
    assert headers == {"Content-Type": "application/json", "X-A2A-Notification-Token": "T"}


@pytest.mark.parametrize("event", [V10_STATUS, V10_ARTIFACT,
                                   {"message": {"messageId": "m", "role": "ROLE_AGENT", "taskId": "t1",
                                                "parts": [{"text": "hi"}]}},
                                   {"status_update": V10_STATUS["statusUpdate"]}])
def test_v10_events_need_the_task_for_v03_clients(event: dict[str, Any]) -> None:  # cases 93/94
    assert plan(route(V03), event, upstream=V10) == NeedTask("t1")


def test_then_the_fetched_task_is_delivered_whole() -> None:  # case 94: the agent already appended
    fetched = fetch(Interface(V10, Binding.JSONRPC, "http://a/rpc"), 200,
                    jsoncodec.dumpb({"jsonrpc": "2.0", "id": "x", "result": V10_TASK}))
    _, body = delivered(plan(route(V03), fetched, upstream=V10))
    assert body["artifacts"][0]["parts"] == [{"kind": "text", "text": "hello world"}]


def test_inline_route_without_task_takes_the_events_task_id() -> None:
    assert plan(route(V03, task_id=""), V10_STATUS, upstream=V10) == NeedTask("t1")


def test_v10_message_outside_any_task_reaches_v03_as_a_message() -> None:
    msg = {"message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "hi"}]}}
    _, body = delivered(plan(route(V03, task_id=""), msg, upstream=V10))
    assert body == {"kind": "message", "messageId": "m", "role": "agent",
                    "parts": [{"kind": "text", "text": "hi"}]}


def test_v03_client_credentials_become_authorization() -> None:  # case 95
    step = plan(route(V03, scheme="Bearer", creds="x"), {"task": V10_TASK}, upstream=V10)
    headers, _ = delivered(step)
    assert headers["Authorization"] == "Bearer x"


def test_v03_bare_task_becomes_v10_stream_response() -> None:  # case 96
    headers, body = delivered(plan(route(V10, scheme="Basic", creds="dTpw"), V03_TASK, upstream=V03))
    assert body == {"task": V10_TASK}
    assert headers == {"Content-Type": "application/json", "X-A2A-Notification-Token": "T",
                       "A2A-Notification-Token": "T", "Authorization": "Basic dTpw"}


@pytest.mark.parametrize(("v03", "member"), [
    (V03_STATUS, "statusUpdate"),
    ({k: v for k, v in V03_STATUS.items() if k != "kind"}, "statusUpdate"),  # detected by members
    ({"kind": "artifact-update", "taskId": "t1", "contextId": "c1", "append": True,
      "artifact": {"artifactId": "a1", "parts": [{"kind": "text", "text": "x"}]}}, "artifactUpdate"),
    ({"kind": "message", "messageId": "m", "role": "agent", "parts": [{"kind": "text", "text": "x"}]},
     "message"),
    ({k: v for k, v in V03_TASK.items() if k != "kind"}, "task"),
])
def test_v03_bare_events_become_the_matching_member(v03: dict[str, Any], member: str) -> None:
    _, body = delivered(plan(route(V10), v03, upstream=V03))
    assert list(body) == [member]


def test_v03_unknown_shape_fetches_the_task() -> None:
    assert plan(route(V10), {"taskId": "t1", "something": 1}, upstream=V03) == NeedTask("t1")
    assert plan(route(V10), {"odd": True}, upstream=V03) == NeedTask("t1")
    with pytest.raises(InvalidAgentResponse):
        plan(route(V10, task_id=""), {"odd": True}, upstream=V03)


@pytest.mark.parametrize(("version", "body"), [(V10, V10_STATUS), (V03, V03_STATUS)])
def test_same_version_passes_the_body_through(version: Version, body: dict[str, Any]) -> None:
    _, got = delivered(plan(route(version), body, upstream=version))
    assert got == body


def test_no_token_no_token_header() -> None:
    headers, _ = delivered(plan(route(V03, token=None), {"task": V10_TASK}, upstream=V10))
    assert headers == {"Content-Type": "application/json"}


def test_scheme_without_credentials_sends_no_authorization() -> None:
    headers, _ = delivered(plan(route(V03, scheme="Bearer"), {"task": V10_TASK}, upstream=V10))
    assert "Authorization" not in headers


@pytest.mark.parametrize(("body", "upstream"), [
    ([1], V10), ("x", V03), ({}, V10), ({"task": V10_TASK, "message": {}}, V10), ({"task": "x"}, V10),
    ({"task": {**V10_TASK, "id": "other"}}, V10),  # another task than the route's: S10 §4.3.3
    ({**V03_TASK, "id": "other"}, V03),
])
def test_bodies_that_are_no_notification_for_this_route(body: Any, upstream: Version) -> None:
    with pytest.raises(InvalidAgentResponse):
        plan(route(V03 if upstream is V10 else V10), body, upstream=upstream)


def test_notification_version_reads_the_shape() -> None:
    assert notification_version({"task": V10_TASK}) is V10
    assert notification_version(V10_STATUS) is V10
    assert notification_version(V03_TASK) is V03
    assert notification_version({"taskId": "t", "status": {}}) is V03
    assert notification_version({"odd": 1}) is None
    assert notification_version([]) is None


# ---- fetching the task -------------------------------------------------------------------------------


def fetch(iface: Interface, status: int, body: bytes) -> Any:
    """The GetTask of a NeedTask, made through its exchange toward `iface`, its reply read back (as the agent
    port reads it: a reply it cannot read is None)."""
    exchange = Exchange(NeedTask("t1").call, iface)
    exchange.upstream_request()
    try:
        step = exchange.read_result(status, body)
    except GatewayError:
        return fetched_task(None)
    assert isinstance(step, Result)
    return fetched_task(step)


def test_task_fetch_per_version_and_binding() -> None:
    def request(iface: Interface, task_id: str) -> Any:
        return Exchange(NeedTask(task_id).call, iface).upstream_request()

    rpc10 = request(Interface(V10, Binding.JSONRPC, "http://a/rpc", "acme"), "t/1")
    assert (rpc10.method, rpc10.path) == ("POST", "")
    assert jsoncodec.loads(rpc10.body or b"") == {
        "jsonrpc": "2.0", "id": "push-get-task", "method": "GetTask", "params": {"id": "t/1", "tenant": "acme"}}
    rpc03 = request(Interface(V03, Binding.JSONRPC, "http://a/rpc"), "t1")
    assert jsoncodec.loads(rpc03.body or b"")["method"] == "tasks/get"
    rest10 = request(Interface(V10, Binding.REST, "http://a/rest/", "acme"), "t 1")
    assert (rest10.method, rest10.path, rest10.body) == ("GET", "/acme/tasks/t%201", None)
    assert request(Interface(V03, Binding.REST, "http://a/rest"), "t1").path == "/v1/tasks/t1"


def test_task_from_reply_shapes_and_errors() -> None:
    v03 = {k: v for k, v in V03_TASK.items() if k != "kind"}
    reply = jsoncodec.dumpb({"jsonrpc": "2.0", "id": 1, "result": v03})
    assert fetch(Interface(V03, Binding.JSONRPC, "http://a"), 200, reply)["task"]["status"]["state"] == \
        "TASK_STATE_COMPLETED"
    rest03 = {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"}}
    assert fetch(Interface(V03, Binding.REST, "http://a"), 200, jsoncodec.dumpb(rest03))["task"]["status"] == {
        "state": "TASK_STATE_COMPLETED"}
    assert fetch(Interface(V10, Binding.REST, "http://a"), 200, jsoncodec.dumpb(V10_TASK)) == {"task": V10_TASK}
    error = jsoncodec.dumpb({"jsonrpc": "2.0", "id": 1, "error": {"code": -32001, "message": "Task not found"}})
    with pytest.raises(InvalidAgentResponse, match="-32001"):
        fetch(Interface(V10, Binding.JSONRPC, "http://a"), 200, error)
    with pytest.raises(InvalidAgentResponse, match="-32001"):
        fetch(Interface(V10, Binding.REST, "http://a"), 404, b"{}")
    with pytest.raises(InvalidAgentResponse):
        fetch(Interface(V10, Binding.REST, "http://a"), 200, b"nope")
    with pytest.raises(InvalidAgentResponse):
        fetch(Interface(V10, Binding.JSONRPC, "http://a"), 200,
              jsoncodec.dumpb({"jsonrpc": "2.0", "id": 1, "result": None}))
