"""A real `redis-server` for the tests (the Debian package, as a user runs it): on a free loopback port,
nothing saved to disk, stopped with the test (or, as the `redis_url` fixture, with the test module). Tests
needing it are skipped where the binary is missing."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

REDIS_SERVER = shutil.which("redis-server")
needs_redis = pytest.mark.skipif(REDIS_SERVER is None, reason="redis-server is not installed (apt-get install "
                                                              "redis-server)")


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
