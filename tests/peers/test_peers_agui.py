"""The Done-when of the AG-UI front door: the real @ag-ui/client of both generations (1.0.0, 0.0.59), driven
by tests/agui_node/driver.mjs, through a gateway process to real a2a-sdk A2UI agents of both versions: a text
run painting two surfaces, an action run updating one and deleting the other, and a failing run."""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.agui_node.install import CLIENT_VERSIONS, run_driver
from tests.core.agui.conformance import validate
from tests.peers.gateway import Gateway, run_gateway
from tests.peers.harness import PEERS_DIR, Agent
from tests.peers.venvs import Generation, ensure_venv

pytestmark = pytest.mark.peers

ACTION = {
    "a2uiAction": {
        "userAction": {
            "name": "book",
            "surfaceId": "tables",
            "sourceComponentId": "go",
            "context": {"seats": 2},
        }
    }
}


def _start(generation: Generation, binding: str) -> Agent:
    args = [str(ensure_venv(generation)), str(PEERS_DIR / f"agent_a2ui_{generation}.py"), "--port", "0",
            *({"rest": ["--rest"], "grpc": ["--grpc-only"]}.get(binding, []))]
    fd, log_name = tempfile.mkstemp(prefix=f"peer-a2ui-{generation}-", suffix=".log")
    with os.fdopen(fd, "w") as log:
        process = subprocess.Popen(
            args, stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL, text=True, cwd=PEERS_DIR
        )
    agent = Agent(generation, process, Path(log_name))
    agent.wait_ready()
    return agent


# the agent serves one binding: JSON-RPC, HTTP+JSON or gRPC only (the door plans a v1.0 call, the agent port
# carries it over whatever binding the card lists; a gRPC-only agent's HTTP port serves its card alone).
# The 1.x agent lists A2UI v1.0 and v0.9: on its defaults the gateway activates v0.9, what front ends draw; a
# user whose front end draws v1.0 (assistant-ui) widens agui.a2ui_versions, as the last case does.
WIDEN = "v1.0,v0.9"


@pytest.fixture(scope="module", params=[("v10", "jsonrpc", ""), ("v03", "jsonrpc", ""), ("v10", "rest", ""),
                                        ("v03", "rest", ""), ("v10", "grpc", ""), ("v03", "grpc", ""),
                                        ("v10", "jsonrpc", WIDEN)],
                ids=lambda p: "-".join(filter(None, (p[0], p[1], p[2] and "a2ui-v1.0-first"))))
def gateway(request: pytest.FixtureRequest) -> Iterator[tuple[str, Gateway, Agent]]:
    generation, binding, preference = request.param
    env = {"A2A_GATEWAY_AGUI_A2UI_VERSIONS": preference} if preference else None
    with _start(generation, binding) as agent, run_gateway(agent.base_url, env=env) as gw:
        yield generation if not preference else "v10-widened", gw, agent


def _activities(run: dict[str, Any]) -> dict[str, list[str]]:
    return {m["id"]: m["ops"] for m in run["messages"] if m["role"] == "activity"}


def _a2ui_versions(run: dict[str, Any]) -> set[str]:
    return {v for m in run["messages"] if m["role"] == "activity" for v in m["versions"]}


def _texts(run: dict[str, Any]) -> list[str]:
    return [m["content"] for m in run["messages"] if m["role"] == "assistant"]


