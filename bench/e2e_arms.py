"""The end-to-end bench's arms and what they hold: the five arm specs and the ratios between them, one
arm's processes and its timed turns (latencies, CPU), and the errors that stop a run."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field

from tests.peers.gateway import Gateway
from tests.peers.harness import Agent


class BenchError(RuntimeError):
    """The run cannot produce figures: a peer did not start, a reply was an error, the time ran out."""


class TimeUp(BenchError):
    """--time-limit reached; rounds completed before it still count."""


@dataclass(frozen=True)
class ArmSpec:
    name: str
    label: str
    client: str  # "v03" | "v10": which JSON-RPC body and headers the client sends
    hop: str  # "gateway", "proxy" (the floor: bench.hop's minimal aiohttp proxy) or "" (direct)
    compat: bool  # the agent runs the SDK's in-process v0.3 compat layer

    @property
    def via_gateway(self) -> bool:
        return self.hop == "gateway"


ARMS = (
    ArmSpec("A1", "v0.3 client -> gateway -> SDK 1.3 agent", "v03", "gateway", False),
    ArmSpec("A2", "v0.3 client -> SDK 1.3 agent, v0.3 compat on", "v03", "", True),
    ArmSpec("B1", "v1.0 client -> gateway -> SDK 1.3 agent", "v10", "gateway", False),
    ArmSpec("B2", "v1.0 client -> SDK 1.3 agent", "v10", "", False),
    ArmSpec("B3", "v1.0 client -> minimal aiohttp proxy -> agent", "v10", "proxy", False),
)
# (numerator, denominator, held to the target): B3/B2 is the floor, what any aiohttp hop adds to this
# agent (read, forward, relay: nothing checked, logged or counted); B3/A2 the floor of A1/A2, the least a
# hop in front of the v1.0 agent costs against the agent's own v0.3 compat before anything is translated
RATIOS = (("A1", "A2", True), ("B1", "B2", True), ("B3", "B2", False), ("B3", "A2", False))


@dataclass
class Turn:
    """One arm's timed block: latencies plus the CPU and machine counters around it."""

    latencies_ns: list[int]
    wall_s: float
    cpu_s: dict[str, float]  # client / agent / hop (the gateway or the floor proxy)
    machine_busy: int  # jiffies, all CPUs
    machine_total: int


@dataclass
class ArmRun:
    """One arm's processes and its completed rounds (each a list of turns)."""

    spec: ArmSpec
    agent: Agent
    hop: Gateway | subprocess.Popen[bytes] | None
    url: str
    rounds: list[list[Turn]] = field(default_factory=list)

    def pids(self) -> dict[str, int]:
        pids = {"agent": self.agent.process.pid}
        if isinstance(self.hop, Gateway):
            pids["hop"] = self.hop.process.pid
        elif self.hop is not None:
            pids["hop"] = self.hop.pid
        return pids

    def turns(self) -> list[Turn]:
        return [turn for turns in self.rounds for turn in turns]
