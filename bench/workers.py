"""Throughput of `server.workers` = 1 against 2 on this machine: a v0.3 client's message/send translated
for a v1.0 stub agent, closed-loop keep-alive load, bounded in count and time; beside it the floor, one
and two minimal aiohttp proxies on one port; `python -m bench.workers`."""

# Three kinds of processes share the CPUs: the hop (the gateway's parent and workers, or the floor's
# proxies), a stub agent answering every POST with one canned reply (a raw asyncio protocol, far cheaper
# than the gateway), and this load generator (raw sockets, no HTTP library). Every round runs each arm:
# the gateway with 1 and 2 workers, the floor (bench.hop's minimal proxy, SO_REUSEPORT) with 1 and 2
# processes; the median per arm counts. What two processes of the floor serve against one is what this
# machine lets any two-process hop reach while the client and the agent share its CPUs.

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import cast

ROOT = Path(__file__).resolve().parents[1]
BODY = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": {
    "kind": "message", "messageId": "bench-1", "role": "user", "parts": [{"kind": "text", "text": "hello"}]}}}).encode()
REPLY = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"task": {
    "id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"},
    "artifacts": [{"artifactId": "a1", "parts": [{"text": "hello back"}]}]}}}).encode()
STUB_REPLY = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
              + str(len(REPLY)).encode() + b"\r\n\r\n" + REPLY)
REQUEST_HEAD = (b"POST / HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nContent-Length: "
                + str(len(BODY)).encode() + b"\r\n\r\n")

