"""The gateway's hop against the cheapest Python hop: sequential small sends to a canned v1.0 agent,
direct, through a minimal aiohttp proxy (the baseline) and through the gateway (pass-through and
translated), arms interleaved in one run; latency and proxy CPU per request. `python -m bench.hop`; with
`--icount`, each hop's instructions per request under valgrind instead."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import aiohttp
from aiohttp import web

ROOT = Path(__file__).resolve().parent.parent
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
TEXT = "echo bench"
TASK = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"task": {
    "id": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_COMPLETED", "timestamp": "2025-04-02T16:59:25Z"},
    "artifacts": [{"artifactId": "a-1", "parts": [{"text": TEXT}]}],
    "history": [{"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": TEXT}]}]}}}).encode()
BODY_V03 = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {
    "message": {"kind": "message", "messageId": "m-1", "role": "user", "parts": [{"kind": "text", "text": TEXT}]},
    "configuration": {"acceptedOutputModes": ["text/plain"], "blocking": True}}}).encode()
BODY_V10 = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {
    "message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": TEXT}]},
    "configuration": {"acceptedOutputModes": ["text/plain"]}}}).encode()
JSON = {"Content-Type": "application/json"}
V10 = {**JSON, "A2A-Version": "1.0"}


# ---- the two helper servers (each its own process, so CPU is attributed) ------------------------------

def agent_app(port: int, description: str, rpc: Handler) -> web.Application:
    """A canned v1.0 agent on `port`: its card, and `rpc` answering every JSON-RPC call."""
    card = {"name": "stub", "description": description, "version": "1.0",
            "supportedInterfaces": [{"url": f"http://127.0.0.1:{port}/", "protocolBinding": "JSONRPC",
                                     "protocolVersion": "1.0"}],
            "capabilities": {"streaming": True}, "defaultInputModes": ["text/plain"],
            "defaultOutputModes": ["text/plain"], "skills": []}

    async def get_card(request: web.Request) -> web.Response:
        return web.json_response(card)

    app = web.Application()
    app.router.add_post("/", rpc)
    app.router.add_get("/.well-known/agent-card.json", get_card)
    return app


def stub_app(port: int) -> web.Application:
    """Every SendMessage completes at once with the same small Task."""
    async def rpc(request: web.Request) -> web.Response:
        await request.read()
        return web.Response(body=TASK, content_type="application/json")

    return agent_app(port, "canned v1.0 agent", rpc)


def proxy_app(upstream: str) -> web.Application:
    """The baseline: the least an aiohttp proxy does (read, forward with the caller's A2A version, relay
    the body)."""
    async def session(app: web.Application) -> AsyncIterator[None]:
        async with aiohttp.ClientSession() as app["session"]:   # closed when the server stops
            yield

    async def proxy(request: web.Request) -> web.Response:
        body = await request.read()
        headers = V10 if request.headers.get("A2A-Version") == "1.0" else JSON   # the caller's version on
        async with request.app["session"].post(upstream, data=body, headers=headers) as resp:
            return web.Response(body=await resp.read(), status=resp.status, content_type="application/json")

    app = web.Application()
    app.cleanup_ctx.append(session)
    app.router.add_post("/", proxy)
    return app


# ---- the run ----------------------------------------------------------------------------------------

def serve(app: web.Application, port: int) -> None:
    """Run a helper server on the event loop the gateway itself picks by default (uvloop when installed),
    so that the baselines and the gateway differ in what they do, not in their loop. The port is bound
    with SO_REUSEPORT: bench.workers runs two proxies on one port, as the gateway's workers share theirs."""
    try:
        import uvloop
    except ImportError:
        web.run_app(app, host="127.0.0.1", port=port, access_log=None, print=None, reuse_port=True)
        return
    web.run_app(app, host="127.0.0.1", port=port, access_log=None, print=None, reuse_port=True,
                loop=uvloop.new_event_loop())


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def process(args: list[str], env: dict[str, str] | None = None,
             wrap: tuple[str, ...] = ()) -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen([*wrap, sys.executable, *args], cwd=ROOT, env={**os.environ, **(env or {})},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield proc
    finally:
        proc.terminate()
        proc.wait(60 if wrap else 10)


async def ready(url: str, deadline: float = 30.0) -> None:
    """Wait until `url` answers below 500 (a process the bench started is up), at most `deadline` s."""
    end = time.monotonic() + deadline
    async with aiohttp.ClientSession() as session:
        while True:
            try:
                async with session.get(url) as resp:
                    if resp.status < 500:
                        return
            except aiohttp.ClientError:
                pass
            if time.monotonic() > end:
                raise RuntimeError(f"{url} did not come up")
            await asyncio.sleep(0.1)


async def _sends(session: aiohttp.ClientSession, url: str, body: bytes, headers: dict[str, str],
                 n: int) -> list[float]:
    out = []
    for _ in range(n):
        start = time.perf_counter()
        async with session.post(url, data=body, headers=headers) as resp:
            await resp.read()
            if resp.status != 200:
                raise RuntimeError(f"{url} answered {resp.status}")
        out.append(time.perf_counter() - start)
    return out


async def _check(session: aiohttp.ClientSession, url: str, body: bytes, headers: dict[str, str]) -> None:
    """Every arm's reply is the completed Task in its client's version before anything is timed."""
    async with session.post(url, data=body, headers=headers) as resp:
        result = json.loads(await resp.read()).get("result", {})
    v03 = body is BODY_V03
    task = result if v03 else result.get("task", {})
    state = task.get("status", {}).get("state")
    if (v03 and task.get("kind") != "task") or state != ("completed" if v03 else "TASK_STATE_COMPLETED"):
        raise RuntimeError(f"{url} answered {result!r}")


def _pct(sorted_values: list[float], q: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * q))] * 1000


