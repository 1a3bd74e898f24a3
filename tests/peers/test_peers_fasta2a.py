"""A fasta2a agent (pydantic's own A2A implementation: a v1.0 card, JSON-RPC only, v0.3 method names accepted,
naive timestamps, a bare -32001, message/send answered with the task just submitted) through the gateway on its
defaults: real a2a-sdk 0.3 and 1.x clients on every binding the gateway serves (JSON-RPC, HTTP+JSON, gRPC), and
fasta2a's own client, which must pass through the gateway what it passes directly."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.peers.gateway import Gateway, free_port, run_gateway
from tests.peers.harness import Agent, agent_fixture, check_through, run_client
from tests.peers.test_peers_direct import CHECKS, Result

pytestmark = pytest.mark.peers

agent_fasta2a = agent_fixture("fasta2a")


@pytest.fixture(scope="module")
def gateway_fasta2a(agent_fasta2a: Agent) -> Iterator[Gateway]:
    # the gRPC listener on, as the README's command line turns it on: every binding the gateway serves
    with run_gateway(agent_fasta2a.base_url, "--grpc-listen", f"127.0.0.1:{free_port()}") as gateway:
        yield gateway


def _ask_continue(r: Result, generation: str, transport: str) -> None:
    # fasta2a makes a new task of every message, in the context the client names
    CHECKS["ask_continue"]({**r, "same_task": True}, generation, transport)
    assert r["same_task"] is False and r["same_context"], r


def _public_card(r: Result) -> None:
    # fasta2a has no extended card: the gateway's own card answers, the agent's skills in it
    assert r["ok"] and r["skills"] == ["echo", "script"], r


# scenario → its check. fasta2a answers every message/send with the task just submitted, blocking or not: the
# gateway reads the task again for a caller that waits, so plain sends see the settled task
SDK_CHECKS = {
    "send_text": CHECKS["send_text"],
    "send_rich": CHECKS["send_rich"],
    "ask_continue": _ask_continue,
    "stream": CHECKS["stream"],
    "get_task_not_found": CHECKS["get_task_not_found"],
    "get_extended_card": lambda r, generation, transport: _public_card(r),
}


@pytest.mark.parametrize("transport", ["jsonrpc", "rest", "grpc"])
@pytest.mark.parametrize("generation", ["v03", "v10"])
@pytest.mark.parametrize("scenario", sorted(SDK_CHECKS))
def test_sdk_clients_through_the_gateway(scenario: str, generation: str, transport: str,
                                         gateway_fasta2a: Gateway) -> None:
    check_through(gateway_fasta2a, generation, scenario, transport, SDK_CHECKS[scenario])  # type: ignore[arg-type]


@pytest.mark.parametrize("generation", ["v03", "v10"])
def test_a_plain_send_fails_directly_and_completes_through_the_gateway(generation: str, agent_fasta2a: Agent,
                                                                      gateway_fasta2a: Gateway) -> None:
    """Directly, neither SDK client gets a completed task from a plain send: a2a-sdk 0.3 refuses fasta2a's
    v1.0 card, a2a-sdk 1.x its naive status timestamp (and the task would be only submitted). Through the
    gateway the same send completes, the wait noted."""
    try:
        direct = run_client(generation, agent_fasta2a.base_url, "send_text")
    except AssertionError as crashed:   # the client's harness crashed on what it was sent
        direct = {"ok": False, "crashed": str(crashed)[-400:]}
    assert not (direct["ok"] and direct["summary"]["state"] == "completed"), direct
    through = run_client(generation, gateway_fasta2a.base_url, "send_text")
    assert through["ok"] and through["summary"]["state"] == "completed", through
    assert "blocking_settled" in gateway_fasta2a.log(), gateway_fasta2a.log()[-3000:]


def _without_timestamps(result: Result) -> dict[str, Any]:
    """The result without what only the gateway's timestamp repair changes (whether a status time is UTC)."""
    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k != "timestamp_utc"}
        return [strip(v) for v in value] if isinstance(value, list) else value
    return strip(result)  # type: ignore[no-any-return]


FASTA2A_SCENARIOS = ("send_text", "send_rich", "stream", "ask_continue", "get_task_not_found")


@pytest.mark.parametrize("scenario", FASTA2A_SCENARIOS)
def test_fasta2a_client_passes_through_the_gateway_what_it_passes_directly(
        scenario: str, agent_fasta2a: Agent, gateway_fasta2a: Gateway) -> None:
    direct = run_client("fasta2a", agent_fasta2a.base_url, scenario)
    through = run_client("fasta2a", gateway_fasta2a.base_url, scenario)
    assert _without_timestamps(through) == _without_timestamps(direct), (direct, through, gateway_fasta2a.log())
    if scenario == "get_task_not_found":
        assert direct["error"]["code"] == -32001, direct
        return
    assert direct["ok"], direct
    summaries = [through[k] for k in ("summary", "first", "final") if k in through]
    # fasta2a writes datetime.now().isoformat(): directly a naive time, through the gateway UTC
    assert all(s["timestamp_utc"] for s in summaries) and not any(d["timestamp_utc"] for d in
                                                                  (direct[k] for k in ("summary", "first", "final")
                                                                   if k in direct)), (direct, through)
    if scenario == "send_rich":
        assert through["parts_match"], through


agent_v03 = agent_fixture("v03")
agent_v10 = agent_fixture("v10")


@pytest.mark.parametrize("generation", ["v03", "v10"])
def test_fasta2a_client_through_the_gateway_to_sdk_agents(generation: str, request: pytest.FixtureRequest) -> None:
    """fasta2a's client in front of a2a-sdk agents of either version: what its shapes tell (a v1.0-shaped
    message under v0.3 names) is answered in them. (Directly it reaches neither: a 1.x agent has no v0.3
    names, and fasta2a's client posts to the card URL's path with a slash added, which a2a-sdk 0.3's
    `/jsonrpc` redirects.)"""
    agent: Agent = request.getfixturevalue(f"agent_{generation}")
    with run_gateway(agent.base_url) as gateway:
        results = {s: run_client("fasta2a", gateway.base_url, s) for s in FASTA2A_SCENARIOS}
        log = gateway.log()
    assert results["send_text"]["summary"] == {"state": "completed", "status_text": "echo hello world",
                                               "artifacts": [[{"text": "echo hello world"}]],
                                               "timestamp_utc": True}, (results, log)
    assert results["send_rich"]["parts_match"], (results, log)
    events = results["stream"]["events"]
    assert [e["kind"] for e in events] == ["task", "status_update", *["artifact_update"] * 3, "status_update"]
    assert [e["parts"] for e in events if "parts" in e] == [[{"text": f"chunk {i}"}] for i in range(3)]
    ask = results["ask_continue"]
    assert (ask["first"]["state"], ask["first"]["status_text"]) == ("input-required", "What is the answer?")
    assert (ask["final"]["state"], ask["final"]["status_text"]) == ("completed", "got 42"), (ask, log)
    if generation == "v10":
        assert results["get_task_not_found"]["error"]["code"] == -32001, results
    else:  # a2a-sdk 0.3 refuses its tasks/get `"id": null` (-32602, an answer without id), relayed as it is
        assert results["get_task_not_found"]["error"]["type"] == "ValidationError", results
