"""Real a2a-sdk 1.x and @a2a-js/sdk 1.x clients in native v1.0 mode through the gateway to a real a2a-sdk 0.3
agent, on the v1.0 behaviour the gateway composes for it, over JSON-RPC, HTTP+JSON and gRPC (the gateway's
`--grpc-listen`, the feature's switch): ListTasks from the task index (embedded, and Redis shared by two
gateway replicas: a task created through one is listed by the other; a task made over one binding listed
over another, in the caller's scope only), a subscription opening with the Task and ending at the terminal
state, a terminal task's refused, historyLength kept, a push config got by its id."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.node import ensure_installed, run_script
from tests.peers.gateway import Gateway, free_port, run_gateway
from tests.peers.harness import Agent, agent_fixture, run_client
from tests.peers.test_peers_direct import CHECKS, Result, expect_error
from tests.peers.webhook import WebhookReceiver
from tests.redis_server import needs_redis, redis_server

pytestmark = pytest.mark.peers

agent_v03 = agent_fixture("v03")
TRANSPORTS = ["jsonrpc", "rest"]
ALL_TRANSPORTS = [*TRANSPORTS, "grpc"]


@pytest.fixture(scope="module")
def gateway(agent_v03: Agent) -> Iterator[Gateway]:
    with run_gateway(agent_v03.base_url) as gw:
        yield gw


@pytest.fixture(scope="module")
def grpc_gateway(agent_v03: Agent) -> Iterator[Gateway]:
    with run_gateway(agent_v03.base_url, "--grpc-listen", f"127.0.0.1:{free_port()}") as gw:
        yield gw


def _gateway(request: pytest.FixtureRequest, transport: str) -> Gateway:
    gw: Gateway = request.getfixturevalue("grpc_gateway" if transport == "grpc" else "gateway")
    return gw


@pytest.fixture(scope="module")
def replicas(agent_v03: Agent) -> Iterator[tuple[Gateway, Gateway]]:
    """Two gateways in front of the same agent sharing one Redis, as two replicas of a deployment would."""
    if needs_redis.args[0]:
        pytest.skip(needs_redis.kwargs["reason"])
    with redis_server() as url:
        # the one setting beyond the defaults: replicas share the index only through a store they share
        env = {"A2A_GATEWAY_TASK_INDEX_STORE": "redis", "A2A_GATEWAY_TASK_INDEX_REDIS_URL": url}
        with run_gateway(agent_v03.base_url, env=env) as one, run_gateway(agent_v03.base_url, env=env) as two:
            yield one, two


def _client(gw: Gateway, scenario: str, transport: str, **kw: Any) -> Result:
    result = run_client("v10", gw.base_url, scenario, transport=transport, **kw)  # type: ignore[arg-type]
    result["_log"] = gw.log()[-4000:]
    return result


def check_list_tasks(r: Result) -> None:
    assert r["ok"], r
    newest_first = r["created"][::-1]
    assert r["listed"] == newest_first and r["total"] == 2 and r["page_size"] == 50 and r["next_token"] == "", r
    assert r["artifacts_unasked"] == [0, 0], r   # includeArtifacts false: omitted
    assert r["pages"] == [[newest_first[0]], [newest_first[1]]] and r["last_token"] == "", r
    assert sorted(r["completed"]) == sorted(r["created"]) and r["working"] == [], r
    assert r["history_lengths"] == [1, 1] and all(n >= 1 for n in r["artifacts_asked"]), r


@pytest.mark.parametrize("transport", ALL_TRANSPORTS)
def test_list_tasks_with_the_embedded_index(request: pytest.FixtureRequest, transport: str) -> None:
    check_list_tasks(_client(_gateway(request, transport), "list_tasks", transport))


@pytest.mark.parametrize(("made_over", "listed_over"), [("jsonrpc", "grpc"), ("grpc", "rest")])
def test_tasks_are_listed_across_bindings(grpc_gateway: Gateway, made_over: str, listed_over: str) -> None:
    """One index for every door: tasks made over one binding are listed over another, in the caller's scope
    (its credentials: HTTP headers, or gRPC metadata read as headers), and only there."""
    made = _client(grpc_gateway, "list_tasks", made_over)
    check_list_tasks(made)
    seen = _client(grpc_gateway, "list_only", listed_over, context=made["context"])
    assert seen["ok"] and seen["listed"] == made["created"][::-1], seen
    assert seen["states"] == ["completed", "completed"], seen
    if listed_over != "grpc":   # the gRPC client of the harness sends no credentials
        other = _client(grpc_gateway, "list_only", listed_over, context=made["context"],
                        headers={"Authorization": "Bearer someone-else"})
        assert other["ok"] and other["listed"] == [], other


def test_subscribing_to_a_running_task_over_grpc(grpc_gateway: Gateway) -> None:
    """A subscription opens with the Task (read by GetTask), then the agent's events, to the terminal state."""
    r = _client(grpc_gateway, "resubscribe", "grpc")
    CHECKS["resubscribe"](r, "v10", "grpc")
    assert r["events"][0]["kind"] == "task" and r["events"][0]["task_id"] == r["task_id"], r
    assert '"composed": true' in r["_log"] or '"composed":true' in r["_log"], r["_log"]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_list_tasks_with_redis_across_replicas(replicas: tuple[Gateway, Gateway], transport: str) -> None:
    one, two = replicas
    made = _client(one, "list_tasks", transport)
    check_list_tasks(made)
    seen = _client(two, "list_only", transport, context=made["context"])
    assert seen["ok"] and seen["listed"] == made["created"][::-1], seen
    assert seen["states"] == ["completed", "completed"], seen
    other = _client(two, "list_only", transport, context="ctx-nobody-used")
    assert other["ok"] and other["listed"] == [], other


