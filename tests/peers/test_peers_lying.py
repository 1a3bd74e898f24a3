"""Real a2a-sdk agents behind cards that lie about their protocol version (`--lie`: a v0.3 agent serving a
v1.0 card, a v1.0 agent serving a v0.3 card), with real SDK clients of both versions through the gateway on
its defaults: the version probe corrects the card, and every scenario passes as against an honest card."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from collections.abc import Iterator

import pytest

from tests.peers.gateway import ROOT, Gateway, run_gateway
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
