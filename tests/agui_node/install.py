"""Owns the real AG-UI clients for tests: each pinned client-<version>/ lockfile installed once (by
tests/node.py, into .cache/agui-node/), and `run_driver` to play a scenario through driver.mjs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.node import ensure_installed, run_script

HERE = Path(__file__).resolve().parent
CLIENT_VERSIONS = ("1.0.0", "0.0.59")
DRIVER = HERE / "driver.mjs"


WHAT = "the real @ag-ui/client"


def ensure_client(version: str) -> Path:
    """The directory holding node_modules/@ag-ui/client@`version`, installed on first use."""
    return ensure_installed(HERE / f"client-{version}", "agui-node", f"{WHAT} {version}")


def run_driver(version: str, scenario: dict[str, Any], timeout: float = 60.0) -> dict[str, Any]:
    """Play `scenario` ({url, threadId, runs}) through the real client `version`; its JSON line."""
    return run_script(DRIVER, ensure_client(version), scenario, f"{WHAT} {version}", timeout)


def main() -> int:
    """Prebuild every client (`python -m tests.agui_node.install`)."""
    for version in CLIENT_VERSIONS:
        print(f"@ag-ui/client {version}: {ensure_client(version)}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
