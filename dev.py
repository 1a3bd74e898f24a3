#!/usr/bin/env python3
"""Developer entry points behind `make run` and `make test`: each builds (once) the project's own
virtualenv in .venv from pyproject.toml, then starts the demo gateway or runs the whole suite."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = Path(os.environ.get("A2A_GATEWAY_VENV", ROOT / ".venv"))
BIN = VENV / "bin"


def _ensure(extra: str) -> None:
    """Create .venv and install the project with `extra` unless pyproject.toml is unchanged."""
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()[:16]
    stamp = VENV / f".installed-{extra or 'run'}-{digest}"
    if stamp.exists():
        return
    if not (BIN / "python").exists():
        print(f"creating virtualenv {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    pip = [str(BIN / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, "--upgrade", "pip"], check=True)
    target = f"{ROOT}[{extra}]" if extra else str(ROOT)
    print(f"installing {target}", flush=True)
    subprocess.run([*pip, "--editable", target], check=True, cwd=ROOT)
    stamp.touch()


def run(args: list[str]) -> int:
    _ensure("")
    return subprocess.call([str(BIN / "a2a-gateway"), "demo", *args], cwd=ROOT)


def test(args: list[str]) -> int:
    _ensure("test")
    py = str(BIN / "python")
    # the real-peer virtualenvs (a2a-sdk 0.3 and 1.x cannot share one) are built once and cached
    if subprocess.call([py, "-m", "tests.peers.venvs"], cwd=ROOT) != 0:
        print("could not build the peer virtualenvs", file=sys.stderr)
        return 1
    return subprocess.call([py, "-m", "pytest", *args], cwd=ROOT)


def main() -> int:
    commands = {"run": run, "test": test}
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        print(f"usage: {sys.argv[0]} {{{'|'.join(commands)}}} [args...]", file=sys.stderr)
        return 2
    return commands[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
