"""A langgraph-api agent (`langgraph dev`, LangGraph's own A2A: a 1.0 card, JSON-RPC only, v1.0 method names
answered with v0.3-shaped parts and events, v1.0-shaped file parts refused) through the gateway on its defaults:
real a2a-sdk 0.3 and 1.x clients on every binding the gateway serves, each test against a fresh gateway (the
call it makes is the gateway's first to the agent); the same clients directly to the agent as the baseline."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.peers.gateway import Gateway, free_port, run_gateway
from tests.peers.harness import Agent, agent_fixture, check_through, run_client
from tests.peers.test_peers_direct import CHECKS, Result

pytestmark = pytest.mark.peers

agent_langgraph = agent_fixture("langgraph")

QUESTION = "What is the answer?"


@pytest.fixture
def gateway(agent_langgraph: Agent) -> Iterator[Gateway]:
    """A fresh gateway per test: the scenario's first call is the first the gateway makes to the agent. Its
    gRPC listener on, as the README's `--grpc-listen` turns it on: every binding the gateway serves."""
    with run_gateway(agent_langgraph.base_url, "--grpc-listen", f"127.0.0.1:{free_port()}") as gateway:
        yield gateway


def _send_text(r: Result, generation: str, transport: str) -> None:
    # langgraph answers with the task's artifact; a completed status carries no message
    assert r["ok"] and r["result_kind"] == "task", r
    assert (r["summary"]["state"], r["summary"]["status_text"]) == ("completed", None), r
    assert [a["parts"] for a in r["summary"]["artifacts"]] == [[{"kind": "text", "text": "echo hello world"}]], r


def _send_rich(r: Result, generation: str, transport: str) -> None:
    # text and both files come back in the artifact; a data part is read as the graph's input fields, and
    # langgraph's A2A answers no plain data part
    assert r["ok"] and r["summary"]["state"] == "completed", r
    assert [p["kind"] for p in r["sent_parts"]] == ["text", "data", "file", "file"]
    assert r["artifact_parts"] == [p for p in r["sent_parts"] if p["kind"] != "data"], r


def _stream(r: Result, generation: str, transport: str) -> None:
    # each message the graph writes is a working status with its text; the last one again as the artifact
    assert r["ok"], r
    events = r["events"]
    assert [e["kind"] for e in events] == ["task", *["status-update"] * 3, "artifact-update", "status-update"], r
    assert [e.get("state") for e in events] == ["submitted", *["working"] * 3, None, "completed"], r
    assert [e["text"] for e in events[1:5]] == ["chunk 0", "chunk 1", "chunk 2", "chunk 2"], r
    assert len({e["task_id"] for e in events}) == 1, r
    if generation == "v03":  # `final` exists in v0.3 only
        assert [e["final"] for e in events if e["kind"] == "status-update"] == [False, False, False, True], r


def _stream_rich(r: Result, generation: str, transport: str) -> None:
    # the rich message as a stream (the gateway's first call: langgraph refuses v1.0 file parts as the stream's
    # one event, and the gateway sends it again in v0.3): text and both files back in the artifact
    assert r["ok"] and r["final_state"] == "completed", r
    assert r["artifact_parts"] == [p for p in r["sent_parts"] if p["kind"] != "data"], r


def _ask_continue(r: Result, generation: str, transport: str) -> None:
    # the graph's interrupt: input-required, its question in an "Interrupt" artifact's data part; the answer
    # (the same task, in its context) resumes the run
    assert r["ok"], r
    assert (r["first_state"], r["final_state"]) == ("input-required", "completed"), r
    assert r["same_task"] and r["same_context"], r
    assert r["first"]["artifacts"][0]["parts"][0]["data"]["value"] == QUESTION, r
    assert r["final"]["artifacts"][-1]["parts"][0]["text"] == "got 42", r


def _card(r: Result, generation: str, transport: str) -> None:
    # langgraph has no extended card: the gateway's own card answers, the assistant's one skill in it
    assert r["ok"] and len(r["skills"]) == 1 and r["skills"][0].endswith("-main"), r


SDK_CHECKS: dict[str, Callable[[Result, str, str], None]] = {
    "send_text": _send_text,
    "send_rich": _send_rich,
    "stream": _stream,
    "stream_rich": _stream_rich,
    "ask_continue": _ask_continue,
    "get_task_not_found": CHECKS["get_task_not_found"],
    "get_extended_card": _card,
}


@pytest.mark.parametrize("transport", ["jsonrpc", "rest", "grpc"])
@pytest.mark.parametrize("generation", ["v03", "v10"])
@pytest.mark.parametrize("scenario", sorted(SDK_CHECKS))
def test_sdk_clients_through_the_gateway(scenario: str, generation: str, transport: str, gateway: Gateway) -> None:
    check_through(gateway, generation, scenario, transport, SDK_CHECKS[scenario])  # type: ignore[arg-type]


def _fails(check: Callable[[Result, str, str], None], result: Result, generation: str) -> bool:
    try:
        check(result, generation, "jsonrpc")
    except AssertionError:
        return True
    return False


@pytest.mark.parametrize("generation", ["v03", "v10"])
@pytest.mark.parametrize("scenario", sorted(SDK_CHECKS))
def test_sdk_clients_directly(scenario: str, generation: str, agent_langgraph: Agent) -> None:
    """The baseline: what each client gets from the agent without the gateway (JSON-RPC, the one binding
    langgraph serves). a2a-sdk 0.3 passes what it passes through the gateway; a2a-sdk 1.x has its file parts
    refused and reads langgraph's v0.3-shaped events as empty ones."""
    result = run_client(generation, agent_langgraph.base_url, scenario)
    expected: dict[str, Any] = {"code": -32005, "type": "ContentTypeNotSupportedError"}
    if generation == "v10" and scenario in ("send_rich", "stream_rich"):
        assert result["ok"] is False and {k: result["error"][k] for k in expected} == expected, result
    elif generation == "v10" and scenario == "stream":
        assert _fails(_stream, result, generation), result
        assert result["ok"] and not any(e.get("text") for e in result["events"]), result  # nothing read
    else:
        SDK_CHECKS[scenario](result, generation, "jsonrpc")
