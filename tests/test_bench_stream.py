"""Owns the smoke check of the streaming bench: `python -m bench.stream` with short streams runs its five
arms (each stream first checked: every event arrives, the last one ends the stream) and prints them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_stream_bench_runs_all_arms() -> None:
    proc = subprocess.run([sys.executable, "-m", "bench.stream", "--events", "50", "--streams", "4", "--rounds", "2"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("53 events per stream") and lines[1].startswith("arm") and len(lines) == 7
    assert [line.split("  ")[0] for line in lines[2:]] == [
        "direct (v1.0 client)", "aiohttp chunk relay", "gateway pass-through", "aiohttp event rewrite",
        "gateway v1.0 → v0.3 client"]
