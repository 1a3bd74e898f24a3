"""End-to-end latency bench: N sequential unary sends through the gateway against real a2a-sdk 1.3 agents,
five arms (A1/A2 v0.3 client, B1/B2 v1.0 client, B3 the floor: a minimal aiohttp proxy) interleaved in one
run; `python -m bench.e2e`."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

import gateway
from bench.e2e_arms import BenchError
from bench.e2e_client import REWARM, block_sizes, run_rounds
from bench.e2e_procs import (
    PIN_LAYOUTS,
    cpu_model,
    describe_layout,
    gateway_revision,
    loadavg,
    pin,
    pin_layout,
    start_arms,
)
from bench.e2e_stats import ratio_rows, report, summarise
from tests.peers.venvs import REQUIREMENTS


def run(args: argparse.Namespace) -> dict[str, Any]:
    started = time.monotonic()
    deadline = started + args.time_limit
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    layout = pin_layout(args.pin)
    if layout:
        pin(os.getpid(), layout["client"])
    load_before = loadavg()
    profile_dir = Path(args.profile_gateway).resolve() if args.profile_gateway else None
    with start_arms(layout, profile_dir, args.harness_agents) as arms:
        setup_s = time.monotonic() - started
        orders = asyncio.run(run_rounds(arms, args, random.Random(seed), deadline))
    arm_results = {}
    for name, arm in arms.items():
        s = summarise(arm.turns())
        s.update(label=arm.spec.label, via_gateway=arm.spec.via_gateway, hop=arm.spec.hop,
                 rounds=[summarise(turns) for turns in arm.rounds])
        arm_results[name] = s
    result: dict[str, Any] = {
        "bench": "e2e",
        "params": {"requests": args.requests, "warmup": args.warmup, "rounds": args.rounds,
                   "rounds_completed": len(orders), "block": args.block, "rewarm": REWARM, "seed": seed,
                   "pin": args.pin if layout else "none", "cpus": describe_layout(layout),
                   "agent_nodelay": not args.harness_agents, "profiled": bool(profile_dir), "orders": orders},
        "machine": {"cpus": os.cpu_count(), "cpu_model": cpu_model(), "loadavg_before": load_before,
                    "loadavg_after": loadavg(), "python": platform.python_version(),
                    "aiohttp": aiohttp.__version__, "gateway": gateway.__version__,
                    "gateway_revision": gateway_revision(),
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
                        help="split: client + agents on CPU0, hops (gateways, the floor's proxy) on CPU1"
                             " (default); one: all on"
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
