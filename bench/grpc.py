"""The gRPC binding's hop: sequential unary sends and streams from a grpc.aio client (request bytes built
once) to a real a2a-sdk 1.x agent's gRPC service, direct and through the gateway (v1.0 → v1.0 passed
through, v0.3 → v1.0 translated), arms interleaved in one run; latency ratios against direct.
`python -m bench.grpc`."""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass

import grpc
from google.protobuf import json_format

from gateway.core.bindings.grpc import message_class
from gateway.core.types import Version
from tests.peers.gateway import free_port, run_gateway
from tests.peers.harness import start_agent

PATHS = {Version.V10: "/lf.a2a.v1.A2AService/", Version.V03: "/a2a.v1.A2AService/"}


@dataclass(frozen=True)
class Arm:
    name: str
    target: str
    version: Version


def request(version: Version, text: str) -> bytes:
    """A SendMessageRequest of `version` with one text part, serialized."""
    if version is Version.V10:
        body = {"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": text}]}}
    else:
        body = {"message": {"messageId": "m-1", "role": "ROLE_USER", "content": [{"text": text}]}}
    return json_format.ParseDict(body, message_class(version, "SendMessageRequest")()).SerializeToString()


def grpc_url(base_url: str) -> str:
    """The agent's own gRPC interface, from its card."""
    with urllib.request.urlopen(base_url + "/.well-known/agent-card.json", timeout=5) as reply:
        card = json.load(reply)
    return str(next(i["url"] for i in card["supportedInterfaces"] if i["protocolBinding"] == "GRPC"))


async def one(channel: grpc.aio.Channel, arm: Arm, streaming: bool) -> float:
    """One call, checked (a reply; a stream of its five items), its latency in seconds."""
    path = PATHS[arm.version] + ("SendStreamingMessage" if streaming else "SendMessage")
    started = time.perf_counter()
    if streaming:
        stream: grpc.aio.UnaryStreamMultiCallable[bytes, bytes] = channel.unary_stream(path)
        items = [m async for m in stream(request(arm.version, "stream 3"), timeout=30)]
        if len(items) < 5:
            raise RuntimeError(f"{arm.name}: {len(items)} stream items")
    else:
        unary: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(path)
        if not await unary(request(arm.version, "echo bench"), timeout=30):
            raise RuntimeError(f"{arm.name}: empty reply")
    return time.perf_counter() - started


async def measure(arms: list[Arm], requests: int, rounds: int, streaming: bool) -> dict[str, list[float]]:
    channels = {arm.name: grpc.aio.insecure_channel(arm.target) for arm in arms}
    times: dict[str, list[float]] = {arm.name: [] for arm in arms}
    try:
        for arm in arms:  # warm-up: channels connected, the gateway's card and channels ready
            for _ in range(5):
                await one(channels[arm.name], arm, streaming)
        for _ in range(rounds):   # arms interleaved: machine noise hits every arm alike
            for arm in arms:
                times[arm.name] += [await one(channels[arm.name], arm, streaming) for _ in range(requests)]
    finally:
        for channel in channels.values():
            await channel.close()
    return times


def report(kind: str, times: dict[str, list[float]]) -> Iterator[str]:
    base = statistics.median(next(iter(times.values())))
    for name, values in times.items():
        median = statistics.median(values)
        p95 = sorted(values)[int(len(values) * 0.95) - 1]
        yield f"{kind:9}  {name:28}  median {median * 1000:7.2f} ms  p95 {p95 * 1000:7.2f} ms  ×{median / base:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=200, help="unary calls per arm per round")
    parser.add_argument("--streams", type=int, default=40, help="streams per arm per round")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with ExitStack() as stack:
        agent = stack.enter_context(start_agent("v10", grpc=True))
        port = free_port()
        stack.enter_context(run_gateway(agent.base_url, "--grpc-listen", f"127.0.0.1:{port}",
                                        env={"A2A_GATEWAY_UPSTREAM_BINDING": "GRPC",
                                             "A2A_GATEWAY_LOG_LEVEL": "warning"}))
        gateway = f"127.0.0.1:{port}"
        arms = [Arm("direct (1.x agent gRPC)", grpc_url(agent.base_url), Version.V10),
                Arm("gateway pass-through v1.0", gateway, Version.V10),
                Arm("gateway v0.3 → v1.0", gateway, Version.V03)]
        print(f"{'kind':9}  {'arm':28}  latency (sequential calls, arms interleaved; × = median vs direct)")
        for kind, count, streaming in (("unary", args.requests, False), ("streaming", args.streams, True)):
            times = asyncio.run(measure(arms, count, args.rounds, streaming))
            for line in report(kind, times):
                print(line, flush=True)


if __name__ == "__main__":
    main()