@pytest.mark.parametrize("transport", ALL_TRANSPORTS)
def test_subscribing_to_a_finished_task_is_refused(request: pytest.FixtureRequest, transport: str) -> None:
    r = _client(_gateway(request, transport), "subscribe_finished", transport)
    expect_error(r, "v10", transport, code=-32004, http_status=400)


@pytest.mark.parametrize("transport", ALL_TRANSPORTS)
def test_history_length_is_kept(request: pytest.FixtureRequest, transport: str) -> None:
    r = _client(_gateway(request, transport), "get_task_history", transport)
    assert r["ok"], r
    assert r["history"]["1"] == 1 and r["history"]["0"] == 0 and r["history"]["None"] >= 2, r


@pytest.fixture
def webhook() -> Iterator[WebhookReceiver]:
    with WebhookReceiver() as receiver:
        yield receiver


@pytest.mark.parametrize("transport", ALL_TRANSPORTS)
def test_push_config_got_by_its_id(request: pytest.FixtureRequest, transport: str, webhook: WebhookReceiver) -> None:
    r = _client(_gateway(request, transport), "push_get_by_id", transport, webhook=webhook.url)
    assert r["ok"] and r["got"] == {"cfg-a": "cfg-a", "cfg-b": "cfg-b"}, r


# ---- @a2a-js/sdk 1.x, native v1.0 -----------------------------------------------------------------------

JS_DIR = Path(__file__).resolve().parents[1] / "js_peers"
JS_WHAT = "the real @a2a-js/sdk 1.x client"
JS_TRANSPORTS = {"jsonrpc": "JSONRPC", "rest": "HTTP+JSON"}


def run_js(gw: Gateway, transport: str) -> dict[str, Any]:
    installed = ensure_installed(JS_DIR / "sdk-1.3.0", "js-peers", JS_WHAT)
    result = run_script(JS_DIR / "driver_v10.mjs", installed, {"baseUrl": gw.base_url,
                                                               "transport": JS_TRANSPORTS[transport]}, JS_WHAT)
    result["_log"] = gw.log()[-4000:]
    return result


def check_js(r: dict[str, Any], transport: str) -> None:
    assert r["sdkVersion"] == "1.3.0", r
    assert r["transport"].lstrip("_") == {"jsonrpc": "JsonRpcTransport", "rest": "RestTransport"}[transport], r
    created = r["send"]["ids"]
    assert r["send"]["states"] == ["TASK_STATE_COMPLETED"] * 2, r
    assert r["history"]["1"] == 1 and r["history"]["0"] == 0 and r["history"]["undefined"] >= 2, r
    assert r["stream"]["kinds"][0] == "task" and r["stream"]["last"] == "TASK_STATE_COMPLETED", r
    listed = r["list"]
    assert listed["ids"] == created[::-1] and listed["total"] == 2 and listed["next"] == "", r
    assert listed["pages"] == [[created[1]], [created[0]]] and listed["last"] == "", r
    assert sorted(listed["completed"]) == sorted(created) and listed["history"] == [1, 1], r
    # a subscription opens with the Task and ends at the terminal state; a finished task's is refused
    assert r["subscribe"]["kinds"][0] == "task" and r["subscribe"]["last"] == "TASK_STATE_COMPLETED", r
    assert "UnsupportedOperation" in r["subscribeFinished"]["error"]["type"], r


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_js_client_with_the_embedded_index(gateway: Gateway, transport: str) -> None:
    check_js(run_js(gateway, transport), transport)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_js_client_with_redis_across_replicas(replicas: tuple[Gateway, Gateway], transport: str) -> None:
    one, two = replicas
    made = run_js(one, transport)
    check_js(made, transport)
    seen = _client(two, "list_only", transport, context=made["contextId"])   # listed by the other replica
    assert seen["ok"] and seen["listed"] == made["send"]["ids"][::-1], seen
