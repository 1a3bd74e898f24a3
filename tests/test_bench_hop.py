"""Owns the smoke check of the hop bench: `python -m bench.hop` with a few requests runs its four arms
(each first checked for the right reply) and prints them. No timing is asserted."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_hop_bench_runs_all_arms() -> None:
    proc = subprocess.run([sys.executable, "-m", "bench.hop", "--requests", "40", "--rounds", "2"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("arm") and len(lines) == 5, proc.stdout
    assert [line.split("  ")[0] for line in lines[1:]] == [
        "direct (v1.0 client)", "aiohttp proxy (baseline)", "gateway pass-through", "gateway v0.3 → v1.0"]
