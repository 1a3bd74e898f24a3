"""Owns the smoke check of the end-to-end bench: `python -m bench.e2e` in quick mode runs all four arms
against real peers and reports them. No timing is asserted (the machines are shared and noisy)."""

from __future__ import annotations

import json
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
    assert {"A1", "A2", "B1", "B2", "A1/A2:", "B1/B2:"} <= rows, proc.stdout

    result = json.loads(out.read_text())
    assert sorted(result["arms"]) == ["A1", "A2", "B1", "B2"]
    for name, arm in result["arms"].items():
        assert arm["n"] == 50, name
        assert len(arm["rounds"]) == 1, name
        assert arm["mean_ms"] > 0 and arm["p50_ms"] <= arm["p99_ms"], (name, arm)
    assert [r["name"] for r in result["ratios"]] == ["A1/A2", "B1/B2"]
