"""The fault suite's fixtures: one hostile agent per version and binding (tests/faults/hostile.py) and, in
front of each, the gateway as users start it (`python -m gateway --listen … --upstream …`,
tests/peers/gateway.py), shared by the suite's cases: each case checks the gateway is still healthy after
it, and at the end no gateway's log holds a traceback (an exception that reached the boundary's last
resort; aiohttp's own line for an unparsable HTTP request, which the broken-HTTP cases provoke, aside)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass

import pytest

from tests.faults.hostile import HostileAgent
from tests.peers.gateway import Gateway, run_gateway


@dataclass(frozen=True)
class Front:
    """A hostile agent of one version and the gateway in front of it."""

    agent: HostileAgent
    gateway: Gateway


@pytest.fixture(scope="session")
def fronts() -> Iterator[dict[str, Front]]:
    """{"0.3": Front, "1.0": Front, "0.3 rest": Front, "1.0 rest": Front}: by the agent's version (and
    binding, JSON-RPC unless said)."""
    agents = {"0.3": HostileAgent("0.3"), "1.0": HostileAgent("1.0"),
              "0.3 rest": HostileAgent("0.3", "HTTP+JSON"), "1.0 rest": HostileAgent("1.0", "HTTP+JSON")}
    for agent in agents.values():
        agent.start()
    try:
        with ExitStack() as stack:
            gateways = {key: stack.enter_context(run_gateway(agent.url)) for key, agent in agents.items()}
            yield {key: Front(agents[key], gateway) for key, gateway in gateways.items()}
            for gateway in gateways.values():  # nothing any case sent reached the boundary's last resort
                bad = [line for line in gateway.log().splitlines()
                       if ("internal_error" in line or "Traceback" in line) and "BadHttpMessage" not in line]
                assert not bad, "\n".join(bad)
    finally:
        for agent in agents.values():
            agent.stop()
