"""Owns the real AG-UI clients for tests: `npm ci` of each pinned client-<version>/ lockfile, once, into
.cache/agui-node/<version>-<hash>/ (file-locked, reusable), and `run_driver` to play a scenario through
driver.mjs. Without node/npm the callers are skipped with the reason."""

from __future__ import annotations

import fcntl
import hashlib
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]
CACHE_DIR = REPO_ROOT / ".cache" / "agui-node"
CLIENT_VERSIONS = ("1.0.0", "0.0.59")
DRIVER = HERE / "driver.mjs"
_MARKER = "agui-client-complete"
_FILES = ("package.json", "package-lock.json")


def _tools() -> tuple[str, str]:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("the real @ag-ui/client needs node and npm, which are not installed here")
    return node, npm


def install_dir(version: str) -> Path:
    src = HERE / f"client-{version}"
    digest = hashlib.sha256(b"".join((src / name).read_bytes() for name in _FILES)).hexdigest()[:12]
    return CACHE_DIR / f"{version}-{digest}"


def ensure_client(version: str) -> Path:
    """The directory holding node_modules/@ag-ui/client@`version`, installed on first use."""
    _, npm = _tools()
    target = install_dir(version)
    if (target / _MARKER).is_file():
        return target
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    with (CACHE_DIR / f"{target.name}.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not (target / _MARKER).is_file():
                shutil.rmtree(target, ignore_errors=True)
                target.mkdir(parents=True)
                for name in _FILES:
                    shutil.copy2(HERE / f"client-{version}" / name, target / name)
                proc = subprocess.run(
                    [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"],
                    cwd=target,
                    capture_output=True,
                    text=True,
                    timeout=300,
                    check=False,
                )
                if proc.returncode != 0:
                    raise RuntimeError(
                        f"npm ci for @ag-ui/client {version} failed:\n{proc.stdout}\n{proc.stderr}"
                    )
                (target / _MARKER).write_text(version + "\n")
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return target


def run_driver(version: str, scenario: dict[str, Any], timeout: float = 60.0) -> dict[str, Any]:
    """Play `scenario` ({url, threadId, runs}) through the real client `version`; its JSON line."""
    node, _ = _tools()
    client = ensure_client(version)
    proc = subprocess.run(
        [node, str(DRIVER), str(client)],
        input=json.dumps(scenario),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise AssertionError(
            f"driver.mjs ({version}) exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
        )
    result: dict[str, Any] = json.loads(lines[-1])
    result["stderr"] = proc.stderr
    return result


def main() -> int:
    """Prebuild every client (`python -m tests.agui_node.install`)."""
    for version in CLIENT_VERSIONS:
        print(f"@ag-ui/client {version}: {ensure_client(version)}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
