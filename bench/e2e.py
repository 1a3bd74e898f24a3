"""End-to-end latency bench: N sequential unary sends through the gateway against real a2a-sdk 1.3 agents,
four arms (A1/A2 v0.3 client, B1/B2 v1.0 client) interleaved in one run; `python -m bench.e2e`."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

import gateway
from tests.peers.gateway import Gateway, run_gateway
from tests.peers.harness import PEERS_DIR, Agent, start_agent
from tests.peers.venvs import REQUIREMENTS, ensure_venv

TARGET_RATIO = 1.10
REQUEST_TIMEOUT_S = 10.0
REWARM = 5  # untimed sends that open each later turn's fresh connection within a round
# --pin layouts: role -> CPU. split (the field notes' layout): client + agents on CPU0, gateways on CPU1;
# one: every process on CPU1 (the chain is sequential anyway, and outside load hits every arm alike).
PIN_LAYOUTS: dict[str, dict[str, int]] = {
    "split": {"client": 0, "agent": 0, "gateway": 1},
    "one": {"client": 1, "agent": 1, "gateway": 1},
    "none": {},
}
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

# tests/peers/peer_common.bind() makes the listening socket with proto 0, and asyncio sets TCP_NODELAY
# only on sockets whose proto is IPPROTO_TCP: the agent's reply (head and body are two writes) then
# meets Nagle + the client's delayed ACK and every keep-alive request after the first stalls ~40 ms.
# This launcher re-wraps that socket (proto is then read back from the fd: IPPROTO_TCP) and runs the
# agent script unchanged; a no-op once bind() creates the socket with IPPROTO_TCP itself.
_AGENT_LAUNCHER = """
import runpy, socket, sys
sys.path.insert(0, sys.argv[1])
import peer_common
_bind = peer_common.bind
def bind(host, port):
    sock = _bind(host, port)
    return socket.socket(fileno=sock.detach()) if sock.proto == 0 else sock
peer_common.bind = bind
sys.argv = sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


class BenchError(RuntimeError):
    """The run cannot produce figures: a peer did not start, a reply was an error, the time ran out."""


class TimeUp(BenchError):
    """--time-limit reached; rounds completed before it still count."""


@dataclass(frozen=True)
class ArmSpec:
    name: str
    label: str
    client: str  # "v03" | "v10": which JSON-RPC body and headers the client sends
    via_gateway: bool
    compat: bool  # the agent runs the SDK's in-process v0.3 compat layer


ARMS = (
    ArmSpec("A1", "v0.3 client -> gateway -> SDK 1.3 agent", "v03", True, False),
    ArmSpec("A2", "v0.3 client -> SDK 1.3 agent, v0.3 compat on", "v03", False, True),
    ArmSpec("B1", "v1.0 client -> gateway -> SDK 1.3 agent", "v10", True, False),
    ArmSpec("B2", "v1.0 client -> SDK 1.3 agent", "v10", False, False),
)
RATIOS = (("A1", "A2"), ("B1", "B2"))


@dataclass
class Turn:
    """One arm's timed block: latencies plus the CPU and machine counters around it."""

    latencies_ns: list[int]
    wall_s: float
    cpu_s: dict[str, float]  # client / agent / gateway
    machine_busy: int  # jiffies, all CPUs
    machine_total: int


@dataclass
class ArmRun:
    """One arm's processes and its completed rounds (each a list of turns)."""

    spec: ArmSpec
    agent: Agent
    gateway: Gateway | None
    url: str
    rounds: list[list[Turn]] = field(default_factory=list)

    def pids(self) -> dict[str, int]:
        pids = {"agent": self.agent.process.pid}
        if self.gateway is not None:
            pids["gateway"] = self.gateway.process.pid
        return pids

    def turns(self) -> list[Turn]:
        return [turn for turns in self.rounds for turn in turns]


# ---- machine probes (Linux /proc) ----------------------------------------------------------------------


