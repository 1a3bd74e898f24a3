"""Instruction counts (valgrind callgrind) of the translation bench: decode → translate → encode vs
decode → encode, per operation. Deterministic where wall-clock is not (shared, noisy machines)."""

from __future__ import annotations

import gc
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from bench import translate as bt
from gateway.core import jsoncodec

ROOT = Path(__file__).resolve().parent.parent
N = 2000


def _run(case: int, arm: str, n: int) -> int:
    """Total instructions of a child process that runs `arm` n times after warm-up."""
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-m", "bench.icount",
         "--child", str(case), arm, str(n)],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, check=True)
    match = re.search(r"Collected : (\d+)", out.stderr)
    assert match, out.stderr[-2000:]
    return int(match.group(1))


def child(case: int, arm: str, n: int) -> None:
    _, payload, fn = bt.CASES[case]
    data = jsoncodec.dumpb(payload)
    fn(data)
    bt.codec(data)
    gc.collect()
    gc.freeze()
    run = fn if arm == "translated" else bt.codec
    for _ in range(n):
        run(data)


def main() -> None:
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (Debian: apt-get install valgrind)")
    print(f"{'payload':34} {'codec instr':>12} {'translated':>12} {'ratio':>6}")
    for i, (name, _, _) in enumerate(bt.CASES):
        codec = (_run(i, "codec", N) - _run(i, "codec", 0)) / N
        full = (_run(i, "translated", N) - _run(i, "translated", 0)) / N
        print(f"{name:34} {codec:12.0f} {full:12.0f} {full / codec:6.2f}")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        child(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]))
    else:
        main()
