"""The end-to-end bench's client: the fixed JSON-RPC bodies, the timed send loop over one keep-alive
connection, the reply checks, and the rounds of interleaved, shuffled arm turns."""

from __future__ import annotations

import argparse
import json
import random
import sys
import time

import aiohttp

from bench.e2e_arms import ArmRun, BenchError, TimeUp, Turn
from bench.e2e_procs import machine_jiffies, proc_cpu_s
from bench.e2e_stats import summarise

REQUEST_TIMEOUT_S = 10.0
REWARM = 5  # untimed sends that open each later turn's fresh connection within a round
TEXT = "echo bench"  # the peer agent completes a task and echoes the parts back

# The same message in each version's JSON-RPC shape; bodies are fixed bytes sent unchanged every time.
BODY_V03 = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {
    "message": {"kind": "message", "messageId": "bench-0000-0000-0000-000000000001", "role": "user",
                "parts": [{"kind": "text", "text": TEXT}]},
    "configuration": {"acceptedOutputModes": ["text/plain"], "blocking": True}}}).encode()
BODY_V10 = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {
    "message": {"messageId": "bench-0000-0000-0000-000000000001", "role": "ROLE_USER",
                "parts": [{"text": TEXT}]},
    "configuration": {"acceptedOutputModes": ["text/plain"], "returnImmediately": False}}}).encode()
HEADERS_V03 = {"Content-Type": "application/json"}
HEADERS_V10 = {"Content-Type": "application/json", "A2A-Version": "1.0"}


def check_reply(status: int, data: bytes, client: str) -> None:
    """A completed echo task in the client's version's shape, or BenchError."""
    try:
        doc = json.loads(data)
    except ValueError as exc:
        raise BenchError(f"HTTP {status}, not JSON: {data[:300]!r}") from exc
    if status != 200 or not isinstance(doc, dict) or "error" in doc or "result" not in doc:
        raise BenchError(f"HTTP {status}, not a JSON-RPC result: {data[:500]!r}")
    result = doc["result"]
    if client == "v03":
        task = result
        ok = (task.get("kind") == "task" and task.get("status", {}).get("state") == "completed"
              and task["status"].get("message", {}).get("role") == "agent"
              and task.get("artifacts", [{}])[0].get("parts") == [{"kind": "text", "text": TEXT}])
    else:
        task = result.get("task", {})
        ok = ("kind" not in task and task.get("status", {}).get("state") == "TASK_STATE_COMPLETED"
              and task["status"].get("message", {}).get("role") == "ROLE_AGENT"
              and task.get("artifacts", [{}])[0].get("parts") == [{"text": TEXT}])
    if not ok:
        raise BenchError(f"not a completed {client} echo task: {data[:500]!r}")


async def send_many(session: aiohttp.ClientSession, url: str, client: str, n: int,
                    deadline: float) -> tuple[list[int], list[tuple[int, bytes]]]:
    """`n` sequential POSTs of the fixed body; per-request latencies (ns, request start to the last
    body byte) and the raw replies, which the caller checks after the timed loop, not inside it."""
    body, headers = (BODY_V03, HEADERS_V03) if client == "v03" else (BODY_V10, HEADERS_V10)
    latencies: list[int] = []
    replies: list[tuple[int, bytes]] = []
    clock, now, post = time.perf_counter_ns, time.monotonic, session.post
    for _ in range(n):
        if now() > deadline:
            raise TimeUp("time limit reached (--time-limit) before one round completed")
        start = clock()
        async with post(url, data=body, headers=headers) as response:
            data = await response.read()
        latencies.append(clock() - start)
        replies.append((response.status, data))
    return latencies, replies


def _session() -> aiohttp.ClientSession:
    """One connection (limit=1), kept alive for the whole turn."""
    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=1),
                                 timeout=aiohttp.ClientTimeout(total=REQUEST_TIMEOUT_S))


async def run_turn(arm: ArmRun, n: int, warmup: int, deadline: float) -> Turn:
    """A fresh session: `warmup` untimed sends, then `n` timed ones on the same connection; every
    reply is checked afterwards; CPU of client, agent and gateway is read around the timed part."""
    client = arm.spec.client
    async with _session() as session:
        _, warm = await send_many(session, arm.url, client, warmup, deadline)
        pids = arm.pids()
        cpu0 = {role: proc_cpu_s(pid) for role, pid in pids.items()}
        busy0, total0 = machine_jiffies()
        self0, wall0 = proc_cpu_s("self"), time.perf_counter()
        latencies, replies = await send_many(session, arm.url, client, n, deadline)
        wall, self1 = time.perf_counter() - wall0, proc_cpu_s("self")
        busy1, total1 = machine_jiffies()
        cpu = {role: proc_cpu_s(pid) - cpu0[role] for role, pid in pids.items()}
    cpu["client"] = self1 - self0
    for status, data in warm + replies:
        check_reply(status, data, client)
    return Turn(latencies, wall, cpu, busy1 - busy0, total1 - total0)


def block_sizes(requests: int, block: int) -> list[int]:
    """A round's timed sends per arm, cut into turns of `block` (0: one turn of all of them)."""
    if block <= 0 or block >= requests:
        return [requests]
    return [block] * (requests // block) + ([requests % block] if requests % block else [])


async def run_rounds(arms: dict[str, ArmRun], args: argparse.Namespace, rng: random.Random,
                     deadline: float) -> list[list[list[str]]]:
    """Every round: each arm sends --requests timed requests in turns of --block; arms take turns in a
    freshly shuffled order for every block. A round cut short by --time-limit is dropped."""
    for arm in arms.values():  # the first reply of every arm is checked before anything is timed
        async with _session() as session:
            _, replies = await send_many(session, arm.url, arm.spec.client, 1, deadline)
        check_reply(*replies[0], arm.spec.client)
    orders: list[list[list[str]]] = []
    for round_no in range(1, args.rounds + 1):
        pending: dict[str, list[Turn]] = {name: [] for name in arms}
        round_orders = []
        try:
            for i, size in enumerate(block_sizes(args.requests, args.block)):
                order = list(arms)
                rng.shuffle(order)
                round_orders.append(order)
                for name in order:
                    warmup = args.warmup if i == 0 else min(args.warmup, REWARM)
                    pending[name].append(await run_turn(arms[name], size, warmup, deadline))
        except TimeUp:
            if not orders:
                raise
            print(f"note: --time-limit reached in round {round_no}; reporting {len(orders)} complete"
                  " round(s)", file=sys.stderr)
            break
        for name, arm in arms.items():
            arm.rounds.append(pending[name])
        orders.append(round_orders)
        if not args.quiet:
            cells = [f"{name} {summarise(pending[name])['mean_ms']:.3f}" for name in arms]
            print(f"round {round_no} mean ms: " + ", ".join(cells), file=sys.stderr, flush=True)
    return orders
