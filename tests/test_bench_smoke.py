"""Owns the smoke checks of the end-to-end and workers benches: `python -m bench.e2e` in quick mode runs all
five arms (the floor's minimal proxy among them) against real peers and reports them; `python -m
bench.workers` in quick mode runs its four arms. No timing is asserted (the machines are shared and noisy)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.peers

ROOT = Path(__file__).resolve().parents[1]
QUICK = ["--requests", "50", "--warmup", "10", "--rounds", "1"]
TIMEOUT_S = 300  # a cold peer venv build alone takes ~45 s; the quick run itself ~10 s


def test_e2e_bench_quick_mode_runs_all_arms(tmp_path: Path) -> None:
    out = tmp_path / "e2e.json"
    proc = subprocess.run(
        [sys.executable, "-m", "bench.e2e", *QUICK, "--quiet", "--time-limit", "120", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT_S, check=False,
    )
    assert proc.returncode == 0, f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    rows = {line.split()[0] for line in proc.stdout.splitlines() if line.strip()}
    assert {"A1", "A2", "B1", "B2", "B3", "A1/A2:", "B1/B2:", "B3/B2:", "B3/A2:"} <= rows, proc.stdout

    result = json.loads(out.read_text())
    assert sorted(result["arms"]) == ["A1", "A2", "B1", "B2", "B3"]
    for name, arm in result["arms"].items():
        assert arm["n"] == 50, name
        assert len(arm["rounds"]) == 1, name
        assert arm["mean_ms"] > 0 and arm["p50_ms"] <= arm["p99_ms"], (name, arm)
    assert [r["name"] for r in result["ratios"]] == ["A1/A2", "B1/B2", "B3/B2", "B3/A2"]
    hops = {name: arm["hop"] for name, arm in result["arms"].items()}
    assert hops == {"A1": "gateway", "A2": "", "B1": "gateway", "B2": "", "B3": "proxy"}
    for name, arm in result["arms"].items():   # a direct arm has no hop whose CPU is read
        assert arm["hop"] or arm["cpu_us_per_req"]["hop"] == 0, (name, arm)


def test_workers_bench_quick_mode_runs_every_arm() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "bench.workers", "--seconds", "0.5", "--warmup", "0.2", "--rounds", "1",
         "--connections", "4"],
        cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT_S, check=False,
    )
    assert proc.returncode == 0, f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    arms = re.findall(r"^round 1  (workers=\d|floor x \d) +(\d+) replies", proc.stdout, re.M)
    assert [name for name, _ in arms] == ["workers=1", "workers=2", "floor x 1", "floor x 2"], proc.stdout
    assert all(int(replies) > 0 for _, replies in arms), arms
    medians = [line for line in proc.stdout.splitlines() if line.startswith("median ")]
    assert [m.split()[1] for m in medians] == ["gateway:", "floor:"], proc.stdout
    for line in medians:   # every arm served: a ratio of two positive rates
        assert float(line.rsplit("ratio ", 1)[1]) > 0, line