def _proc_cpu_s(pid: int | str) -> float:
    """utime + stime of a whole process (all threads), in seconds."""
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _machine_jiffies() -> tuple[int, int]:
    """(busy, total) jiffies over all CPUs since boot."""
    with open("/proc/stat") as handle:
        values = [int(v) for v in handle.readline().split()[1:]]
    idle = values[3] + (values[4] if len(values) > 4 else 0)
    return sum(values) - idle, sum(values)


def _cpu_model() -> str:
    with contextlib.suppress(OSError), open("/proc/cpuinfo") as handle:
        for line in handle:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "?"


def _loadavg() -> list[float]:
    return [round(v, 2) for v in os.getloadavg()]


def _pin(pid: int, cpu: int) -> None:
    """Pin every thread of `pid` (threads started later inherit the main thread's mask)."""
    try:
        tids = [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    except OSError:
        tids = [pid]
    for tid in tids:
        with contextlib.suppress(OSError):  # a thread that has just ended
            os.sched_setaffinity(tid, {cpu})


def _layout(name: str) -> dict[str, int]:
    """The CPU layout to apply; empty (with a note) when this machine cannot honour it."""
    layout = PIN_LAYOUTS[name]
    if layout and not (hasattr(os, "sched_setaffinity") and set(layout.values()) <= os.sched_getaffinity(0)):
        print(f"note: CPUs {sorted(set(layout.values()))} not usable here: not pinning", file=sys.stderr)
        return {}
    return layout


def _describe(layout: dict[str, int]) -> str:
    if not layout:
        return "none"
    return ", ".join(f"{role} CPU{cpu}" for role, cpu in layout.items())


def _gateway_revision() -> str:
    """HEAD of the checkout the gateway runs from, `+dirty` when gateway/ has local changes."""
    root = Path(gateway.__file__).resolve().parents[1]
    try:
        head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=root, capture_output=True,
                              text=True, timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "gateway"], cwd=root,
                               capture_output=True, text=True, timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


# ---- statistics ----------------------------------------------------------------------------------------


def percentile(sorted_values: list[float], q: float) -> float:
    """Linear interpolation between closest ranks (q in [0, 100]) of an already sorted list."""
    if not sorted_values:
        return float("nan")
    pos = (len(sorted_values) - 1) * q / 100.0
    low = int(pos)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (pos - low)


def summarise(turns: list[Turn]) -> dict[str, Any]:
    """Latency percentiles (ms), throughput, CPU per request and outside load over `turns`."""
    ms = sorted(s / 1e6 for turn in turns for s in turn.latencies_ns)
    n, wall = len(ms), sum(turn.wall_s for turn in turns)
    cpu = {role: sum(turn.cpu_s.get(role, 0.0) for turn in turns) for role in ("client", "agent", "gateway")}
    busy = sum(turn.machine_busy for turn in turns)
    total = sum(turn.machine_total for turn in turns)
    machine_cores = busy / max(total, 1) * (os.cpu_count() or 1)
    return {
        "n": n,
        "mean_ms": statistics.fmean(ms) if ms else float("nan"),
        "p50_ms": percentile(ms, 50),
        "p90_ms": percentile(ms, 90),
        "p99_ms": percentile(ms, 99),
        "max_ms": ms[-1] if ms else float("nan"),
        "rps": n / wall if wall else float("nan"),
        "cpu_us_per_req": {role: used / max(n, 1) * 1e6 for role, used in cpu.items()},
        "other_load_cores": max(machine_cores - sum(cpu.values()) / wall, 0.0) if wall else float("nan"),
    }


# ---- reply validation ----------------------------------------------------------------------------------


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


