"""Owns the smoke check of the gRPC bench: `python -m bench.grpc` with a few calls runs its three arms
for unary and streaming calls (each call checked) against a real 1.x agent and prints them. No timing
is asserted."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.peers
def test_grpc_bench_runs_all_arms() -> None:
    proc = subprocess.run([sys.executable, "-m", "bench.grpc", "--requests", "10", "--streams", "2", "--rounds", "1"],
                          cwd=ROOT, capture_output=True, text=True, timeout=180, check=False)
    assert proc.returncode == 0, f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("kind") and len(lines) == 7, proc.stdout
    arms = [line[11:39].strip() for line in lines[1:]]
    assert arms == ["direct (1.x agent gRPC)", "gateway pass-through v1.0", "gateway v0.3 → v1.0"] * 2, arms
