"""Real Node.js peers for tests: `npm ci` of a pinned package.json/package-lock.json directory, once,
into .cache/<cache>/<name>-<hash>/ (file-locked, reusable), and `run_script` to play a JSON scenario
through a driver and read its last JSON line. Without node/npm the callers are skipped with the reason."""

from __future__ import annotations

import fcntl
import hashlib
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
_MARKER = "npm-ci-complete"
_FILES = ("package.json", "package-lock.json")


def tools(what: str) -> tuple[str, str]:
    """node and npm, or a skip naming `what` needed them."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip(f"{what} needs node and npm, which are not installed here")
    return node, npm


def install_dir(src: Path, cache: str) -> Path:
    digest = hashlib.sha256(b"".join((src / name).read_bytes() for name in _FILES)).hexdigest()[:12]
    return REPO_ROOT / ".cache" / cache / f"{src.name}-{digest}"


def ensure_installed(src: Path, cache: str, what: str) -> Path:
    """The directory holding `src`'s pinned node_modules, installed by `npm ci` on first use."""
    _, npm = tools(what)
    target = install_dir(src, cache)
    if (target / _MARKER).is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with (target.parent / f"{target.name}.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not (target / _MARKER).is_file():
                shutil.rmtree(target, ignore_errors=True)
                target.mkdir(parents=True)
                for name in _FILES:
                    shutil.copy2(src / name, target / name)
                proc = subprocess.run(
                    [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"],
                    cwd=target, capture_output=True, text=True, timeout=300, check=False,
                )
                if proc.returncode != 0:
                    raise RuntimeError(f"npm ci for {what} failed:\n{proc.stdout}\n{proc.stderr}")
                (target / _MARKER).write_text(src.name + "\n")
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return target


def run_script(script: Path, installed: Path, scenario: dict[str, Any], what: str,
               timeout: float = 60.0) -> dict[str, Any]:
    """Play `scenario` through `node script installed`; its last JSON line, with its stderr."""
    node, _ = tools(what)
    proc = subprocess.run(
        [node, str(script), str(installed)],
        input=json.dumps(scenario), capture_output=True, text=True, timeout=timeout, check=False,
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise AssertionError(
            f"{script.name} ({what}) exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
        )
    result: dict[str, Any] = json.loads(lines[-1])
    result["stderr"] = proc.stderr
    return result