# ---- the client ----------------------------------------------------------------------------------------


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
        cpu0 = {role: _proc_cpu_s(pid) for role, pid in pids.items()}
        busy0, total0 = _machine_jiffies()
        self0, wall0 = _proc_cpu_s("self"), time.perf_counter()
        latencies, replies = await send_many(session, arm.url, client, n, deadline)
        wall, self1 = time.perf_counter() - wall0, _proc_cpu_s("self")
        busy1, total1 = _machine_jiffies()
        cpu = {role: _proc_cpu_s(pid) - cpu0[role] for role, pid in pids.items()}
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


# ---- processes -----------------------------------------------------------------------------------------


def start_agent_nodelay(compat: bool) -> Agent:
    """harness.start_agent("v10", compat=...) through _AGENT_LAUNCHER (same venv, script, readiness)."""
    script = PEERS_DIR / "agent_v10.py"
    args = [str(ensure_venv("v10")), "-c", _AGENT_LAUNCHER, str(PEERS_DIR), str(script), "--port", "0"]
    if compat:
        args.append("--compat")
    fd, log_name = tempfile.mkstemp(prefix="bench-agent-v10-", suffix=".log")
    with os.fdopen(fd, "w") as log:
        process = subprocess.Popen(
            args, stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL, text=True, cwd=PEERS_DIR
        )
    agent = Agent("v10", process, Path(log_name))
    agent.wait_ready()
    return agent


@contextmanager
def start_arms(layout: dict[str, int], profile_dir: Path | None,
               harness_agents: bool) -> Iterator[dict[str, ArmRun]]:
    """One fresh agent per arm (the same task history in every arm) and a gateway per gateway arm."""
    with ExitStack() as stack:
        with ThreadPoolExecutor(len(ARMS)) as pool:
            if harness_agents:
                futures = [pool.submit(start_agent, "v10", compat=spec.compat) for spec in ARMS]
            else:
                futures = [pool.submit(start_agent_nodelay, spec.compat) for spec in ARMS]
            agents: list[Agent] = []
            errors: list[BaseException] = []
            for future in futures:
                try:
                    agent = future.result()
                except Exception as exc:  # keep collecting so every started agent gets stopped
                    errors.append(exc)
                    continue
                stack.callback(agent.stop)
                agents.append(agent)
            if errors:
                raise BenchError(f"an agent did not start: {errors[0]}") from errors[0]
        arms = {}
        for spec, agent in zip(ARMS, agents, strict=True):
            gw = None
            if spec.via_gateway:
                env = _profile_env(profile_dir, spec.name) if profile_dir else None
                try:
                    gw = stack.enter_context(run_gateway(agent.base_url, env=env))
                except RuntimeError as exc:  # its message carries the whole gateway log: keep the end
                    text = str(exc)
                    raise BenchError(text if len(text) < 4000 else "…" + text[-4000:]) from exc
            if layout:
                _pin(agent.process.pid, layout["agent"])
                if gw:
                    _pin(gw.process.pid, layout["gateway"])
            url = gw.base_url + "/" if gw else agent.base_url + "/jsonrpc"
            arms[spec.name] = ArmRun(spec, agent, gw, url)
        yield arms


def _profile_env(profile_dir: Path, name: str) -> dict[str, str]:
    """cProfile the gateway process via a sitecustomize put first on its PYTHONPATH; the profile is
    written at normal exit (the gateway exits cleanly on SIGTERM)."""
    hook = profile_dir / "_hook"
    hook.mkdir(parents=True, exist_ok=True)
    (hook / "sitecustomize.py").write_text(
        "import atexit, cProfile, os\n"
        "_p = cProfile.Profile()\n"
        "_p.enable()\n"
        "def _dump():\n"
        "    _p.disable()\n"
        "    _p.dump_stats(os.environ['BENCH_PROFILE_OUT'])\n"
        "atexit.register(_dump)\n"
    )
    path = os.pathsep.join(p for p in (str(hook), os.environ.get("PYTHONPATH", "")) if p)
    return {"PYTHONPATH": path, "BENCH_PROFILE_OUT": str(profile_dir / f"gateway-{name}.prof")}


# ---- reporting -----------------------------------------------------------------------------------------


