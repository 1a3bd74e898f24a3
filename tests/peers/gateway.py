"""The gateway as its users run it: `python -m gateway --listen … --upstream …` in a subprocess of
the project's own interpreter, ready once its agent card answers; logs kept for failure messages."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


# The gateway on its defaults, with the one setting a user with loopback webhooks sets too: the test
# webhooks live on loopback, which the push relay's SSRF guard refuses unless allowed. (JSON logs are
# what the failure messages print.)
PEER_ENV = {
    "A2A_GATEWAY_LOG_FORMAT": "json",
    "A2A_GATEWAY_PUSH_ALLOW_NETWORKS": "127.0.0.0/8",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Gateway:
    def __init__(self, process: subprocess.Popen[bytes], port: int, log_path: Path, admin_port: int = 0) -> None:
        self.process, self.port, self.log_path, self.admin_port = process, port, log_path, admin_port

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def admin_url(self) -> str:
        return f"http://127.0.0.1:{self.admin_port}"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)


@contextmanager
def run_gateway(upstream: str, *args: str, env: dict[str, str] | None = None,
                card_status: int = 200) -> Iterator[Gateway]:
    """The gateway, once its card door answers `card_status` (502: a card it refuses to serve)."""
    port, admin_port = free_port(), free_port()
    fd, name = tempfile.mkstemp(prefix="gateway-", suffix=".log")
    with os.fdopen(fd, "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "gateway", "--listen", f"127.0.0.1:{port}", "--upstream", upstream, *args],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=ROOT,
            env={**os.environ, **PEER_ENV, "A2A_GATEWAY_ADMIN_LISTEN": f"127.0.0.1:{admin_port}", **(env or {})})
    gateway = Gateway(process, port, Path(name), admin_port)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(gateway.base_url + "/.well-known/agent-card.json", timeout=2) as r:
                    if r.status == card_status:
                        break
            except urllib.error.HTTPError as err:
                if err.code == card_status:
                    break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"gateway did not start; its log:\n{gateway.log()}")
            time.sleep(0.1)
        yield gateway
    finally:
        gateway.stop()
        Path(name).unlink(missing_ok=True)