async def measure(requests: int, rounds: int) -> dict[str, dict[str, float]]:
    stub_port, proxy_port, gw_port = free_port(), free_port(), free_port()
    upstream = f"http://127.0.0.1:{stub_port}/"
    env = {"A2A_GATEWAY_ADMIN_LISTEN": f"127.0.0.1:{free_port()}"}
    with ExitStack() as stack:
        stack.enter_context(process(["-m", "bench.hop", "--serve-stub", str(stub_port)]))
        await ready(upstream + ".well-known/agent-card.json")
        proxy = stack.enter_context(process(["-m", "bench.hop", "--serve-proxy", str(proxy_port), upstream]))
        gw = stack.enter_context(process(["-m", "gateway", "--listen", f"127.0.0.1:{gw_port}",
                                           "--upstream", upstream], env))
        await ready(f"http://127.0.0.1:{gw_port}/.well-known/agent-card.json")
        await ready(f"http://127.0.0.1:{proxy_port}/")
        arms = {  # name: (url, body, headers, pid of the hop or None)
            "direct (v1.0 client)": (upstream, BODY_V10, V10, None),
            "aiohttp proxy (baseline)": (f"http://127.0.0.1:{proxy_port}/", BODY_V10, V10, proxy.pid),
            "gateway pass-through": (f"http://127.0.0.1:{gw_port}/", BODY_V10, V10, gw.pid),
            "gateway v0.3 → v1.0": (f"http://127.0.0.1:{gw_port}/", BODY_V03, JSON, gw.pid),
        }
        latencies: dict[str, list[float]] = {name: [] for name in arms}
        cpu = dict.fromkeys(arms, 0.0)
        async with aiohttp.ClientSession() as session:
            for url, body, headers, _ in arms.values():
                await _check(session, url, body, headers)
                await _sends(session, url, body, headers, 100)   # warm every path and connection
            for _ in range(rounds):
                for name, (url, body, headers, pid) in arms.items():
                    before = cpu_seconds(pid) if pid else 0.0
                    latencies[name] += await _sends(session, url, body, headers, requests // rounds)
                    cpu[name] += (cpu_seconds(pid) - before) if pid else 0.0
    out = {}
    for name, values in latencies.items():
        values.sort()
        out[name] = {"p50_ms": _pct(values, 0.5), "mean_ms": sum(values) / len(values) * 1000,
                     "p99_ms": _pct(values, 0.99), "cpu_us": cpu[name] / len(values) * 1e6}
    return out


async def instructions(args: list[str], probe: str, warm: Callable[[str], Awaitable[object]],
                       timed: Callable[[str], Awaitable[object]]) -> int:
    """Instructions a hop process (`args`, its port as "{port}") spends in `timed(url)` after `warm(url)`,
    under valgrind (callgrind), counted only around `timed` once `url + probe` answers. System calls are the
    kernel's and are not counted."""
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        dump = Path(tmp) / "hop"
        wrap = ("valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={dump}")
        env = {"A2A_GATEWAY_ADMIN_LISTEN": f"127.0.0.1:{free_port()}"}
        with process([a.replace("{port}", str(port)) for a in args], env, wrap) as proc:
            url = f"http://127.0.0.1:{port}/"
            await ready(url + probe, 300)
            await warm(url)
            subprocess.run(["callgrind_control", "-i", "on", str(proc.pid)], check=True, capture_output=True)
            await timed(url)
            subprocess.run(["callgrind_control", "-d", str(proc.pid)], check=True, capture_output=True)
        counted = Path(tmp).glob("hop.*")   # the dump; `hop` itself is the exit's rest
        totals = [re.search(r"^(?:summary|totals): (\d+)", f.read_text(), re.M) for f in counted]
        return sum(int(m.group(1)) for m in totals if m)


async def icount(requests: int) -> dict[str, float]:
    """Instructions per request of each hop process under valgrind (`instructions`), counted only around
    `requests` sequential sends after a warm-up: deterministic where CPU time is not (a shared machine)."""
    stub_port = free_port()
    upstream = f"http://127.0.0.1:{stub_port}/"
    arms = {  # name: (arguments of the hop process, body, headers)
        "aiohttp proxy (baseline)": (["-m", "bench.hop", "--serve-proxy", "{port}", upstream], BODY_V10, V10),
        "gateway pass-through": (["-m", "gateway", "--listen", "127.0.0.1:{port}", "--upstream", upstream],
                                 BODY_V10, V10),
        "gateway v0.3 → v1.0": (["-m", "gateway", "--listen", "127.0.0.1:{port}", "--upstream", upstream],
                                BODY_V03, JSON),
    }
    out: dict[str, float] = {}
    with process(["-m", "bench.hop", "--serve-stub", str(stub_port)]):
        await ready(upstream + ".well-known/agent-card.json")
        for name, (args, body, headers) in arms.items():
            async with aiohttp.ClientSession() as session:
                async def warm(url: str, body: bytes = body, headers: dict[str, str] = headers) -> None:
                    await _check(session, url, body, headers)
                    await _sends(session, url, body, headers, 300)   # warm every path and connection

                async def timed(url: str, body: bytes = body, headers: dict[str, str] = headers) -> None:
                    await _sends(session, url, body, headers, requests)

                probe = "" if "baseline" in name else ".well-known/agent-card.json"
                out[name] = await instructions(args, probe, warm, timed) / requests
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=3000, help="timed sends per arm (default 3000)")
    parser.add_argument("--rounds", type=int, default=6, help="interleaved rounds (default 6)")
    parser.add_argument("--icount", action="store_true",
                        help="instructions per request of each hop under valgrind instead (slow: ~1 min per arm)")
    parser.add_argument("--serve-stub", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--serve-proxy", nargs=2, metavar=("PORT", "UPSTREAM"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_stub:
        serve(stub_app(args.serve_stub), args.serve_stub)
        return
    if args.serve_proxy:
        port, upstream = args.serve_proxy
        serve(proxy_app(upstream), int(port))
        return
    if args.icount:
        counts = asyncio.run(icount(args.requests))
        base_count = counts["aiohttp proxy (baseline)"]
        print(f"{'arm':26} {'instructions/req':>17} {'× baseline':>11}")
        for name, count in counts.items():
            print(f"{name:26} {count:17,.0f} {count / base_count:11.2f}")
        return
    figures = asyncio.run(measure(args.requests, args.rounds))
    base = figures["aiohttp proxy (baseline)"]
    direct = figures["direct (v1.0 client)"]
    print(f"{'arm':26} {'p50 ms':>7} {'mean ms':>8} {'p99 ms':>7} {'added p50':>10} {'hop CPU µs':>11} "
          f"{'× baseline':>11}")
    for name, f in figures.items():
        ratio = f"{f['cpu_us'] / base['cpu_us']:.2f}" if f["cpu_us"] and base["cpu_us"] else "–"
        cpu = f"{f['cpu_us']:.0f}" if f["cpu_us"] else "–"
        print(f"{name:26} {f['p50_ms']:7.3f} {f['mean_ms']:8.3f} {f['p99_ms']:7.3f} "
              f"{f['p50_ms'] - direct['p50_ms']:+10.3f} {cpu:>11} {ratio:>11}")


if __name__ == "__main__":
    main()