def _mean_ms(turn: Turn) -> float:
    return statistics.fmean(turn.latencies_ns) / 1e6


def ratio_rows(arms: dict[str, ArmRun]) -> list[dict[str, Any]]:
    rows = []
    for num, den in RATIOS:
        a, b = summarise(arms[num].turns()), summarise(arms[den].turns())
        per_round = [summarise(ra)["mean_ms"] / summarise(rb)["mean_ms"]
                     for ra, rb in zip(arms[num].rounds, arms[den].rounds, strict=True)]
        # the same block of the same round ran within seconds in both arms: the median of those paired
        # ratios shrugs off a burst of outside load that hit one arm's turn
        paired = [_mean_ms(ta) / _mean_ms(tb) for ra, rb in zip(arms[num].rounds, arms[den].rounds, strict=True)
                  for ta, tb in zip(ra, rb, strict=True)]
        mean, p50 = a["mean_ms"] / b["mean_ms"], a["p50_ms"] / b["p50_ms"]
        rows.append({
            "name": f"{num}/{den}",
            "mean": mean,
            "p50": p50,
            "p99": a["p99_ms"] / b["p99_ms"],
            "mean_per_round": per_round,
            "paired_block_median": statistics.median(paired),
            "paired_block_range": [min(paired), max(paired)],
            "added_mean_ms": a["mean_ms"] - b["mean_ms"],
            "added_p50_ms": a["p50_ms"] - b["p50_ms"],
            "target": TARGET_RATIO,
            "within_target": mean <= TARGET_RATIO and p50 <= TARGET_RATIO,
        })
    return rows


def report(result: dict[str, Any]) -> str:
    lines = [
        f"{'arm':3} {'path':46} {'n':>5} {'mean':>7} {'p50':>7} {'p90':>7} {'p99':>7} {'req/s':>6}"
        f" | {'CPU µs/req: client':>18} {'agent':>6} {'gw':>6} | {'other':>5}",
    ]
    for name, s in result["arms"].items():
        cpu = s["cpu_us_per_req"]
        gw = f"{cpu['gateway']:6.0f}" if s["via_gateway"] else f"{'-':>6}"
        lines.append(
            f"{name:3} {s['label']:46} {s['n']:5d} {s['mean_ms']:7.3f} {s['p50_ms']:7.3f}"
            f" {s['p90_ms']:7.3f} {s['p99_ms']:7.3f} {s['rps']:6.0f} | {cpu['client']:18.0f}"
            f" {cpu['agent']:6.0f} {gw} | {s['other_load_cores']:5.2f}"
        )
    lines.append("latencies in ms over all rounds; other = CPU cores busy outside the bench's processes")
    for r in result["ratios"]:
        spread = ", ".join(f"{v:.3f}" for v in r["mean_per_round"])
        verdict = "within target" if r["within_target"] else (
            f"over by {max(r['mean'], r['p50']) / TARGET_RATIO * 100 - 100:.1f} %")
        lines.append(
            f"{r['name']}: mean {r['mean']:.3f} (per round: {spread}; paired-block median"
            f" {r['paired_block_median']:.3f})  p50 {r['p50']:.3f}  p99 {r['p99']:.3f}"
            f"  added {r['added_mean_ms']:+.3f} ms mean, {r['added_p50_ms']:+.3f} ms p50"
            f"  [target <= {TARGET_RATIO:.2f}: {verdict}]"
        )
    return "\n".join(lines)


