"""The gRPC binding through the gateway with real SDK peers: a2a-sdk 0.3 gRPC clients in front of a 1.x
agent and a2a-sdk 1.x gRPC clients (native v1.0) in front of a 0.3 agent, over every scenario of the
same-version baseline (test_peers_direct.py) with the same checks, push CRUD and delivery, and the card
the gateway advertises. The gateway runs on its defaults plus `--grpc-listen`, the feature's switch."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from tests.peers.gateway import Gateway, free_port, run_gateway
from tests.peers.harness import Agent, agent_fixture, run_client
from tests.peers.test_peers_direct import CHECKS, Result
from tests.peers.webhook import Notification, WebhookReceiver

pytestmark = pytest.mark.peers

agent_v03 = agent_fixture("v03")
agent_v10 = agent_fixture("v10")

# mode A: v0.3 gRPC clients in front of a v1.0 agent; mode B: v1.0 gRPC clients in front of a v0.3 agent
MODES = {"A": ("v03", "agent_v10"), "B": ("v10", "agent_v03")}
# the gateway answers a v0.3 gRPC caller with the error table's status codes (the v1.0 spec's, which
# a2a-sdk 1.x's own v0.3 compat server sends too), not a2a-sdk 0.3's server's own (UNIMPLEMENTED)
GATEWAY_V03_STATUS = {-32001: "NOT_FOUND", -32002: "FAILED_PRECONDITION"}


def _grpc_gateway(agent: Agent, **env: str) -> Iterator[Gateway]:
    with run_gateway(agent.base_url, "--grpc-listen", f"127.0.0.1:{free_port()}", env=env or None) as gateway:
        yield gateway


@pytest.fixture(scope="module")
def gateway_A(agent_v10: Agent) -> Iterator[Gateway]:
    yield from _grpc_gateway(agent_v10)


@pytest.fixture(scope="module")
def gateway_B(agent_v03: Agent) -> Iterator[Gateway]:
    yield from _grpc_gateway(agent_v03)


# cross-binding: the gateway may use only the agent's HTTP+JSON binding
@pytest.fixture(scope="module")
def gateway_A_rest_only(agent_v10: Agent) -> Iterator[Gateway]:
    yield from _grpc_gateway(agent_v10, A2A_GATEWAY_UPSTREAM_BINDING="HTTP+JSON")


@pytest.fixture(scope="module")
def gateway_B_rest_only(agent_v03: Agent) -> Iterator[Gateway]:
    # a2a-sdk 0.3's REST server wants the whole CreateTaskPushNotificationConfigRequest as body
    yield from _grpc_gateway(agent_v03, A2A_GATEWAY_UPSTREAM_BINDING="HTTP+JSON",
                             A2A_GATEWAY_QUIRKS_REST_PUSH_CREATE_BODY="request")


def _check(scenario: str, result: Result, client: str, gateway: Gateway) -> None:
    try:
        assert result["transport"] == "grpc", result
        if client == "v03" and scenario in ("cancel_finished", "get_task_not_found"):
            code = -32002 if scenario == "cancel_finished" else -32001
            assert result["ok"] is False and result["error"]["code"] == code, result
            assert result["error"]["grpc_status"] == GATEWAY_V03_STATUS[code], result
            return
        if client == "v03" and scenario == "get_extended_card":
            # the gateway serves the extended card over gRPC too (a2a-sdk 0.3's own gRPC server cannot)
            assert result["ok"] and result["skills"] == ["echo", "script", "secret"], result
            return
        if scenario == "resubscribe" and client == "v03":
            # a v1.0 agent opens every subscription with the Task; the v0.3 client gets it first
            assert result["events"][0]["kind"] == "task", result
            result = {**result, "events": result["events"][1:]}
        CHECKS[scenario](result, client, "jsonrpc")  # the checks of a binding with no gaps of its own
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n--- gateway log ---\n{gateway.log()[-6000:]}") from exc


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("scenario", sorted(CHECKS))
def test_grpc_client_through_gateway(mode: str, scenario: str, request: pytest.FixtureRequest) -> None:
    client, _ = MODES[mode]
    gateway: Gateway = request.getfixturevalue(f"gateway_{mode}")
    _check(scenario, run_client(client, gateway.base_url, scenario, transport="grpc"), client, gateway)  # type: ignore[arg-type]


@pytest.mark.parametrize("gateway_name", ["A_rest_only", "B_rest_only"])
@pytest.mark.parametrize("scenario", ["send_rich", "stream", "get_task_not_found", "ask_continue", "cancel_task"])
def test_grpc_client_to_rest_agent(gateway_name: str, scenario: str, request: pytest.FixtureRequest) -> None:
    client = "v03" if gateway_name.startswith("A") else "v10"
    gateway: Gateway = request.getfixturevalue(f"gateway_{gateway_name}")
    _check(scenario, run_client(client, gateway.base_url, scenario, transport="grpc"), client, gateway)  # type: ignore[arg-type]


@pytest.fixture
def webhook() -> Iterator[WebhookReceiver]:
    with WebhookReceiver() as receiver:
        yield receiver


@pytest.mark.parametrize("mode", sorted(MODES))
def test_push_over_grpc(mode: str, request: pytest.FixtureRequest, webhook: WebhookReceiver) -> None:
    """Push CRUD over gRPC (list and delete too: the gateway serves every RPC, whatever the agent lacks),
    and the delivery through the gateway's relay in the client's version, with the client's token."""
    client, _ = MODES[mode]
    gateway: Gateway = request.getfixturevalue(f"gateway_{mode}")
    r: dict[str, Any] = run_client(client, gateway.base_url, "push_crud", transport="grpc",  # type: ignore[arg-type]
                                   webhook=webhook.url)
    steps = r["steps"]
    assert r["ok"], (r, gateway.log()[-6000:])
    config = steps["set"]["result"]
    assert steps["get"]["result"] == config and steps["list"]["result"] == [config], r
    assert webhook.url in str(config) and "/a2a-push/" not in str(config), config
    assert steps["delete"]["ok"] and steps["list_after_delete"]["result"] == [], r
    assert steps["continue"]["result"]["state"] == "completed", r

    def completed(n: Notification) -> bool:
        return r["task_id"] in n.raw and ('"completed"' in n.raw or "TASK_STATE_COMPLETED" in n.raw)

    assert webhook.wait_for(completed), [n.raw for n in webhook.received]
    shape = "kind" if client == "v03" else "task"  # a v0.3 Task body, or a v1.0 StreamResponse
    assert any(shape in json.loads(n.raw) for n in webhook.received if completed(n)), webhook.received
    assert {n.headers.get("X-A2A-Notification-Token") for n in webhook.received if r["task_id"] in n.raw} == {
        "push-token-1"}


def _card(gateway: Gateway, version: str) -> dict[str, Any]:
    req = urllib.request.Request(gateway.base_url + "/.well-known/agent-card.json", headers={"A2A-Version": version})
    with urllib.request.urlopen(req, timeout=5) as reply:
        card: dict[str, Any] = json.load(reply)
    return card


def test_card_advertises_grpc(gateway_A: Gateway, agent_v10: Agent) -> None:
    """Both versions' cards name the gateway's gRPC listener (never the agent's), and a gateway without
    the listener names none."""
    v10, v03 = _card(gateway_A, "1.0"), _card(gateway_A, "0.3")
    grpc10 = [i for i in v10["supportedInterfaces"] if i["protocolBinding"] == "GRPC"]
    assert [i["protocolVersion"] for i in grpc10] == ["1.0", "0.3"], v10
    target = grpc10[0]["url"]
    assert target.startswith("127.0.0.1:") and target != f"127.0.0.1:{gateway_A.port}", target
    assert {"transport": "GRPC", "url": target} in v03["additionalInterfaces"], v03
    with run_gateway(agent_v10.base_url) as plain:
        assert "GRPC" not in json.dumps(_card(plain, "1.0")) + json.dumps(_card(plain, "0.3"))
