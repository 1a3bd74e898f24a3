"""The gRPC binding through the gateway with real SDK peers: a2a-sdk 0.3 gRPC clients in front of a 1.x
agent and a2a-sdk 1.x gRPC clients (native v1.0) in front of a 0.3 agent, the agent reached over JSON-RPC,
HTTP+JSON or its own gRPC service; JSON-RPC and HTTP+JSON clients in front of gRPC agents; the same
version over gRPC on both sides (pass-through). Every scenario of the same-version baseline
(test_peers_direct.py) with the same checks, push CRUD and delivery, and the card the gateway advertises.
The gateway runs on its defaults plus `--grpc-listen`, the feature's switch (and `upstream.binding` where a
test must pin the agent's binding, as test_peers_gateway.py's cross-binding runs do)."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from tests.peers.gateway import Gateway, free_port, run_gateway
from tests.peers.harness import Agent, agent_fixture, run_client
from tests.peers.test_peers_compose import check_list_tasks
from tests.peers.test_peers_direct import CHECKS, Result, expect_error
from tests.peers.webhook import Notification, WebhookReceiver

pytestmark = pytest.mark.peers

agent_v03 = agent_fixture("v03")
agent_v10 = agent_fixture("v10")
agent_v03_grpc = agent_fixture("v03", grpc=True)
agent_v10_grpc = agent_fixture("v10", grpc=True)

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
    # a2a-sdk 0.3's REST server wants the whole CreateTaskPushNotificationConfigRequest as body: the
    # default ("auto") tells it from its Server header
    yield from _grpc_gateway(agent_v03, A2A_GATEWAY_UPSTREAM_BINDING="HTTP+JSON")


# the agents' gRPC interfaces (their cards list JSON-RPC first: pinned, as a gRPC-only agent would be)
@pytest.fixture(scope="module")
def gateway_A_grpc(agent_v10_grpc: Agent) -> Iterator[Gateway]:
    yield from _grpc_gateway(agent_v10_grpc, A2A_GATEWAY_UPSTREAM_BINDING="GRPC")


@pytest.fixture(scope="module")
def gateway_B_grpc(agent_v03_grpc: Agent) -> Iterator[Gateway]:
    yield from _grpc_gateway(agent_v03_grpc, A2A_GATEWAY_UPSTREAM_BINDING="GRPC")


def _upstream_bindings(gateway: Gateway) -> set[str]:
    lines = [json.loads(line) for line in gateway.log().splitlines() if line.startswith("{")]
    return {str(line["upstream_binding"]) for line in lines if "upstream_binding" in line}


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


# (gateway, client, client binding): gRPC clients, and a JSON-RPC client registering through a gRPC agent
PUSH = [("A", "v03", "grpc"), ("B", "v10", "grpc"), ("A_grpc", "v03", "grpc"), ("A_grpc", "v03", "jsonrpc")]


@pytest.mark.parametrize(("gateway_name", "client", "transport"), PUSH)
def test_push_over_grpc(gateway_name: str, client: str, transport: str, request: pytest.FixtureRequest,
                        webhook: WebhookReceiver) -> None:
    """Push CRUD over gRPC (list and delete too: the gateway serves every RPC, whatever the agent lacks),
    and the delivery through the gateway's relay in the client's version, with the client's token,
    whichever binding registered the config and whichever the agent was reached by."""
    gateway: Gateway = request.getfixturevalue(f"gateway_{gateway_name}")
    r: dict[str, Any] = run_client(client, gateway.base_url, "push_crud", transport=transport,  # type: ignore[arg-type]
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


# ---- gRPC agents -----------------------------------------------------------------------------------------


def _check_grpc_agent(scenario: str, result: Result, client: str, gateway: Gateway) -> None:
    """What a v0.3 gRPC agent (a2a-sdk 0.3's server) cannot do shows through a translation too: it has
    no extended card (GetAgentCard answers with the public one), and its resubscription sometimes
    closes before the last events (see test_peers_direct.check_resubscribe)."""
    v03_agent = client == "v10"
    if v03_agent and scenario == "get_extended_card":
        assert result["ok"] and result["skills"] == ["echo", "script"], result
        return
    if v03_agent and scenario == "resubscribe" and result.get("final_state") not in (None, "completed"):
        assert result["ok"] and [e["kind"] for e in result["events"]][:1] == ["task"], result
        return
    _check(scenario, result, client, gateway)


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("scenario", sorted(CHECKS))
def test_grpc_to_grpc_across_versions(mode: str, scenario: str, request: pytest.FixtureRequest) -> None:
    client, _ = MODES[mode]
    gateway: Gateway = request.getfixturevalue(f"gateway_{mode}_grpc")
    result = run_client(client, gateway.base_url, scenario, transport="grpc")  # type: ignore[arg-type]
    _check_grpc_agent(scenario, result, client, gateway)
    assert _upstream_bindings(gateway) == {"GRPC"}, gateway.log()[-3000:]


@pytest.mark.parametrize("transport", ["jsonrpc", "rest"])
@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("scenario", ["send_rich", "stream", "get_task_not_found", "ask_continue", "cancel_task",
                                      "resubscribe"])
def test_http_client_to_grpc_agent(mode: str, scenario: str, transport: str, request: pytest.FixtureRequest) -> None:
    """JSON-RPC and HTTP+JSON clients of the other version in front of a gRPC agent."""
    client, _ = MODES[mode]
    gateway: Gateway = request.getfixturevalue(f"gateway_{mode}_grpc")
    result = run_client(client, gateway.base_url, scenario, transport=transport)  # type: ignore[arg-type]
    if scenario == "resubscribe" and client == "v03":
        assert result["events"][0]["kind"] == "task", result  # a v1.0 agent opens with the Task
        result = {**result, "events": result["events"][1:]}
    if client == "v10" and scenario == "resubscribe" and result.get("final_state") not in (None, "completed"):
        assert result["ok"], result   # a2a-sdk 0.3's gRPC resubscription closing early, as above
        return
    try:
        CHECKS[scenario](result, client, transport)
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n--- gateway log ---\n{gateway.log()[-6000:]}") from exc


# same version, both sides gRPC: the bytes pass through, so the agent's own behaviour is the caller's
PASS = {"A_grpc": "v10", "B_grpc": "v03"}


@pytest.mark.parametrize("gateway_name", sorted(PASS))
@pytest.mark.parametrize("scenario", ["send_rich", "stream", "get_task_not_found", "ask_continue", "cancel_finished"])
def test_grpc_pass_through(gateway_name: str, scenario: str, request: pytest.FixtureRequest) -> None:
    client = PASS[gateway_name]
    gateway: Gateway = request.getfixturevalue(f"gateway_{gateway_name}")
    result = run_client(client, gateway.base_url, scenario, transport="grpc")  # type: ignore[arg-type]
    try:
        CHECKS[scenario](result, client, "grpc")  # exactly the direct run's checks, its statuses included
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n--- gateway log ---\n{gateway.log()[-6000:]}") from exc
    lines = [json.loads(line) for line in gateway.log().splitlines() if line.startswith("{")]
    assert any(line.get("passthrough") is True and line.get("binding") == "GRPC" for line in lines), lines[-3:]


# same version, gRPC caller, JSON-RPC agent: translated between bindings only
SAME = {"A": "v10", "B": "v03"}


@pytest.mark.parametrize("gateway_name", sorted(SAME))
@pytest.mark.parametrize("scenario", ["send_rich", "stream", "get_task_not_found", "ask_continue", "cancel_task"])
def test_grpc_client_same_version_http_agent(gateway_name: str, scenario: str, request: pytest.FixtureRequest) -> None:
    client = SAME[gateway_name]
    gateway: Gateway = request.getfixturevalue(f"gateway_{gateway_name}")
    _check(scenario, run_client(client, gateway.base_url, scenario, transport="grpc"), client, gateway)  # type: ignore[arg-type]


# v1.0 behaviour composed for a v0.3 agent over its HTTP interfaces (test_peers_compose.py has every binding
# in front of its JSON-RPC interface): the same flows when the agent is reached over HTTP+JSON only


def test_composed_flows_over_a_rest_only_v03_agent(gateway_B_rest_only: Gateway) -> None:
    listed = run_client("v10", gateway_B_rest_only.base_url, "list_tasks", transport="grpc")
    check_list_tasks({**listed, "_log": gateway_B_rest_only.log()[-4000:]})
    refused = run_client("v10", gateway_B_rest_only.base_url, "subscribe_finished", transport="grpc")
    expect_error(refused, "v10", "grpc", code=-32004, http_status=400)
    assert _upstream_bindings(gateway_B_rest_only) == {"HTTP+JSON"}, gateway_B_rest_only.log()[-3000:]
