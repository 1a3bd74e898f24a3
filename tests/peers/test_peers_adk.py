"""google-adk (2.13, `to_a2a` and `RemoteA2aAgent`) on either a2a-sdk line through the gateway on its defaults:
real a2a-sdk 0.3 and 1.x clients on the bindings the gateway serves to ADK agents of both lines, and ADK's own
client to ADK agents and a2a-sdk agents of both versions, passing through the gateway what it passes directly
(and reaching what it cannot directly: ADK on a2a-sdk 0.3 reads no v1.0 card)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.peers.gateway import Gateway
from tests.peers.harness import Agent, agent_fixture, check_through, gateway_fixture, run_client
from tests.peers.peer_common import EACH
from tests.peers.test_peers_direct import CHECKS, Result

pytestmark = pytest.mark.peers

agent_adk10 = agent_fixture("adk10")
agent_adk03 = agent_fixture("adk03")
agent_v03 = agent_fixture("v03")
agent_v10 = agent_fixture("v10")
gateway_adk10 = gateway_fixture("adk10")
gateway_adk03 = gateway_fixture("adk03")
gateway_v03 = gateway_fixture("v03")
gateway_v10 = gateway_fixture("v10")


# ---- a2a-sdk clients → gateway → ADK agents ----------------------------------------------------------------------


def _as_floats(value: Any) -> Any:
    """Numbers as floats: ADK on a2a-sdk 1.x keeps a data part in a protobuf Struct, whose numbers are doubles."""
    if isinstance(value, dict):
        return {k: _as_floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_floats(v) for v in value]
    return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


def check_send_text(r: Result, generation: str, transport: str) -> None:
    # ADK's executor: the reply is the task's artifact (and history), its final status carries no message
    assert r["ok"] and r["result_kind"] == "task", r
    assert (r["summary"]["state"], r["summary"]["status_text"]) == ("completed", None), r
    assert [a["parts"] for a in r["summary"]["artifacts"]] == [[{"kind": "text", "text": "echo hello world"}]], r


def check_send_rich(r: Result, generation: str, transport: str) -> None:
    assert r["ok"] and r["summary"]["state"] == "completed", r
    assert [p["kind"] for p in r["sent_parts"]] == ["text", "data", "file", "file"], r
    assert _as_floats(r["artifact_parts"]) == _as_floats(r["sent_parts"]), r


def check_stream(r: Result, generation: str, transport: str) -> None:
    # every ADK event a `working` status update with its parts; the last one again as the artifact
    assert r["ok"], r
    events = r["events"]
    texts = [e["text"] for e in events if e["kind"] == "status-update" and e["state"] == "working" and e["text"]]
    assert texts == [f"chunk {i}" for i in range(3)], events
    assert [(e["text"], bool(e["last_chunk"])) for e in events if e["kind"] == "artifact-update"] == [
        ("chunk 2", True)], events
    assert events[-1]["state"] == "completed" and len({e["task_id"] for e in events}) == 1, events
    if generation == "v10":  # v1.0: a Task first (the gateway's, when ADK on a2a-sdk 0.3 opens with an update)
        assert events[0]["kind"] == "task", events


def check_ask_continue(r: Result, generation: str, transport: str) -> None:
    # ADK's long-running tool call is A2A's input-required; the answer continues the same task
    assert r["ok"], r
    assert (r["first_state"], r["question"]) == ("input-required", "What is the answer?"), r
    assert r["final_state"] == "completed" and r["same_task"] and r["same_context"], r
    assert "got 42" in json.dumps(r["final"]["artifacts"]), r


def check_get_extended_card(r: Result, generation: str, transport: str) -> None:
    # ADK serves no extended card: the gateway's own card answers, the agent's one skill in it
    assert r["ok"] and r["skills"] == ["adk_test_peer"], r


SDK_CHECKS = {
    "send_text": check_send_text,
    "send_rich": check_send_rich,
    "stream": check_stream,
    "ask_continue": check_ask_continue,
    "get_task_not_found": CHECKS["get_task_not_found"],
    "get_extended_card": check_get_extended_card,
}
# ADK on a2a-sdk 0.3: the scenarios whose shapes differ between the lines (its own stream opening, its tasks)
ADK03_SCENARIOS = ("send_text", "stream", "ask_continue")


@pytest.mark.parametrize("transport", ["jsonrpc", "rest"])  # the gateway serves no gRPC on its defaults
@pytest.mark.parametrize("generation", ["v03", "v10"])
@pytest.mark.parametrize(("agent", "scenario"), [*(("adk10", s) for s in sorted(SDK_CHECKS)),
                                                 *(("adk03", s) for s in ADK03_SCENARIOS)])
def test_sdk_clients_through_the_gateway_to_adk_agents(agent: str, scenario: str, generation: str, transport: str,
                                                       request: pytest.FixtureRequest) -> None:
    gateway: Gateway = request.getfixturevalue(f"gateway_{agent}")
    check_through(gateway, generation, scenario, transport, SDK_CHECKS[scenario])  # type: ignore[arg-type]


# ---- ADK's client → gateway → ADK agents and a2a-sdk agents ---------------------------------------------------------


def _each(generation: str, url: str) -> dict[str, Any]:
    """Every scenario of ADK's client in one run: {scenario: what its ADK events carried}."""
    result = run_client(generation, url, EACH)  # type: ignore[arg-type]
    assert result["ok"], result
    scenarios: dict[str, Any] = result["scenarios"]
    return scenarios


