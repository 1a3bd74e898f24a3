"""Push relay latency: N sequential notifications, upstream POST → webhook receipt (gateway and webhook in
their own processes), through the gateway vs direct, interleaved per round; `python -m bench.push_latency`."""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

from gateway.core import jsoncodec
from gateway.core.push import PushSealer
from gateway.core.types import Version
from tests.peers.gateway import ROOT, free_port

KEY = bytes(range(32))
TASK_ID = "bench-task-0001"
V10_TASK: dict[str, Any] = {
    "id": TASK_ID, "contextId": "bench-ctx-0001", "status": {"state": "TASK_STATE_COMPLETED"},
    "history": [{"messageId": f"m{i}", "role": "ROLE_USER" if i % 2 == 0 else "ROLE_AGENT",
                 "parts": [{"text": "hello " * 20}]} for i in range(4)],
    "artifacts": [{"artifactId": "a1", "name": "result", "parts": [{"text": "lorem ipsum " * 40}]}],
}
V10_STATUS = {"statusUpdate": {"taskId": TASK_ID, "contextId": "bench-ctx-0001",
                               "status": {"state": "TASK_STATE_WORKING"}}}


RECEIVER = """
import sys, time
from aiohttp import web
async def handle(request):
    await request.read()
    print(time.perf_counter(), flush=True)  # CLOCK_MONOTONIC: comparable across processes on Linux
    return web.Response(status=200)
app = web.Application()
app.router.add_post("/hook", handle)
web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), print=lambda *_: print("READY", flush=True),
            access_log=None)
"""


class Receiver:
    """The client's webhook in its own process (as it would be), reporting each receipt time."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.arrivals: asyncio.Queue[float] = asyncio.Queue()
        self._process: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._process = await asyncio.create_subprocess_exec(
            sys.executable, "-c", RECEIVER, str(self.port), stdout=asyncio.subprocess.PIPE)
        assert self._process.stdout is not None
        line = await asyncio.wait_for(self._process.stdout.readline(), 20)
        assert line.startswith(b"READY"), line
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        assert self._process is not None and self._process.stdout is not None
        async for line in self._process.stdout:
            self.arrivals.put_nowait(float(line))

    async def stop(self) -> None:
        if self._process is not None:
            self._process.terminate()
            await self._process.wait()
        if self._reader is not None:
            await self._reader


async def fake_agent(request: web.Request) -> web.Response:
    """The upstream's GetTask, for the arm whose event needs the task fetched."""
    rpc = await request.json(loads=jsoncodec.loads)
    return web.json_response({"jsonrpc": "2.0", "id": rpc["id"], "result": V10_TASK}, dumps=jsoncodec.dumps)


async def serve(app: web.Application, port: int) -> web.AppRunner:
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    return runner


def start_gateway(port: int, upstream: str, log_path: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "A2A_GATEWAY_PUSH_KEYS": base64.b64encode(KEY).decode(),
           "A2A_GATEWAY_PUSH_ALLOW_NETWORKS": "127.0.0.0/8", "A2A_GATEWAY_UPSTREAM_VERSION": "1.0",
           "A2A_GATEWAY_LOG_FORMAT": "json"}
    with log_path.open("wb") as log:
        return subprocess.Popen([sys.executable, "-m", "gateway", "--listen", f"127.0.0.1:{port}",
                                 "--upstream", upstream], stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, cwd=ROOT, env=env)


async def wait_up(session: aiohttp.ClientSession, url: str) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            async with session.post(url, data=b"{}") as resp:
                if resp.status in (401, 403, 404):
                    return
        except aiohttp.ClientError:
            pass
        await asyncio.sleep(0.1)
    raise RuntimeError("gateway did not start")


async def one(session: aiohttp.ClientSession, receiver: Receiver, url: str, body: bytes,
              headers: dict[str, str]) -> float:
    started = time.perf_counter()
    async with session.post(url, data=body, headers=headers) as resp:
        assert resp.status == 200, resp.status
    arrived = await asyncio.wait_for(receiver.arrivals.get(), 10)
    return (arrived - started) * 1000


def summary(samples: list[float]) -> str:
    q = statistics.quantiles(samples, n=100)
    return (f"p50 {q[49]:6.2f}  p90 {q[89]:6.2f}  p99 {q[98]:6.2f}  mean {statistics.fmean(samples):6.2f}"
            f"  min {min(samples):6.2f} ms")


async def main(n: int, warmup: int) -> None:
    hook_port, agent_port, gw_port = free_port(), free_port(), free_port()
    receiver = Receiver(hook_port)
    await receiver.start()
    agent_app = web.Application()
    agent_app.router.add_post("/", fake_agent)
    runners = [await serve(agent_app, agent_port)]
    log_path = Path(tempfile.mkstemp(prefix="bench-push-", suffix=".log")[1])
    process = start_gateway(gw_port, f"http://127.0.0.1:{agent_port}/", log_path)
    hook_url, gw_base = f"http://127.0.0.1:{hook_port}/hook", f"http://127.0.0.1:{gw_port}"
    sealer = PushSealer([KEY], webhook_base=gw_base, nonce=lambda: os.urandom(12))
    up = sealer.seal({"id": "c1", "taskId": TASK_ID, "url": hook_url, "token": "client-token"},
                     client=Version.V03, task_id=TASK_ID)
    relay_headers = {"Content-Type": "application/json", "X-A2A-Notification-Token": up["token"]}
    direct_headers = {"Content-Type": "application/json", "X-A2A-Notification-Token": "client-token"}
    task_body, status_body = jsoncodec.dumpb({"task": V10_TASK}), jsoncodec.dumpb(V10_STATUS)
    arms = {
        "direct POST to webhook": (hook_url, task_body, direct_headers),
        "relay, v1.0 task → v0.3 Task": (up["url"], task_body, relay_headers),
        "relay, v1.0 statusUpdate → GetTask → v0.3 Task": (up["url"], status_body, relay_headers),
    }
    results: dict[str, list[float]] = {name: [] for name in arms}
    try:
        connector = aiohttp.TCPConnector(limit=4)
        async with aiohttp.ClientSession(connector=connector) as session:
            await wait_up(session, up["url"])
            for i in range(warmup + n):
                for name, (url, body, headers) in arms.items():
                    ms = await one(session, receiver, url, body, headers)
                    if i >= warmup:
                        results[name].append(ms)
    finally:
        process.terminate()
        process.wait(10)
        for runner in runners:
            await runner.cleanup()
        await receiver.stop()
    print(f"push relay latency, upstream POST → client webhook receipt, n={n} sequential per arm "
          f"(+{warmup} warm-up), loopback, webhook and gateway in own processes; "
          f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} CPUs")
    for name, samples in results.items():
        print(f"  {name:<48} {summary(samples)}")
    base = statistics.median(results["direct POST to webhook"])
    for name in list(arms)[1:]:
        added = statistics.median(results[name]) - base
        print(f"  added by the relay ({name.split(', ', 1)[1]}): p50 +{added:.2f} ms")
    sent = [line["duration_ms"] for line in _log_lines(log_path) if line.get("event") == "push_delivered"]
    if len(sent) > 1:
        print(f"  the gateway's own POST to the webhook (push_delivered.duration_ms): {summary(sent)}")
    log_path.unlink(missing_ok=True)


def _log_lines(path: Path) -> list[dict[str, Any]]:
    out = []
    for raw in path.read_text(errors="replace").splitlines():
        if raw.startswith("{"):
            out.append(jsoncodec.loads(raw))
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-n", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    args = parser.parse_args()
    asyncio.run(main(args.n, args.warmup))