@pytest.mark.parametrize("client", CLIENT_VERSIONS)
def test_real_clients_paint_act_and_fail(gateway: tuple[str, Gateway, Agent], client: str) -> None:
    generation, gw, agent = gateway
    scenario = {
        "url": gw.base_url + "/agui",
        "threadId": f"thread-{generation}-{client}",
        "runs": [
            {"runId": "paint", "message": "show me tables"},
            {"runId": "act", "forwardedProps": ACTION},
            {"runId": "fail", "message": "fail"},
        ],
    }
    result = run_driver(client, scenario)
    context = f"\n--- gateway log ---\n{gw.log()[-4000:]}\n--- agent log ---\n{agent.log()[-3000:]}"
    assert result["client"] == client
    paint, act, fail = result["runs"]
    for run in result["runs"]:
        assert not run["invalid"], (run["invalid"], context)
        validate(run["events"], protocol10=client.startswith("1."))
    assert paint["error"] is None and paint["events"][-1]["type"] == "RUN_FINISHED", (paint, context)
    assert _activities(paint) == {
        "a2ui-surface-tables": ["createSurface", "updateComponents"],
        "a2ui-surface-promo": ["createSurface", "updateComponents"],
    }, context
    assert _texts(paint) == ["Looking for tables", "Pick a table"]
    assert _a2ui_versions(paint) == {"v1.0" if generation == "v10-widened" else "v0.9"}, context

    assert act["error"] is None and act["events"][-1]["type"] == "RUN_FINISHED", (act["events"], context)
    snaps = [e["messageId"] for e in act["events"] if e["type"] == "ACTIVITY_SNAPSHOT"]
    assert snaps == ["a2ui-surface-tables", "a2ui-surface-promo"]
    assert _activities(act) == {
        "a2ui-surface-tables": ["createSurface", "updateComponents", "updateDataModel", "updateComponents"],
        "a2ui-surface-promo": ["createSurface", "updateComponents", "deleteSurface"],
    }
    assert _texts(act)[-1] == "Booked a table for 2"

    last = fail["events"][-1]
    assert (
        last["type"] == "RUN_ERROR"
        and last["message"] == "quota exceeded"
        and last["code"] == "a2a.task_failed"
    )
    if client.startswith("1."):
        assert paint["events"][-1]["outcome"] == {"type": "success"}
    else:
        assert "outcome" not in paint["events"][-1]


@pytest.fixture(scope="module")
def replicas(gateway: tuple[str, Gateway, Agent]) -> Iterator[tuple[Gateway, Gateway]]:
    """Two more gateways in front of the same agent, sharing nothing, mirroring ids into the AG-UI state."""
    env = {"A2A_GATEWAY_AGUI_MIRROR_IDS_IN_STATE": "true"}
    with run_gateway(gateway[2].base_url, env=env) as one, run_gateway(gateway[2].base_url, env=env) as two:
        yield one, two


@pytest.mark.parametrize("client", CLIENT_VERSIONS)
def test_a_thread_moves_between_replicas_through_the_clients_state(  # case 50
    gateway: tuple[str, Gateway, Agent], replicas: tuple[Gateway, Gateway], client: str
) -> None:
    """The paint run goes to one replica, the action to another that never saw the thread: the ids the
    first wrote into the client's state (STATE_DELTA/STATE_SNAPSHOT, applied by the real client) let the
    second continue the task, which the agent insists on for an action."""
    generation, _, agent = gateway
    one, two = replicas
    scenario = {
        "url": one.base_url + "/agui",
        "threadId": f"replicas-{generation}-{client}",
        "runs": [
            {"runId": "paint", "message": "show me tables"},
            {"runId": "act", "forwardedProps": ACTION, "url": two.base_url + "/agui"},
        ],
    }
    result = run_driver(client, scenario)
    context = f"\n--- replica 2 log ---\n{two.log()[-4000:]}\n--- agent log ---\n{agent.log()[-3000:]}"
    paint, act = result["runs"]
    for run in result["runs"]:
        assert not run["invalid"] and run["error"] is None, (run, context)
        validate(run["events"], protocol10=client.startswith("1."))
    mirrored = paint["state"]["a2a"]
    assert mirrored["taskId"] and mirrored["contextId"] and mirrored["taskState"] == "TASK_STATE_INPUT_REQUIRED"
    assert act["events"][-1]["type"] == "RUN_FINISHED", (act["events"], context)
    assert _texts(act)[-1] == "Booked a table for 2"
    assert act["state"]["a2a"] == {"contextId": mirrored["contextId"]}   # the task completed
