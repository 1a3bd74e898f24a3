"""strands-agents (1.62, its A2AServer and A2AAgent, on a2a-sdk 0.3) through the gateway on its defaults: real
a2a-sdk 0.3 and 1.x clients on the bindings the gateway serves to a strands agent, and strands' own client to
strands and a2a-sdk agents, passing through the gateway what it passes directly (and reaching a 1.x agent,
whose card it cannot read directly)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.peers.gateway import Gateway
from tests.peers.harness import Agent, agent_fixture, check_through, gateway_fixture, run_client
from tests.peers.peer_common import EACH
from tests.peers.test_peers_direct import CHECKS, Result

pytestmark = pytest.mark.peers

agent_strands = agent_fixture("strands")
agent_strands_legacy = agent_fixture("strands", extra=("--legacy-streaming",))  # A2AServer's default streaming
agent_v03 = agent_fixture("v03")
agent_v10 = agent_fixture("v10")
gateway_strands = gateway_fixture("strands")
gateway_strands_legacy = gateway_fixture("strands_legacy")
gateway_v03 = gateway_fixture("v03")
gateway_v10 = gateway_fixture("v10")


# ---- a2a-sdk clients → gateway → strands agent ----------------------------------------------------------------------


def check_send_text(r: Result, generation: str, transport: str) -> None:
    # strands: the reply is an artifact `agent_response` streamed chunk by chunk (an empty last chunk closes
    # it), the final status carries no message
    assert r["ok"] and r["result_kind"] == "task", r
    assert (r["summary"]["state"], r["summary"]["status_text"]) == ("completed", None), r
    assert [a["parts"] for a in r["summary"]["artifacts"]] == [
        [{"kind": "text", "text": "echo hello world"}, {"kind": "text", "text": ""}]], r


def check_stream(r: Result, generation: str, transport: str) -> None:
    # each text delta of strands' model an artifact chunk, appended to the first, an empty one the last
    assert r["ok"], r
    events = r["events"]
    assert [e["kind"] for e in events] == ["task", *["artifact-update"] * 4, "status-update"], events
    assert [(e["text"], bool(e["append"]), bool(e["last_chunk"])) for e in events[1:-1]] == [
        ("chunk 0", False, False), ("chunk 1", True, False), ("chunk 2", True, False), ("", True, True)], events
    assert (events[0]["state"], events[-1]["state"]) == ("submitted", "completed"), events
    assert len({e["task_id"] for e in events}) == 1, events


def check_get_extended_card(r: Result, generation: str, transport: str) -> None:
    # strands serves no extended card and its agent no skills: the gateway's own card answers
    assert r["ok"] and r["skills"] == [], r


SDK_CHECKS = {
    "send_text": check_send_text,
    "stream": check_stream,
    "get_task_not_found": CHECKS["get_task_not_found"],
    "get_extended_card": check_get_extended_card,
}


@pytest.mark.parametrize("transport", ["jsonrpc", "rest"])  # the gateway serves no gRPC on its defaults
@pytest.mark.parametrize("generation", ["v03", "v10"])
@pytest.mark.parametrize("scenario", sorted(SDK_CHECKS))
def test_sdk_clients_through_the_gateway_to_a_strands_agent(scenario: str, generation: str, transport: str,
                                                            gateway_strands: Gateway) -> None:
    check_through(gateway_strands, generation, scenario, transport, SDK_CHECKS[scenario])  # type: ignore[arg-type]


def check_legacy_stream(r: Result, generation: str, transport: str) -> None:
    # A2AServer's default streaming: each text delta a `working` status update, then the whole text (and a
    # newline) as one artifact
    assert r["ok"], r
    events = r["events"]
    assert [e["kind"] for e in events] == ["task", *["status-update"] * 3, "artifact-update", "status-update"], events
    assert [e["text"] for e in events[1:4]] == ["chunk 0", "chunk 1", "chunk 2"], events
    assert events[4]["text"] == "chunk 0chunk 1chunk 2\n" and events[-1]["state"] == "completed", events


@pytest.mark.parametrize("transport", ["jsonrpc", "rest"])
@pytest.mark.parametrize("generation", ["v03", "v10"])
def test_sdk_clients_through_the_gateway_to_a_strands_agent_streaming_as_by_default(
        generation: str, transport: str, gateway_strands_legacy: Gateway) -> None:
    check_through(gateway_strands_legacy, generation, "stream", transport, check_legacy_stream)  # type: ignore[arg-type]


# ---- strands' client → gateway → strands and a2a-sdk agents ---------------------------------------------------------


def _each(url: str) -> dict[str, Any]:
    """Every scenario of strands' client in one run: {scenario: what it made of the answer}."""
    result = run_client("strands", url, EACH)
    assert result["ok"], result
    scenarios: dict[str, Any] = result["scenarios"]
    return scenarios


@pytest.mark.parametrize("agent", ["strands", "strands_legacy"])
def test_strands_client_passes_through_the_gateway_what_it_passes_directly(agent: str,
                                                                          request: pytest.FixtureRequest) -> None:
    upstream: Agent = request.getfixturevalue(f"agent_{agent}")
    gateway: Gateway = request.getfixturevalue(f"gateway_{agent}")
    direct = _each(upstream.base_url)
    assert direct["send_text"] == {"ok": True, "text": "echo hello world", "stop_reason": "end_turn"}, direct
    assert direct["stream"]["text"] == ("chunk 0chunk 1chunk 2" if agent == "strands_legacy"
                                        else "chunk 0\nchunk 1\nchunk 2"), direct
    assert direct["get_extended_card"]["protocol_version"] == "0.3.0", direct
    assert direct["fail"]["text"] == "Agent execution failed", direct  # the model's error: the task failed
    through = _each(gateway.base_url)
    assert through == direct, (direct, through, gateway.log()[-6000:])


def test_strands_client_through_the_gateway_to_sdk_agents(agent_v03: Agent, agent_v10: Agent,
                                                          gateway_v03: Gateway, gateway_v10: Gateway) -> None:
    """strands' client to a2a-sdk agents of either version through the gateway: as it reaches the 0.3 agent
    directly (the 1.x agent's v1.0 card it cannot read directly)."""
    direct = _each(agent_v03.base_url)
    assert direct["send_text"]["text"] == "echo hello world", direct
    assert direct["stream"]["text"] == "streamed 3 chunks", direct
    assert direct["fail"]["text"] == "failure requested", direct
    cannot = _each(agent_v10.base_url)
    assert all(not r["ok"] and "agent card" in r["error"]["message"] for r in cannot.values()), cannot
    for gateway in (gateway_v03, gateway_v10):
        through = _each(gateway.base_url)
        assert through == direct, (direct, through, gateway.log()[-6000:])
