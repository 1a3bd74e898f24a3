"""The fault suite's fixtures: one hostile agent per version (tests/faults/hostile.py) and, in front of each,
the gateway as users start it (`python -m gateway --listen … --upstream …`, tests/peers/gateway.py), shared
by the suite's cases: each case checks the gateway is still healthy after it, and at the end neither
gateway's log holds a traceback (an exception that reached the boundary's last resort; aiohttp's own
line for an unparsable HTTP request, which the broken-HTTP cases provoke, aside)."""

from __future__ import annotations

from collections.abc import Iterator
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
    """{"0.3": Front, "1.0": Front}, keyed by the agent's version."""
    agents = {v: HostileAgent(v).start() for v in ("0.3", "1.0")}
    try:
        with run_gateway(agents["0.3"].url) as g03, run_gateway(agents["1.0"].url) as g10:
            yield {"0.3": Front(agents["0.3"], g03), "1.0": Front(agents["1.0"], g10)}
            for gateway in (g03, g10):  # nothing any case sent reached the boundary's last resort
                bad = [line for line in gateway.log().splitlines()
                       if ("internal_error" in line or "Traceback" in line) and "BadHttpMessage" not in line]
                assert not bad, "\n".join(bad)
    finally:
        for agent in agents.values():
            agent.stop()