STUB = r"""
import asyncio, sys
REPLY = sys.stdin.buffer.read()
class Stub(asyncio.Protocol):
    def connection_made(self, t): self.t, self.buf = t, b""
    def data_received(self, data):
        self.buf += data
        while True:
            head_end = self.buf.find(b"\r\n\r\n")
            if head_end < 0: return
            head = self.buf[:head_end].lower()
            i = head.find(b"content-length:")
            n = int(head[i + 15:].split(b"\r\n", 1)[0]) if i >= 0 else 0
            if len(self.buf) < head_end + 4 + n: return
            self.buf = self.buf[head_end + 4 + n:]
            self.t.write(REPLY)
async def main():
    try:
        import uvloop; uvloop.install()
    except ImportError:
        pass
    server = await asyncio.get_running_loop().create_server(Stub, "127.0.0.1", int(sys.argv[1]))
    async with server: await server.serve_forever()
asyncio.run(main())
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_http(url: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1) as resp:
                if resp.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer 200 in {timeout:g} s")


class _Conn(asyncio.Protocol):
    """One keep-alive client connection: a request, its whole reply, the next request."""

    def __init__(self, done: asyncio.Event, counts: list[int], stop_at: float, limit: int) -> None:
        self.done, self.counts, self.stop_at, self.limit = done, counts, stop_at, limit
        self.buf = b""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's transports are not asyncio's classes
        self.transport.write(REQUEST_HEAD + BODY)

    def data_received(self, data: bytes) -> None:
        assert self.transport is not None
        self.buf += data
        head_end = self.buf.find(b"\r\n\r\n")
        if head_end < 0:
            return
        head = self.buf[:head_end].lower()
        i = head.find(b"content-length:")
        n = int(head[i + 15:].split(b"\r\n", 1)[0])
        if len(self.buf) < head_end + 4 + n:
            return
        if not head.startswith(b"http/1.1 200"):
            self.counts[1] += 1
        self.buf = b""
        self.counts[0] += 1
        if self.counts[0] >= self.limit or time.monotonic() >= self.stop_at:
            self.transport.close()
            self.done.set()
            return
        self.transport.write(REQUEST_HEAD + BODY)

    def connection_lost(self, exc: Exception | None) -> None:
        self.done.set()


async def _load(port: int, connections: int, seconds: float, limit: int) -> tuple[int, int, float]:
    """Closed-loop load for `seconds` (or `limit` requests): (replies, non-200 replies, elapsed s)."""
    loop = asyncio.get_running_loop()
    counts = [0, 0]
    started = time.monotonic()
    events = [asyncio.Event() for _ in range(connections)]
    transports = []
    for event in events:
        transport, _ = await loop.create_connection(
            functools.partial(_Conn, event, counts, started + seconds, limit), "127.0.0.1", port)
        transports.append(transport)
    await asyncio.wait_for(asyncio.gather(*(e.wait() for e in events)), seconds + 30)
    elapsed = time.monotonic() - started
    for transport in transports:
        transport.close()
    return counts[0], counts[1], elapsed


def _gateway(workers: int, upstream: int, port: int, tmp: Path) -> list[subprocess.Popen[bytes]]:
    """The gateway with `workers` workers listening on `port`, once its admin listener says it is ready."""
    admin = _free_port()
    path = tmp / f"gateway-{workers}.toml"
    path.write_text(f'[server]\nlisten = "127.0.0.1:{port}"\nworkers = {workers}\nshutdown_grace_seconds = 5.0\n'
                    f'[upstream]\nurl = "http://127.0.0.1:{upstream}"\nversion = "1.0"\n'
                    f'[admin]\nlisten = "127.0.0.1:{admin}"\n[log]\nlevel = "error"\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith(("A2A_GATEWAY_", "PROMETHEUS_"))}
    proc = subprocess.Popen([sys.executable, "-m", "gateway", "--config", str(path)], cwd=ROOT, env=env,
                            stdin=subprocess.DEVNULL)
    try:
        _wait_http(f"http://127.0.0.1:{admin}/readyz")
    except BaseException:
        _stop(proc)
        raise
    return [proc]


def _floor(processes: int, upstream: int, port: int, tmp: Path) -> list[subprocess.Popen[bytes]]:
    """`processes` minimal aiohttp proxies (bench.hop) listening on `port` together, once all listen (`tmp`,
    where the gateway writes its configuration, is not needed)."""
    args = [sys.executable, "-m", "bench.hop", "--serve-proxy", str(port), f"http://127.0.0.1:{upstream}/"]
    procs = [subprocess.Popen(args, cwd=ROOT, stdin=subprocess.DEVNULL) for _ in range(processes)]
    deadline = time.monotonic() + 30
    while _listening(port) < processes:
        if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
            for proc in procs:
                _stop(proc)
            raise RuntimeError(f"the floor's {processes} proxies did not all listen on {port}")
        time.sleep(0.05)
    return procs


# how each kind of hop is started (ready to serve), and the arms of a round: (hop, processes, label)
_START = {"gateway": _gateway, "floor": _floor}
_ARMS = (("gateway", 1, "workers=1"), ("gateway", 2, "workers=2"), ("floor", 1, "floor x 1"), ("floor", 2, "floor x 2"))


def _listening(port: int) -> int:
    """Sockets listening on 127.0.0.1:`port`, from /proc/net/tcp (Linux): state 0A is LISTEN."""
    local = f"0100007F:{port:04X}"
    with open("/proc/net/tcp") as handle:
        return sum(1 for line in handle if (cols := line.split())[1:2] == [local] and cols[3] == "0A")


def _tree_cpu_s(pid: int) -> float:
    """utime + stime of a process and its children (the workers), from /proc (Linux)."""
    total = 0.0
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            children = [int(c) for c in handle.read().split()]
        for p in [pid, *children]:
            with open(f"/proc/{p}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError):
        return float("nan")
    return total


def _machine_busy() -> tuple[int, int]:
    """(busy, total) jiffies of all CPUs, from /proc/stat."""
    with open("/proc/stat") as handle:
        values = [int(v) for v in handle.readline().split()[1:]]
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)


def _stop(proc: subprocess.Popen[bytes]) -> int:
    proc.terminate()
    try:
        return proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.workers", description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="measured time per round (default 4)")
    parser.add_argument("--requests", type=int, default=40_000, help="most requests per round (default 40000)")
    parser.add_argument("--connections", type=int, default=32, help="client connections (default 32)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per arm, alternating (default 3)")
    parser.add_argument("--warmup", type=float, default=1.0, help="unmeasured load before each round (s)")
    args = parser.parse_args(argv)
    with contextlib.suppress(ImportError):
        import uvloop

        uvloop.install()

    stub_port = _free_port()
    stub = subprocess.Popen([sys.executable, "-c", STUB, str(stub_port)], stdin=subprocess.PIPE)
    assert stub.stdin is not None
    stub.stdin.write(STUB_REPLY)
    stub.stdin.close()
    rates: dict[tuple[str, int], list[float]] = {(hop, n): [] for hop, n, _ in _ARMS}
    try:
        with tempfile.TemporaryDirectory(prefix="bench-workers-") as tmp:
            for round_ in range(args.rounds):
                for hop, processes, name in _ARMS:
                    port = _free_port()
                    procs = _START[hop](processes, stub_port, port, Path(tmp))
                    try:
                        asyncio.run(_load(port, args.connections, args.warmup, args.requests))
                        cpu0, (busy0, all0) = sum(map(_tree_cpu_s, (p.pid for p in procs))), _machine_busy()
                        done, failed, elapsed = asyncio.run(_load(port, args.connections, args.seconds,
                                                                  args.requests))
                        cpu = sum(map(_tree_cpu_s, (p.pid for p in procs))) - cpu0
                        busy1, all1 = _machine_busy()
                    finally:
                        codes = [_stop(proc) for proc in procs]
                    if failed or any(codes):
                        print(f"round {round_ + 1}, {name}: {failed} failed replies, exit {codes}", file=sys.stderr)
                        return 1
                    rate = done / elapsed
                    rates[hop, processes].append(rate)
                    print(f"round {round_ + 1}  {name:10} {done:6d} replies in {elapsed:5.2f} s  "
                          f"{rate:6.0f} req/s  hop CPU {cpu * 1e6 / max(done, 1):4.0f} us/req  "
                          f"machine busy {100 * (busy1 - busy0) / max(all1 - all0, 1):3.0f} %", flush=True)
    finally:
        stub.terminate()
        stub.wait(timeout=10)
    median = {arm: statistics.median(values) for arm, values in rates.items()}
    for hop, one_of, two_of in (("gateway", "worker", "workers"), ("floor", "proxy", "proxies")):
        one, two = median[hop, 1], median[hop, 2]
        print(f"median {hop}: 1 {one_of} {one:.0f} req/s, 2 {two_of} {two:.0f} req/s, ratio {two / one:.2f}")
    print(f"({os.cpu_count()} CPUs, client and stub agent on the same machine; the floor's ratio is what this"
          " machine lets a two-process hop reach)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