# ---- main ----------------------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> dict[str, Any]:
    started = time.monotonic()
    deadline = started + args.time_limit
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    layout = _layout(args.pin)
    if layout:
        _pin(os.getpid(), layout["client"])
    load_before = _loadavg()
    profile_dir = Path(args.profile_gateway).resolve() if args.profile_gateway else None
    with start_arms(layout, profile_dir, args.harness_agents) as arms:
        setup_s = time.monotonic() - started
        orders = asyncio.run(run_rounds(arms, args, random.Random(seed), deadline))
    arm_results = {}
    for name, arm in arms.items():
        s = summarise(arm.turns())
        s.update(label=arm.spec.label, via_gateway=arm.spec.via_gateway,
                 rounds=[summarise(turns) for turns in arm.rounds])
        arm_results[name] = s
    result: dict[str, Any] = {
        "bench": "e2e",
        "params": {"requests": args.requests, "warmup": args.warmup, "rounds": args.rounds,
                   "rounds_completed": len(orders), "block": args.block, "rewarm": REWARM, "seed": seed,
                   "pin": args.pin if layout else "none", "cpus": _describe(layout),
                   "agent_nodelay": not args.harness_agents, "profiled": bool(profile_dir), "orders": orders},
        "machine": {"cpus": os.cpu_count(), "cpu_model": _cpu_model(), "loadavg_before": load_before,
                    "loadavg_after": _loadavg(), "python": platform.python_version(),
                    "aiohttp": aiohttp.__version__, "gateway": gateway.__version__,
                    "gateway_revision": _gateway_revision(),
                    "agent_sdk": next(r for r in REQUIREMENTS["v10"] if r.startswith("a2a-sdk"))},
        "setup_s": setup_s,
        "total_s": time.monotonic() - started,
        "arms": arm_results,
        "ratios": ratio_rows(arms),
    }
    result["table"] = report(result)
    return result


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.e2e", description=__doc__)
    parser.add_argument("--requests", type=int, default=1000, help="timed sends per arm per round")
    parser.add_argument("--warmup", type=int, default=100, help="untimed sends per arm at each round's start")
    parser.add_argument("--rounds", type=int, default=3, help="rounds (default 3)")
    parser.add_argument("--block", type=int, default=100,
                        help="timed sends per arm turn; arm order is reshuffled for every block"
                             " (default 100; 0 = one turn per arm per round)")
    parser.add_argument("--out", help="write the result as JSON to this file")
    parser.add_argument("--pin", choices=sorted(PIN_LAYOUTS), default="split",
                        help="split: client + agents on CPU0, gateways on CPU1 (default); one: all on"
                             " CPU1; none: no pinning")
    parser.add_argument("--seed", type=int, help="seed for the arm order (default: random, recorded)")
    parser.add_argument("--time-limit", type=float, default=240.0,
                        help="stop after this many seconds; a round cut short is dropped (default 240)")
    parser.add_argument("--profile-gateway", metavar="DIR",
                        help="cProfile each gateway into DIR/gateway-<arm>.prof (inflates its latency)")
    parser.add_argument("--harness-agents", action="store_true",
                        help="start agents with harness.start_agent as is (no TCP_NODELAY: ~40 ms stalls)")
    parser.add_argument("--quiet", action="store_true", help="no per-round progress on stderr")
    args = parser.parse_args(argv)
    if args.requests < 1 or args.warmup < 0 or args.rounds < 1 or args.block < 0:
        parser.error("--requests and --rounds must be >= 1, --warmup and --block >= 0")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        result = run(args)
    except BenchError as exc:
        print(f"bench.e2e: FAILED: {exc}", file=sys.stderr)
        return 1
    head, params = result["machine"], result["params"]
    turn = max(block_sizes(args.requests, args.block))
    print(f"bench.e2e: {args.requests} timed sends x {params['rounds_completed']} rounds per arm"
          f" (turns of {turn}, warm-up {args.warmup}); {head['cpus']} CPUs"
          f" ({head['cpu_model']}); pin: {params['pin']}; loadavg {head['loadavg_before']} ->"
          f" {head['loadavg_after']}; gateway {head['gateway_revision']}; {result['total_s']:.0f} s")
    print(result["table"])
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=out.parent, delete=False, suffix=".tmp") as tmp:
            json.dump(result, tmp, indent=2)
        Path(tmp.name).replace(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