def _cannot_read_card(results: dict[str, Any]) -> bool:
    """Whether every scenario ended in RemoteA2aAgent's one error event: the card it could not read."""
    return all(len(events := r.get("events") or r.get("final")) == 1 and "AgentCard" in events[0].get("error", "")
               for r in results.values())


@pytest.fixture(scope="module")
def adk10_directly(agent_adk10: Agent, agent_adk03: Agent) -> dict[str, dict[str, Any]]:
    """What ADK's client on a2a-sdk 1.x gets directly from ADK's agent of each line (it reads both cards)."""
    return {"adk10": _each("adk10", agent_adk10.base_url), "adk03": _each("adk10", agent_adk03.base_url)}


def test_adk_agents_answer_adk_clients_directly(agent_adk10: Agent, agent_adk03: Agent,
                                                adk10_directly: dict[str, dict[str, Any]]) -> None:
    """The baseline: ADK's client of each line to ADK's agents directly, all but ADK on a2a-sdk 0.3 to the 1.x
    agent, whose v1.0 card it cannot read."""
    for agent, direct in adk10_directly.items():
        assert direct["send_text"]["texts"] == ["echo hello world"] and direct["send_rich"]["parts_match"], direct
        assert direct["ask_continue"]["asked"] and direct["ask_continue"]["final_texts"] == ["got 42"], direct
        assert direct["fail"]["events"] == [{"partial": False, "parts": [{"text": "scripted failure"}]}], direct
        # each chunk an event, the last again as the artifact; a v0.3 agent's stream opens with the caller's text
        assert direct["stream"]["texts"] == ["stream 3"] * (agent == "adk03") + [
            "chunk 0", "chunk 1", "chunk 2", "chunk 2"], direct
    assert _each("adk03", agent_adk03.base_url) == adk10_directly["adk03"]
    assert _cannot_read_card(_each("adk03", agent_adk10.base_url))


@pytest.mark.parametrize("agent", ["adk10", "adk03"])
@pytest.mark.parametrize("client", ["adk10", "adk03"])
def test_adk_client_passes_through_the_gateway_what_it_passes_directly(
        client: str, agent: str, adk10_directly: dict[str, dict[str, Any]], request: pytest.FixtureRequest) -> None:
    """ADK's client of either line through the gateway to ADK's agent of either line: what ADK's client gets
    directly from that agent (a v0.3 agent's stream opening with the caller's message, a v1.0 caller's Task
    first: once)."""
    gateway: Gateway = request.getfixturevalue(f"gateway_{agent}")
    direct, through = adk10_directly[agent], _each(client, gateway.base_url)
    assert through == direct, (direct, through, gateway.log()[-6000:])


@pytest.fixture(scope="module")
def sdk_directly(agent_v03: Agent, agent_v10: Agent) -> dict[str, dict[str, Any]]:
    """What ADK's client on a2a-sdk 1.x gets directly from a2a-sdk agents of either version."""
    return {"v03": _each("adk10", agent_v03.base_url), "v10": _each("adk10", agent_v10.base_url)}


@pytest.mark.parametrize("agent", ["v03", "v10"])
@pytest.mark.parametrize("client", ["adk10", "adk03"])
def test_adk_client_through_the_gateway_to_sdk_agents(client: str, agent: str,
                                                      sdk_directly: dict[str, dict[str, Any]],
                                                      request: pytest.FixtureRequest) -> None:
    """ADK's client to a2a-sdk agents of either version through the gateway: as ADK on a2a-sdk 1.x reaches them
    directly (ADK on a2a-sdk 0.3 reads no v1.0 card directly)."""
    direct = sdk_directly[agent]
    assert direct["send_text"]["texts"] == ["echo hello world"] and direct["send_rich"]["parts_match"], direct
    assert direct["stream"]["texts"] == ["chunk 0", "chunk 1", "chunk 2", "streamed 3 chunks"], direct
    assert direct["ask_continue"]["final_texts"] == ["got 42"], direct
    assert direct["fail"]["events"] == [{"partial": False, "parts": [{"text": "failure requested"}]}], direct
    gateway: Gateway = request.getfixturevalue(f"gateway_{agent}")
    through = _each(client, gateway.base_url)
    assert through == direct, (direct, through, gateway.log()[-6000:])
