"""The house rules CI enforces on the code itself: ruff clean over gateway, tests and bench, and mypy
strict clean over gateway and bench (pyproject.toml's [tool.mypy]); both run as the suite's own tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)


def test_ruff_is_clean() -> None:
    proc = _run(str(BIN / "ruff"), "check", "--no-cache", "gateway", "tests", "bench")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_strict_is_clean(tmp_path: Path) -> None:
    proc = _run(sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
