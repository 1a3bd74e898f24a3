"""The harness's own proof and the same-version baseline: every scenario of each SDK client against the agent
of its own generation (all three bindings), plus the cross-version edges the gateway exists to bridge."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.peers.harness import Agent, Transport, agent_fixture, run_client, start_agent
from tests.peers.venvs import Generation
from tests.peers.webhook import Notification, WebhookReceiver

pytestmark = pytest.mark.peers

agent_v03 = agent_fixture("v03", grpc=True)
agent_v10 = agent_fixture("v10", grpc=True)

Result = dict[str, Any]
PAIRS = [(generation, transport) for generation in ("v03", "v10") for transport in ("jsonrpc", "rest", "grpc")]
# a2a-sdk 0.3's gRPC server: status codes of its own (UNIMPLEMENTED for not-cancelable), no extended card
# (GetAgentCard answers with the public one), no list/delete push-config RPCs
V03_GRPC_STATUS = {-32001: "NOT_FOUND", -32002: "UNIMPLEMENTED"}


@pytest.fixture
def agent(request: pytest.FixtureRequest) -> Agent:
    generation = request.node.callspec.params["generation"]
    fixture: Agent = request.getfixturevalue(f"agent_{generation}")
    return fixture


def expect_error(result: Result, generation: str, transport: str, *, code: int, http_status: int) -> None:
    """JSON-RPC errors carry their code; the 0.3.x REST client only surfaces the HTTP status; the 0.3.x
    gRPC client raises the bare call error (the code comes from its "<ErrorClass>: " message)."""
    assert result["ok"] is False, result
    if generation == "v03" and transport == "rest":
        assert result["error"]["http_status"] == http_status, result
    else:
        assert result["error"]["code"] == code, result
    if generation == "v03" and transport == "grpc":
        assert result["error"]["grpc_status"] == V03_GRPC_STATUS[code], result


# ---- one check per scenario --------------------------------------------------------------------------


def check_send_text(r: Result, generation: str, transport: str) -> None:
    assert r["ok"] and r["result_kind"] == "task", r
    assert r["summary"]["state"] == "completed"
    assert r["summary"]["status_text"] == "echo hello world"
    assert [a["parts"] for a in r["summary"]["artifacts"]] == [[{"kind": "text", "text": "echo hello world"}]]


def check_send_rich(r: Result, generation: str, transport: str) -> None:
    assert r["ok"] and r["summary"]["state"] == "completed", r
    assert [p["kind"] for p in r["sent_parts"]] == ["text", "data", "file", "file"]
    assert r["parts_match"], (r["sent_parts"], r["status_parts"], r["artifact_parts"])


def check_send_message_reply(r: Result, generation: str, transport: str) -> None:
    assert r["ok"] and r["result_kind"] == "message", r
    assert r["text"] == "reply: hi there"


def check_get_task(r: Result, generation: str, transport: str) -> None:
    assert r["ok"] and r["same_id"], r
    assert r["summary"]["state"] == "completed"


def check_cancel_task(r: Result, generation: str, transport: str) -> None:
    assert r["ok"], r
    assert r["initial_state"] in {"submitted", "working"}
    assert r["summary"]["state"] == r["state_after_get"] == "canceled"


def check_cancel_finished(r: Result, generation: str, transport: str) -> None:
    expect_error(r, generation, transport, code=-32002, http_status=409)  # TaskNotCancelableError


def check_stream(r: Result, generation: str, transport: str) -> None:
    assert r["ok"], r
    events = r["events"]
    assert [e["kind"] for e in events] == ["task", "status-update", *["artifact-update"] * 3, "status-update"]
    assert [e.get("state") for e in events if e["kind"] != "artifact-update"] == [
        "submitted",
        "working",
        "completed",
    ]
    chunks = [e for e in events if e["kind"] == "artifact-update"]
    assert [c["text"] for c in chunks] == ["chunk 0", "chunk 1", "chunk 2"]
    assert [bool(c["append"]) for c in chunks] == [False, True, True]
    assert [bool(c["last_chunk"]) for c in chunks] == [False, False, True]
    assert len({e["task_id"] for e in events}) == 1
    if generation == "v03":  # `final` exists in v0.3 only
        assert [e["final"] for e in events if e["kind"] == "status-update"] == [False, True]


def check_ask_continue(r: Result, generation: str, transport: str) -> None:
    assert r["ok"], r
    assert (r["first_state"], r["question"]) == ("input-required", "What is the answer?")
    assert (r["final_state"], r["final_text"]) == ("completed", "got 42")
    assert r["same_task"] and r["same_context"]


def check_resubscribe(r: Result, generation: str, transport: str) -> None:
    assert r["ok"], r
    assert r["initial_state"] in {"submitted", "working"}
    events = r["events"]
    if generation == "v03" and transport == "grpc" and r["final_state"] != "completed":
        # a2a-sdk 0.3's gRPC server sometimes closes a resubscription's tapped queue before its last
        # events ("Queue is closed. Event will not be dequeued."): what arrived must still be in order
        assert [e["text"] for e in events if e["kind"] == "status-update"][:1] in ([], ["step 1/2"], ["step 2/2"])
        return
    assert r["final_state"] == "completed"
    assert {e["task_id"] for e in events} == {r["task_id"]}
    assert [e["text"] for e in events if e["kind"] == "status-update"][-2:] == ["step 2/2", "slow done"]
    if generation == "v10":  # a v1.0 subscription opens with a Task snapshot
        assert events[0]["kind"] == "task"
    else:
        assert {e["kind"] for e in events} == {"status-update"} and events[-1]["final"] is True


def check_get_task_not_found(r: Result, generation: str, transport: str) -> None:
    expect_error(r, generation, transport, code=-32001, http_status=404)  # TaskNotFoundError


def check_get_extended_card(r: Result, generation: str, transport: str) -> None:
    assert r["ok"], r
    if generation == "v03" and transport == "grpc":
        assert r["skills"] == ["echo", "script"]  # the public card (see V03_GRPC_STATUS)
    else:
        assert r["skills"] == ["echo", "script", "secret"]


CHECKS: dict[str, Callable[[Result, str, str], None]] = {
    name.removeprefix("check_"): check for name, check in globals().items() if name.startswith("check_")
}


@pytest.mark.parametrize(("generation", "transport"), PAIRS)
@pytest.mark.parametrize("scenario", sorted(CHECKS))
def test_scenario(agent: Agent, generation: Generation, transport: Transport, scenario: str) -> None:
    result = run_client(generation, agent.base_url, scenario, transport=transport)
    assert (result["scenario"], result["generation"], result["transport"]) == (
        scenario,
        generation,
        transport,
    )
    try:
        CHECKS[scenario](result, generation, transport)
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n--- agent log ---\n{agent.log()[-4000:]}") from exc


# ---- push: CRUD through the client, delivery through the SDK's real sender -----------------------


@pytest.fixture
def webhook() -> Iterator[WebhookReceiver]:
    with WebhookReceiver() as receiver:
        yield receiver


@pytest.mark.parametrize(("generation", "transport"), PAIRS)
def test_push_crud(
    agent: Agent, generation: Generation, transport: Transport, webhook: WebhookReceiver
) -> None:
    r = run_client(generation, agent.base_url, "push_crud", transport=transport, webhook=webhook.url)
    steps = r["steps"]
    config = steps["set"]["result"]
    assert steps["set"]["ok"] and steps["get"]["ok"] and steps["get"]["result"] == config, r
    assert steps["continue"]["result"]["state"] == "completed"
    if generation == "v03" and transport == "rest":
        # a2a-sdk 0.3.x REST server: list raises NotImplementedError (500), DELETE has no route (405).
        assert r["ok"] is False and r["error"]["message"] == "list, delete, list_after_delete", r
        assert [steps[s]["error"]["http_status"] for s in ("list", "delete", "list_after_delete")] == [
            500,
            405,
            500,
        ]
    elif generation == "v03" and transport == "grpc":
        # a2a-sdk 0.3.x gRPC server: the generated servicer's "Method not implemented!" for both RPCs
        assert r["ok"] is False and r["error"]["message"] == "list, delete, list_after_delete", r
        assert {steps[s]["error"]["grpc_status"] for s in ("list", "delete", "list_after_delete")} == {
            "UNIMPLEMENTED"
        }
    else:
        assert r["ok"], r
        assert steps["list"]["result"] == [config]
        assert steps["delete"]["ok"] and steps["list_after_delete"]["result"] == []

    def about_task(n: Notification) -> bool:
        return r["task_id"] in n.raw

    def completed(n: Notification) -> bool:
        return about_task(n) and ('"completed"' in n.raw or "TASK_STATE_COMPLETED" in n.raw)

    assert webhook.wait_for(completed), [n.raw for n in webhook.received]
    assert {n.headers.get("X-A2A-Notification-Token") for n in webhook.received if about_task(n)} == {
        "push-token-1"
    }


# ---- cross-version edges: what the gateway is for ---------------------------------------------------


def test_v10_client_never_falls_back_to_v03(agent_v03: Agent) -> None:
    r = run_client("v10", agent_v03.base_url, "send_text")
    assert r["ok"] is False and r["error"]["type"] == "NoV10InterfaceError", r


def test_v03_client_cannot_use_pure_v10_agent(agent_v10: Agent) -> None:
    r = run_client("v03", agent_v10.base_url, "send_text")
    assert r["ok"] is False, r


def test_v10_agent_with_sdk_compat_serves_v03_client() -> None:
    with start_agent("v10", compat=True, grpc=True) as compat_agent:
        for transport in ("jsonrpc", "grpc"):
            for scenario in ("send_text", "stream"):
                r = run_client("v03", compat_agent.base_url, scenario, transport=transport)
                CHECKS[scenario](r, "v03", transport)
        # the compat gRPC service answers with the 1.x status codes and "<ErrorClass>: <message>"
        r = run_client("v03", compat_agent.base_url, "cancel_finished", transport="grpc")
        assert r["error"]["code"] == -32002 and r["error"]["grpc_status"] == "FAILED_PRECONDITION", r
        check_send_text(run_client("v10", compat_agent.base_url, "send_text"), "v10", "jsonrpc")
