"""The end-to-end bench's figures: latency percentiles, throughput and CPU per request over turns, the
arm-to-arm ratios against the target, and the printed table."""

from __future__ import annotations

import os
import statistics
from typing import Any

from bench.e2e_arms import RATIOS, ArmRun, Turn

TARGET_RATIO = 1.10


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
    cpu = {role: sum(turn.cpu_s.get(role, 0.0) for turn in turns) for role in ("client", "agent", "hop")}
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


def _mean_ms(turn: Turn) -> float:
    return statistics.fmean(turn.latencies_ns) / 1e6


def ratio_rows(arms: dict[str, ArmRun]) -> list[dict[str, Any]]:
    rows = []
    for num, den, held in RATIOS:
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
            "target": TARGET_RATIO if held else None,
            "within_target": mean <= TARGET_RATIO and p50 <= TARGET_RATIO,
        })
    return rows


def report(result: dict[str, Any]) -> str:
    lines = [
        f"{'arm':3} {'path':46} {'n':>5} {'mean':>7} {'p50':>7} {'p90':>7} {'p99':>7} {'req/s':>6}"
        f" | {'CPU µs/req: client':>18} {'agent':>6} {'hop':>6} | {'other':>5}",
    ]
    for name, s in result["arms"].items():
        cpu = s["cpu_us_per_req"]
        hop = f"{cpu['hop']:6.0f}" if s["hop"] else f"{'-':>6}"
        lines.append(
            f"{name:3} {s['label']:46} {s['n']:5d} {s['mean_ms']:7.3f} {s['p50_ms']:7.3f}"
            f" {s['p90_ms']:7.3f} {s['p99_ms']:7.3f} {s['rps']:6.0f} | {cpu['client']:18.0f}"
            f" {cpu['agent']:6.0f} {hop} | {s['other_load_cores']:5.2f}"
        )
    lines.append("latencies in ms over all rounds; other = CPU cores busy outside the bench's processes")
    for r in result["ratios"]:
        spread = ", ".join(f"{v:.3f}" for v in r["mean_per_round"])
        verdict = ("within" if r["within_target"] else
                   f"over by {max(r['mean'], r['p50']) / TARGET_RATIO * 100 - 100:.1f} %")
        verdict = (f"target <= {TARGET_RATIO:.2f}: {verdict}" if r["target"] else
                   f"the floor, a bare aiohttp hop; <= {TARGET_RATIO:.2f}: {verdict}")
        lines.append(
            f"{r['name']}: mean {r['mean']:.3f} (per round: {spread}; paired-block median"
            f" {r['paired_block_median']:.3f})  p50 {r['p50']:.3f}  p99 {r['p99']:.3f}"
            f"  added {r['added_mean_ms']:+.3f} ms mean, {r['added_p50_ms']:+.3f} ms p50"
            f"  [{verdict}]"
        )
    return "\n".join(lines)
