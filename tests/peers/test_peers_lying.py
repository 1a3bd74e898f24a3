"""Real a2a-sdk agents behind cards that lie about their protocol version (`--lie`: a v0.3 agent serving a
v1.0 card, a v1.0 agent serving a v0.3 card), with real SDK clients of both versions through the gateway on
its defaults: the version probe corrects the card, and every scenario passes as against an honest card."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.peers.gateway import ROOT, Gateway, free_port, run_gateway
from tests.peers.harness import Agent, agent_fixture, run_client
from tests.peers.test_peers_direct import CHECKS

pytestmark = pytest.mark.peers

liar_v03 = agent_fixture("v03", lie=True)   # speaks 0.3, its card claims 1.0
liar_v10 = agent_fixture("v10", lie=True)   # speaks 1.0, its card claims 0.3

SCENARIOS = ["send_rich", "stream", "get_task", "ask_continue", "cancel_task", "get_task_not_found"]


@pytest.fixture(scope="module")
def gateways(liar_v03: Agent, liar_v10: Agent) -> Iterator[dict[str, Gateway]]:
    """A gateway on its defaults in front of each liar, by the version the agent really speaks."""
    with run_gateway(liar_v03.base_url) as g03, run_gateway(liar_v10.base_url) as g10:
        yield {"v03": g03, "v10": g10}


def test_the_cards_lie(liar_v03: Agent, liar_v10: Agent) -> None:
    with urllib.request.urlopen(liar_v03.card_url, timeout=5) as r:
        assert json.load(r)["supportedInterfaces"][0]["protocolVersion"] == "1.0"
    with urllib.request.urlopen(liar_v10.card_url, timeout=5) as r:
        card = json.load(r)
    assert card["protocolVersion"].startswith("0.3") and "supportedInterfaces" not in card


@pytest.mark.parametrize("transport", ["jsonrpc", "rest"])
@pytest.mark.parametrize("client", ["v03", "v10"])
@pytest.mark.parametrize("agent", ["v03", "v10"])
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_clients_pass_through_a_lying_card(agent: str, client: str, scenario: str, transport: str,
                                           gateways: dict[str, Gateway]) -> None:
    gateway = gateways[agent]
    result = run_client(client, gateway.base_url, scenario, transport=transport)  # type: ignore[arg-type]
    try:
        CHECKS[scenario](result, client, transport)
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n--- gateway log ---\n{gateway.log()[-6000:]}") from exc


@pytest.mark.parametrize("agent", ["v03", "v10"])
def test_the_lie_is_logged_counted_and_shown_in_readiness(agent: str, gateways: dict[str, Gateway]) -> None:
    gateway = gateways[agent]
    assert "upstream_version_mismatch" in gateway.log()
    with urllib.request.urlopen(gateway.admin_url + "/metrics", timeout=5) as r:
        metrics = r.read().decode()
    assert 'a2a_gateway_upstream_version_checks_total{outcome="corrected"} 2.0' in metrics, metrics
    with urllib.request.urlopen(gateway.admin_url + "/readyz", timeout=5) as r:
        ready = json.load(r)
    speaks = {"v03": "0.3", "v10": "1.0"}[agent]
    assert {(i["claimed"], i["observed"], i["status"]) for i in ready["upstream"]["interfaces"]} == {
        ("1.0" if speaks == "0.3" else "0.3", speaks, "corrected")}


@pytest.mark.parametrize("agent", ["v03", "v10"])
def test_probe_reports_the_lying_card(agent: str, liar_v03: Agent, liar_v10: Agent) -> None:
    liar = {"v03": liar_v03, "v10": liar_v10}[agent]
    done = subprocess.run([sys.executable, "-m", "gateway", "probe", liar.base_url, "--json"], capture_output=True,
                          text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 3, done.stdout + done.stderr
    report = json.loads(done.stdout)
    speaks = {"v03": "0.3", "v10": "1.0"}[agent]
    assert report["verdict"] == "lying" and {i["observed"] for i in report["interfaces"]} == {speaks}


agent_v03_grpc = agent_fixture("v03", grpc=True)


def test_probe_checks_grpc_interfaces_over_grpc(agent_v03_grpc: Agent, tmp_path: Path) -> None:
    """The real a2a-sdk 0.3 gRPC service behind a card claiming 1.0 for it: probed over gRPC, the v1.0 call
    reaches no service (UNIMPLEMENTED), the v0.3 one answers NOT_FOUND: the lie is found and corrected."""
    with urllib.request.urlopen(agent_v03_grpc.card_url, timeout=5) as r:
        card = json.load(r)
    grpc_url = next(i["url"] for i in card["additionalInterfaces"] if i["transport"] == "GRPC")
    liar = {"name": "grpc liar", "version": "1", "description": "", "capabilities": {}, "skills": [],
            "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
            "supportedInterfaces": [{"url": grpc_url, "protocolBinding": "GRPC", "protocolVersion": "1.0"}]}
    (tmp_path / ".well-known").mkdir()
    (tmp_path / ".well-known" / "agent-card.json").write_text(json.dumps(liar))
    with _static_server(tmp_path) as base:
        done = subprocess.run([sys.executable, "-m", "gateway", "probe", base, "--json"], capture_output=True,
                              text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 3, done.stdout + done.stderr
    [iface] = json.loads(done.stdout)["interfaces"]
    assert (iface["binding"], iface["claimed"], iface["observed"], iface["status"]) == ("GRPC", "1.0", "0.3",
                                                                                        "corrected")
    assert [(p["version"], p["verdict"]) for p in iface["probes"]] == [("1.0", "disproven"), ("0.3", "proven")]
    assert f"probed GRPC {grpc_url} in A2A 1.0" in done.stderr  # the progress line


@contextmanager
def _static_server(root: Path) -> Iterator[str]:
    """Python's own file server on loopback, serving `root` (the card)."""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                                "--directory", str(root)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/.well-known/agent-card.json", timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(5)
